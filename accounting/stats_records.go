package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/boinc"
)

// The export's records: each file's query, read through a cursor, and
// the record it makes of a row. Listed means in_stats and public (the
// public switch hides every listing), by an account not disabled.

// statsListed is the condition on public_profiles p that lists a
// volunteer.
const statsListed = `p.in_stats AND p.public AND p.stats_id IS NOT NULL
	AND EXISTS (SELECT 1 FROM users u WHERE u.id = p.user_id AND u.disabled_at IS NULL)`

// statsCredit selects, per key, the total and the recent average of the
// daily credit that the query days gives (columns key, day and
// granted_micro): total, in millionths; weighted and last, RecentAverage's
// rule applied in SQL to the days with credit up to the end of the last
// one (statsAverage decays it to the export's time). By that rule the
// first day's credit is its rate, and each later day's, d days after the
// one before, adds (1 − 2^(−d/7))·credit/d to the average decayed by
// 2^(−d/7); so the average at the last day is a sum over the days of
// their credit times that factor, decayed from their day to the last.
// (The decays stop at 2^−1000, below which PostgreSQL's power fails
// rather than give 0.) One pass over the days of every key, in key and
// day order, rather than a query per key.
func statsCredit(days string) string {
	return `
		SELECT key, sum(c)::bigint AS total, max(last) AS last,
			sum(c * CASE WHEN gap IS NULL THEN 1 ELSE (1 - power(0.5, gap / 7)) / gap END
				* power(0.5, least((last - day)::float8 / 7, 1000)))::float8 AS weighted
		FROM (SELECT key, day, c, (day - lag(day) OVER w)::float8 AS gap, max(day) OVER (PARTITION BY key) AS last
			FROM (SELECT key, day, sum(granted_micro) AS c FROM (` + days + `) d
				GROUP BY key, day HAVING sum(granted_micro) <> 0) per_day
			WINDOW w AS (PARTITION BY key ORDER BY day)) g
		GROUP BY key`
}

// statsUser is a row of the users' query.
type statsUser struct {
	ID       int64
	Handle   string
	Since    time.Time
	CPID     string
	Total    int64
	Last     *time.Time
	Weighted float64
	TeamID   int64
}

// writeUsers writes a <user> for each listed volunteer, by export id:
// their public handle, confirmed credit through the last settled day,
// and their team when it is not hidden.
func (s *StatsStore) writeUsers(ctx context.Context, tx pgx.Tx, args pgx.NamedArgs, w *boinc.ExportWriter, ex *StatsExport) error {
	q := `
		WITH listed AS (SELECT p.user_id, p.stats_id, p.handle, p.stats_since, p.stats_cpid
			FROM public_profiles p WHERE ` + statsListed + `)
		SELECT l.stats_id, l.handle, l.stats_since, l.stats_cpid, coalesce(c.total, 0), c.last,
			coalesce(c.weighted, 0), coalesce(tm.team_id, 0)
		FROM listed l
		LEFT JOIN (` + statsCredit(`
			SELECT user_id AS key, day, granted_micro FROM rollup_volunteer_days
			WHERE user_id IN (SELECT user_id FROM listed) AND day <= @through::date AND day >= (SELECT ledger_detail_from())
			UNION ALL
			SELECT user_id, day, granted_micro FROM ledger_volunteer_days
			WHERE user_id IN (SELECT user_id FROM listed) AND day <= @through::date AND day < (SELECT ledger_detail_from())`) + `) c
			ON c.key = l.user_id
		LEFT JOIN LATERAL (
			SELECT m.team_id FROM team_members m JOIN teams t ON t.id = m.team_id AND NOT t.hidden
			WHERE m.user_id = l.user_id AND m.until_day IS NULL) tm ON true
		ORDER BY l.stats_id`
	return cursor(ctx, tx, q, args, func(r *statsUser) error {
		ex.Users++
		ex.TotalMicro += r.Total
		avg, at := statsAverage(r.Weighted, r.Last, ex.BuiltAt)
		return w.User(&boinc.UserRecord{ID: r.ID, Name: r.Handle, CreateTime: r.Since.Unix(), TotalMicro: r.Total,
			ExpavgCredit: avg, ExpavgTime: at, CPID: r.CPID, TeamID: r.TeamID})
	})
}

// statsTeam is a row of the teams' query.
type statsTeam struct {
	ID          int64
	Type        int
	Name        string
	FounderID   int64
	FounderName string
	Created     time.Time
	URL         string
	Description string
	Country     string
	Total       int64
	Last        *time.Time
	Weighted    float64
}

// writeTeams writes a <team> for each team not hidden, by id, with its
// confirmed credit (rollup_team_days); its founder only when listed.
func (s *StatsStore) writeTeams(ctx context.Context, tx pgx.Tx, args pgx.NamedArgs, w *boinc.ExportWriter, ex *StatsExport) error {
	q := `
		SELECT t.id, t.type, t.name, coalesce(f.stats_id, 0), coalesce(f.handle, ''), t.created_at,
			t.url, t.description, t.country, coalesce(c.total, 0), c.last, coalesce(c.weighted, 0)
		FROM teams t
		LEFT JOIN (` + statsCredit(`
			SELECT team_id AS key, day, granted_micro FROM rollup_team_days WHERE day <= @through::date`) + `) c
			ON c.key = t.id
		LEFT JOIN LATERAL (
			SELECT p.stats_id, p.handle FROM team_members m JOIN public_profiles p ON p.user_id = m.user_id
			WHERE m.team_id = t.id AND m.until_day IS NULL AND m.founder AND ` + statsListed + `) f ON true
		WHERE NOT t.hidden
		ORDER BY t.id`
	return cursor(ctx, tx, q, args, func(r *statsTeam) error {
		ex.Teams++
		avg, at := statsAverage(r.Weighted, r.Last, ex.BuiltAt)
		return w.Team(&boinc.TeamRecord{ID: r.ID, Type: r.Type, Name: r.Name, UserID: r.FounderID, TotalMicro: r.Total,
			ExpavgCredit: avg, ExpavgTime: at, FounderName: r.FounderName,
			CreateTime: r.Created.Unix(), URL: r.URL, Description: r.Description, Country: r.Country})
	})
}

// statsHost is a row of the computers' query.
type statsHost struct {
	ID        int64
	UserID    int64
	Total     float64
	Expavg    float64
	PVendor   string
	PModel    string
	OSName    string
	OSVersion string
	Client    string
	Created   time.Time
	LastRPC   *time.Time
	NCPUs     int
	PFPOps    float64
	MNBytes   float64
	HostCPID  string
}

// writeHosts writes a <host> for each computer of a listed volunteer who
// shows their computers, by id, with credit: the projects' own figures
// for it, from their latest exports (the recent average decayed to now),
// and nothing that names or places it (no domain name, address, location
// or time zone). Its host_cpid is a digest of the computer's and the
// volunteer's cross-project ids, renewed with the latter.
func (s *StatsStore) writeHosts(ctx context.Context, tx pgx.Tx, args pgx.NamedArgs, w *boinc.ExportWriter, ex *StatsExport) error {
	q := `
		SELECT h.id, p.stats_id, c.total, c.expavg, h.p_vendor, h.p_model, h.os_name, h.os_version,
			h.client_version, h.created_at, h.last_rpc_at, h.ncpus, h.p_fpops, h.m_nbytes,
			md5(p.stats_cpid || h.host_cpid)
		FROM public_profiles p JOIN hosts h ON h.user_id = p.user_id
		CROSS JOIN LATERAL (
			SELECT coalesce(sum(e.total_credit), 0)::float8 AS total,
				coalesce(sum(e.expavg_credit * power(0.5, least(greatest(extract(epoch FROM @now::timestamptz)
					- e.expavg_time, 0) / 604800, 1000))), 0)::float8 AS expavg
			FROM host_projects hp CROSS JOIN LATERAL (
				SELECT x.total_credit, x.expavg_credit, x.expavg_time FROM export_credit x
				WHERE x.host_id = hp.host_id AND x.project_id = hp.project_id
				ORDER BY x.export_time DESC LIMIT 1) e
			WHERE hp.host_id = h.id) c
		WHERE ` + statsListed + ` AND p.stats_hosts AND c.total > 0
		ORDER BY h.id`
	now := float64(ex.BuiltAt.Unix())
	return cursor(ctx, tx, q, args, func(r *statsHost) error {
		ex.Hosts++
		var rpc int64
		if r.LastRPC != nil {
			rpc = r.LastRPC.Unix()
		}
		return w.Host(&boinc.HostRecord{ID: r.ID, UserID: r.UserID, TotalCredit: r.Total, ExpavgCredit: r.Expavg,
			ExpavgTime: now, PVendor: r.PVendor, PModel: r.PModel, OSName: r.OSName, OSVersion: r.OSVersion,
			BOINCVersion: r.Client, CreateTime: r.Created.Unix(), RPCTime: rpc, NCPUs: r.NCPUs, PFPOps: r.PFPOps,
			MNBytes: r.MNBytes, HostCPID: r.HostCPID})
	})
}
