package accounting

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// hostProjectColumns are the columns of host_projects that an RPC reads:
// the last report's and the lifetime totals' in the order of UsageFields.
const hostProjectColumns = `project_id, assigned, attached, project_hostid,
	last_cpu_ec_micro, last_cpu_time_micro, last_gpu_ec_micro, last_gpu_time_micro,
	last_njobs_success, last_njobs_error, reported_at,
	total_cpu_ec_micro, total_cpu_time_micro, total_gpu_ec_micro, total_gpu_time_micro,
	total_njobs_success, total_njobs_error, avg_ec, avg_time`

// hostProjectRow is a row of hostProjectColumns; dest lists its fields in
// the columns' order. (Scanning by name, through reflection, took 15 µs of
// an RPC in cobble-load's CPU profile; by position, 5.)
type hostProjectRow struct {
	ProjectID, ProjectHostID int64
	Assigned, Attached       bool
	Last                     [6]*int64 // NULL until the first report
	ReportedAt               *time.Time
	Total                    Usage
	AvgEC                    float64
	AvgTime                  *time.Time
}

func (r *hostProjectRow) dest() []any {
	l, t := &r.Last, r.Total.fields()
	return []any{&r.ProjectID, &r.Assigned, &r.Attached, &r.ProjectHostID,
		&l[0], &l[1], &l[2], &l[3], &l[4], &l[5], &r.ReportedAt,
		t[0], t[1], t[2], t[3], t[4], t[5], &r.AvgEC, &r.AvgTime}
}

// scanHostProject reads one row of hostProjectColumns.
func scanHostProject(row pgx.CollectableRow) (*hostProject, error) {
	var r hostProjectRow
	if err := row.Scan(r.dest()...); err != nil {
		return nil, err
	}
	p := &hostProject{ProjectID: r.ProjectID, Assigned: r.Assigned, Attached: r.Attached,
		ProjectHostID: r.ProjectHostID, Avg: r.AvgEC, Total: r.Total}
	if !slices.Contains(r.Last[:], nil) {
		var last Usage
		for i, f := range last.fields() {
			*f = *r.Last[i]
		}
		p.Last = &last
	}
	if r.ReportedAt != nil {
		p.ReportedAt = *r.ReportedAt
	}
	if r.AvgTime != nil {
		p.AvgTime = *r.AvgTime
	}
	return p, nil
}

// rpcState is what an RPC reads with the host row locked.
type rpcState struct {
	pairs   map[int64]*hostProject  // the host's projects
	choices map[int64]ProjectChoice // the volunteer's always/never
	others  map[int64]projectCredit // the volunteer's credit on other hosts
	prefs   rpcPrefs                // the volunteer's keywords and compute preferences
}

// The RPC's reads name the volunteer and the host by their ids once the
// host is identified (loadRPCState), or by the AM token and the host token
// in the steady state (syncKnownHost), where they go in the same round trip
// as the query that checks those tokens, locks the host and reads the
// volunteer's preferences.

// queueRPCState queues the reads of an RPC whose host is identified: the
// volunteer's preferences (one prefsRow), then queueHostState's.
func queueRPCState(b *pgx.Batch, userID, hostID int64, now time.Time) {
	args := pgx.NamedArgs{"user_id": userID, "host_id": hostID, "now": now, "half_life": avgHalfLife.Seconds()}
	b.Queue(`SELECT `+prefsColumns+` FROM users u `+prefsJoins+` WHERE u.id = @user_id`, args)
	b.Queue(`SELECT `+hostProjectColumns+` FROM host_projects WHERE host_id = @host_id`, args)
	b.Queue(`SELECT project_id, `+creditColumns+` FROM host_projects
		WHERE user_id = @user_id AND host_id <> @host_id
		GROUP BY project_id`, args)
}

// queueKnownHostState queues the reads of readHostState for the host that
// the host token names, behind the query that checks both tokens. They find
// the host by its token alone (a unique key): when the tokens do not match,
// that query returns no row and the RPC discards what these read.
func queueKnownHostState(b *pgx.Batch, hostToken string, now time.Time) {
	args := pgx.NamedArgs{"host_token": hostToken, "now": now, "half_life": avgHalfLife.Seconds()}
	b.Queue(`
		SELECT `+hostProjectColumns+`
		FROM hosts h JOIN host_projects hp ON hp.host_id = h.id
		WHERE h.opaque_token = @host_token`, args)
	b.Queue(`
		SELECT hp.project_id, `+creditColumns+`
		FROM hosts h JOIN host_projects hp ON hp.user_id = h.user_id AND hp.host_id <> h.id
		WHERE h.opaque_token = @host_token
		GROUP BY hp.project_id`, args)
}

// creditColumns are a volunteer's lifetime credit in micro-Cobblestones and
// recent average as of @now, summed over a group of host_projects rows.
const creditColumns = `sum(total_cpu_ec_micro + total_gpu_ec_micro),
	coalesce(sum(avg_ec * exp(-greatest(extract(epoch FROM @now::timestamptz - avg_time), 0)
		* ln(2) / @half_life::float8)) FILTER (WHERE avg_time IS NOT NULL), 0)`

// readRPCState reads what queueRPCState queued.
func readRPCState(br pgx.BatchResults) (rpcState, error) {
	var pr prefsRow
	if err := br.QueryRow().Scan(pr.dest()...); err != nil {
		return rpcState{}, err
	}
	st, err := readHostState(br)
	st.choices, st.prefs = pr.parse()
	return st, err
}

// readHostState reads the host's project rows and the volunteer's credit
// on their other hosts, as queueKnownHostState and the end of
// queueRPCState queue them.
func readHostState(br pgx.BatchResults) (rpcState, error) {
	st := rpcState{pairs: map[int64]*hostProject{}, others: map[int64]projectCredit{}}
	rows, err := br.Query()
	if err != nil {
		return st, err
	}
	pairs, err := pgx.CollectRows(rows, scanHostProject)
	if err != nil {
		return st, err
	}
	for _, p := range pairs {
		st.pairs[p.ProjectID] = p
	}
	if rows, err = br.Query(); err != nil {
		return st, err
	}
	var id, total int64
	var avg float64
	_, err = pgx.ForEachRow(rows, []any{&id, &total, &avg}, func() error {
		st.others[id] = projectCredit{Total: fromMicro(total), Avg: avg}
		return nil
	})
	return st, err
}

// loadRPCState reads an RPC's state in one round trip.
func (s *Store) loadRPCState(ctx context.Context, tx batcher, userID, hostID int64, now time.Time) (rpcState, error) {
	b := &pgx.Batch{}
	queueRPCState(b, userID, hostID, now)
	s.rewrites.positional(b)
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	return readRPCState(br)
}

func collectChoices(rows pgx.Rows, err error) (map[int64]ProjectChoice, error) {
	if err != nil {
		return nil, err
	}
	choices := map[int64]ProjectChoice{}
	var id int64
	var choice ProjectChoice
	_, err = pgx.ForEachRow(rows, []any{&id, &choice}, func() error {
		choices[id] = choice
		return nil
	})
	return choices, err
}

// projectCredit is a volunteer's credit on one project.
type projectCredit struct {
	Total float64 // Cobblestones
	Avg   float64 // recent average per day, as of now
}

// saveHostProjects writes the new state of a host's projects.
func saveHostProjects(b *pgx.Batch, userID, hostID int64, pairs map[int64]*hostProject) {
	var c hostProjectBatch
	for _, p := range pairs {
		c.add(p)
	}
	b.Queue(`
		INSERT INTO host_projects AS hp (host_id, user_id, project_id, assigned, attached, project_hostid,
			last_cpu_ec_micro, last_cpu_time_micro, last_gpu_ec_micro, last_gpu_time_micro,
			last_njobs_success, last_njobs_error, reported_at,
			total_cpu_ec_micro, total_cpu_time_micro, total_gpu_ec_micro, total_gpu_time_micro,
			total_njobs_success, total_njobs_error, avg_ec, avg_time)
		SELECT @host_id, @user_id, u.* FROM unnest(@project_id::bigint[], @assigned::bool[],
			@attached::bool[], @project_hostid::bigint[],
			@last_cpu_ec_micro::bigint[], @last_cpu_time_micro::bigint[],
			@last_gpu_ec_micro::bigint[], @last_gpu_time_micro::bigint[],
			@last_njobs_success::bigint[], @last_njobs_error::bigint[], @reported_at::timestamptz[],
			@total_cpu_ec_micro::bigint[], @total_cpu_time_micro::bigint[],
			@total_gpu_ec_micro::bigint[], @total_gpu_time_micro::bigint[],
			@total_njobs_success::bigint[], @total_njobs_error::bigint[],
			@avg_ec::float8[], @avg_time::timestamptz[]) AS u
		ON CONFLICT (host_id, project_id) DO UPDATE SET
			assigned = EXCLUDED.assigned, attached = EXCLUDED.attached,
			project_hostid = EXCLUDED.project_hostid,
			last_cpu_ec_micro = EXCLUDED.last_cpu_ec_micro, last_cpu_time_micro = EXCLUDED.last_cpu_time_micro,
			last_gpu_ec_micro = EXCLUDED.last_gpu_ec_micro, last_gpu_time_micro = EXCLUDED.last_gpu_time_micro,
			last_njobs_success = EXCLUDED.last_njobs_success, last_njobs_error = EXCLUDED.last_njobs_error,
			reported_at = EXCLUDED.reported_at,
			total_cpu_ec_micro = EXCLUDED.total_cpu_ec_micro, total_cpu_time_micro = EXCLUDED.total_cpu_time_micro,
			total_gpu_ec_micro = EXCLUDED.total_gpu_ec_micro, total_gpu_time_micro = EXCLUDED.total_gpu_time_micro,
			total_njobs_success = EXCLUDED.total_njobs_success, total_njobs_error = EXCLUDED.total_njobs_error,
			avg_ec = EXCLUDED.avg_ec, avg_time = EXCLUDED.avg_time`,
		c.args(userID, hostID))
}

// hostProjectBatch holds host_projects rows as columns, for one unnest
// insert; last and total are in the order of UsageFields.
type hostProjectBatch struct {
	ids, hostIDs       []int64
	assigned, attached []bool
	last               [6][]*int64
	reportedAt         []*time.Time
	total              [6][]int64
	avg                []float64
	avgTime            []*time.Time
}

func (c *hostProjectBatch) add(p *hostProject) {
	c.ids = append(c.ids, p.ProjectID)
	c.assigned = append(c.assigned, p.Assigned)
	c.attached = append(c.attached, p.Attached)
	c.hostIDs = append(c.hostIDs, p.ProjectHostID)
	var last [6]*int64
	if p.Last != nil {
		l := *p.Last
		last = l.fields()
	}
	for i := range last {
		c.last[i] = append(c.last[i], last[i])
	}
	c.reportedAt = append(c.reportedAt, timeOrNil(p.ReportedAt))
	for i, v := range p.Total.fields() {
		c.total[i] = append(c.total[i], *v)
	}
	c.avg = append(c.avg, p.Avg)
	c.avgTime = append(c.avgTime, timeOrNil(p.AvgTime))
}

func (c *hostProjectBatch) args(userID, hostID int64) pgx.NamedArgs {
	args := pgx.NamedArgs{"user_id": userID, "host_id": hostID, "project_id": c.ids,
		"assigned": c.assigned, "attached": c.attached, "project_hostid": c.hostIDs,
		"reported_at": c.reportedAt, "avg_ec": c.avg, "avg_time": c.avgTime}
	for i, f := range UsageFields {
		args[f.Last], args[f.Total] = c.last[i], c.total[i]
	}
	return args
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
