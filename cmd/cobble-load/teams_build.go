package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
)

// teamsOnHistory is what the teams' measurement needs of the teams put on
// the history: a large team and a typical one.
type teamsOnHistory struct {
	teams, listed   int
	large, typical  int64 // team ids
	largeMembers    int
	typicalMembers  int
	newLedgerRows   int64 // the new volunteers' ledger rows
	newVolunteers   int
	newConfirmedRow int64
}

// The teams' shape on the history: the listed volunteers are the
// history's first, then new ones, in order (ordinal k from 0). One in
// twenty is in team 1, the large one; the others spread over the rest
// (k·7919 modulo their number, a bijection). One in ten moved from another
// team in the middle of the year; one in four of the others joined in the
// middle of the year; the rest were members before the history began.
// Each new volunteer has one computer on one of the history's projects,
// working on teamWorkDays days of the year, confirmed like the history's.
const (
	teamLargeEvery = 20
	teamSpread     = 7919
)

// teamWorkDays are the days, counted back from today, on which the new
// volunteers' computers work: eight days spread over the year, so that
// a rollup round folds them again (they are marked) in a few seconds
// rather than the whole year.
var teamWorkDays = []int{10, 55, 100, 145, 190, 235, 280, 325}

// teamName is the name of the history's team number idx (from 1).
func teamName(idx int, run string) string { return fmt.Sprintf("Load team %d (%s)", idx, run) }

// addTeams puts cfg.teams.teams teams on the history with
// cfg.teams.members() listed volunteers in them, unless an earlier run did
// (then it finds them); it adds the new volunteers' ledgers, folds the
// days they touch, and folds every team's days.
func addTeams(ctx context.Context, cfg config, db *database, tgt *target, hs *history, out *report,
	progress func(string, ...any)) (*teamsOnHistory, error) {
	th := &teamsOnHistory{teams: cfg.teams.teams, listed: cfg.teams.members()}
	var found int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM teams WHERE name LIKE $1`,
		fmt.Sprintf("Load team %% (%s)", hs.run)).Scan(&found); err != nil {
		return nil, fmt.Errorf("teams: %w", err)
	}
	switch {
	case found == th.teams:
		if err := th.find(ctx, db.pool, hs); err != nil {
			return nil, err
		}
		out.printf("teams: %d teams, %d listed volunteers in them (%d new with %d ledger rows; put there by an "+
			"earlier run, found in the database)\n", th.teams, th.listed, th.newVolunteers, th.newLedgerRows)
		return th, nil
	case found > 0:
		return nil, fmt.Errorf("%w: the history holds %d teams of an earlier run, and --teams asks for %d",
			errUsage, found, th.teams)
	}
	began := time.Now()
	if err := th.addPeople(ctx, db.pool, hs); err != nil {
		return nil, fmt.Errorf("teams: %w", err)
	}
	progress("teams: %d teams and %d listed volunteers written in %v", th.teams, th.listed, since(began))
	people := time.Since(began)
	began = time.Now()
	hold, err := tgt.store.Ledger.HoldRollups(ctx)
	if err != nil {
		return nil, fmt.Errorf("teams: %w", err)
	}
	release := sync.OnceFunc(hold)
	defer release()
	if err := th.addLedgers(ctx, db.pool, hs, progress); err != nil {
		return nil, fmt.Errorf("teams: %w", err)
	}
	written := time.Since(began)
	release()
	// The marked days, folded as a round folds them; then every team's
	// days, from the per-volunteer rollup.
	fold, err := timeRollup(ctx, db, tgt)
	if err != nil {
		return nil, fmt.Errorf("teams: %w", err)
	}
	began = time.Now()
	if err := tgt.store.Ledger.RebuildTeamRollups(ctx, time.Now()); err != nil {
		return nil, fmt.Errorf("teams: %w", err)
	}
	teamFold := time.Since(began)
	if _, err := db.pool.Exec(ctx, `ANALYZE teams, team_members, rollup_team_days, public_profiles, users, hosts`); err != nil {
		return nil, fmt.Errorf("teams: %w", err)
	}
	if err := th.find(ctx, db.pool, hs); err != nil {
		return nil, err
	}
	out.printf("teams: %d teams, %d listed volunteers in them, %d of them new with %d ledger and %d confirmed rows "+
		"(written in %v and %v; their days folded in %v, the teams' year in %v)\n", th.teams, th.listed,
		th.newVolunteers, th.newLedgerRows, th.newConfirmedRow, round(people), round(written), round(fold), round(teamFold))
	return th, nil
}

// find reads the large and a typical team, their sizes, and the new
// volunteers' ledgers.
func (th *teamsOnHistory) find(ctx context.Context, pool *pgxpool.Pool, hs *history) error {
	typical := 2 + (th.teams-1)/2
	err := pool.QueryRow(ctx, `
		SELECT t.id, (SELECT count(*) FROM team_members m WHERE m.team_id = t.id AND m.until_day IS NULL),
			u.id, (SELECT count(*) FROM team_members m WHERE m.team_id = u.id AND m.until_day IS NULL),
			(SELECT count(*) FROM users WHERE email LIKE format('teams-%s-%%', $3::text))
		FROM teams t, teams u WHERE t.name_key = lower($1) AND u.name_key = lower($2)`,
		teamName(1, hs.run), teamName(typical, hs.run), hs.run).
		Scan(&th.large, &th.largeMembers, &th.typical, &th.typicalMembers, &th.newVolunteers)
	if err != nil {
		return fmt.Errorf("teams: the large and a typical team: %w", err)
	}
	err = pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM ledger l WHERE l.host_id = ANY(h.ids)),
			(SELECT count(*) FROM confirmed_ledger c WHERE c.host_id = ANY(h.ids))
		FROM (SELECT array_agg(id) AS ids FROM hosts WHERE opaque_token LIKE format('teams-%s-%%', $1::text)) h`,
		hs.run).Scan(&th.newLedgerRows, &th.newConfirmedRow)
	if err != nil {
		return fmt.Errorf("teams: the new volunteers' ledgers: %w", err)
	}
	return nil
}

// listedSQL numbers the listed volunteers from 0 (column k), the
// history's first, by id, then the new ones ($1 is the run, $2 their
// number).
const listedSQL = `
	SELECT id AS user_id, (row_number() OVER (
		ORDER BY email NOT LIKE format('history-%s-%%', $1::text), id) - 1)::int AS k
	FROM users
	WHERE (email LIKE format('history-%s-%%', $1::text) AND NOT is_admin)
		OR email LIKE format('teams-%s-%%', $1::text)
	ORDER BY k LIMIT $2`

// addPeople writes, in one transaction, the new volunteers with a
// computer each, every listed volunteer's public profile (listed on the
// leaderboards and in the statistics with their computers), the teams,
// and the memberships with their founders.
func (th *teamsOnHistory) addPeople(ctx context.Context, pool *pgxpool.Pool, hs *history) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		newOnes := max(0, th.listed-hs.volunteers)
		statements := []struct {
			sql  string
			args []any
		}{
			// The new volunteers cannot log in: their password is no bcrypt.
			{`INSERT INTO users (email, name, password_hash, time_zone, created_at)
				SELECT format('teams-%s-%s@example.org', $1::text, i), format('Team volunteer %s', i), '-',
					'UTC', now() - interval '400 days'
				FROM generate_series(1, $2::int) AS i ORDER BY i`, []any{hs.run, newOnes}},
			{`INSERT INTO hosts (user_id, opaque_token, host_cpid, domain_name, client_version, platforms,
					os_name, p_model, ncpus, p_fpops, created_at, last_rpc_at, rpc_count)
				SELECT u.id, format('teams-%s-%s', $1::text, u.id), md5('teams/' || u.id),
					format('teams-host-%s', u.id), '8.0.4', '{x86_64-pc-linux-gnu}', 'Linux', 'Team CPU',
					8, 4e9, now() - interval '400 days', now() - interval '1 day', 100
				FROM users u WHERE u.email LIKE format('teams-%s-%%', $1::text) ORDER BY u.id`, []any{hs.run}},
			{`INSERT INTO host_projects (host_id, project_id, user_id, assigned, attached, first_seen_at)
				SELECT h.id, ($2::bigint[])[1 + h.id % 3], h.user_id, true, true, now() - interval '400 days'
				FROM hosts h WHERE h.opaque_token LIKE format('teams-%s-%%', $1::text) ORDER BY h.id`,
				[]any{hs.run, hs.projectIDs()}},
			{`INSERT INTO public_profiles AS p (user_id, handle, public, show_totals, show_projects, show_areas,
					show_chart, list_me, in_stats, stats_cpid, stats_id, stats_since, stats_hosts)
				SELECT l.user_id, CASE WHEN l.k < $3 THEN 'history-' ELSE 'teams-' END || l.user_id,
					true, true, true, true, true, true, true, replace(gen_random_uuid()::text, '-', ''),
					nextval('stats_ids'), now() - interval '300 days', true
				FROM (` + listedSQL + `) l
				ON CONFLICT (user_id) DO UPDATE SET public = true, list_me = true, in_stats = true,
					stats_hosts = true, stats_cpid = coalesce(p.stats_cpid, EXCLUDED.stats_cpid),
					stats_id = coalesce(p.stats_id, EXCLUDED.stats_id),
					stats_since = coalesce(p.stats_since, EXCLUDED.stats_since)`,
				[]any{hs.run, th.listed, hs.volunteers}},
			{`CREATE TEMP TABLE load_members ON COMMIT DROP AS
				SELECT l.user_id, l.k, m.team, m.first_day, m.until_day
				FROM (` + listedSQL + `) l
				CROSS JOIN LATERAL (SELECT CASE WHEN l.k % $3 = 0 THEN 1 ELSE 2 + (l.k::bigint * $4) % ($5 - 1) END AS team,
					CASE WHEN l.k % 10 = 3 THEN 2 + ((l.k::bigint + 1) * $4) % ($5 - 1) END AS before,
					$6::date + 60 + (l.k * 13) % 240 AS moved) s
				CROSS JOIN LATERAL (VALUES
					(s.team, CASE WHEN s.before IS NOT NULL THEN s.moved
						WHEN l.k % 4 = 1 THEN $6::date + (l.k * 37) % 330 ELSE $6::date - 30 END, NULL::date),
					(s.before, $6::date - 30, s.moved)) AS m (team, first_day, until_day)
				WHERE m.team IS NOT NULL`,
				[]any{hs.run, th.listed, teamLargeEvery, teamSpread, th.teams, hs.today.AddDate(0, 0, 1-historyDays)}},
			// Each team's founder is its current member who joined first.
			{`INSERT INTO teams (name, name_key, type, country, url, description, open, created_by, invite_code, created_at)
				SELECT format('Load team %s (%s)', f.team, $1::text), lower(format('Load team %s (%s)', f.team, $1::text)),
					1 + f.team % 7, (ARRAY['Germany', 'France', 'Brazil', 'Japan', 'Kenya'])[1 + f.team % 5],
					format('https://team-%s.example.org/', f.team),
					format('Team %s of the load test: volunteers who compute together.', f.team),
					f.team % 5 <> 0, f.user_id,
					translate(substr(md5(random()::text || f.team) || md5(random()::text), 1, 26), '0189', 'wxyz'),
					now() - interval '400 days'
				FROM (SELECT DISTINCT ON (team) team, user_id FROM load_members WHERE until_day IS NULL
					ORDER BY team, first_day, k) f ORDER BY f.team`, []any{hs.run}},
			{`INSERT INTO team_members (user_id, team_id, first_day, until_day, joined_at, founder)
				SELECT m.user_id, t.id, m.first_day, m.until_day, m.first_day::timestamp AT TIME ZONE 'UTC',
					m.until_day IS NULL AND t.created_by = m.user_id
				FROM load_members m JOIN teams t ON t.name_key = lower(format('Load team %s (%s)', m.team, $1::text))
				ORDER BY t.id, m.user_id, m.first_day`, []any{hs.run}},
		}
		for i, st := range statements {
			if _, err := tx.Exec(ctx, st.sql, st.args...); err != nil {
				return fmt.Errorf("step %d: %w", i+1, err)
			}
		}
		return nil
	})
}

// teamsChunk is how many new volunteers' computers one statement writes
// the ledger of.
const teamsChunk = 5000

// addLedgers writes the new volunteers' ledger and confirmed rows and
// their pairs' lifetime totals, as the history builder writes its own
// (through the ledger's writer, which marks the days), a chunk of
// computers at a time.
func (th *teamsOnHistory) addLedgers(ctx context.Context, pool *pgxpool.Pool, hs *history,
	progress func(string, ...any)) error {
	var first, last *int64
	if err := pool.QueryRow(ctx, `SELECT min(id), max(id) FROM hosts WHERE opaque_token LIKE format('teams-%s-%%', $1::text)`,
		hs.run).Scan(&first, &last); err != nil || first == nil {
		return err
	}
	conn, err := bulkConn(ctx, pool)
	if err != nil {
		return err
	}
	defer conn.Release()
	var days []time.Time
	for _, back := range teamWorkDays {
		days = append(days, hs.today.AddDate(0, 0, -back))
	}
	began := time.Now()
	for from := *first; from <= *last; from += teamsChunk {
		if err := teamChunk(ctx, conn, from, min(from+teamsChunk-1, *last), days, hs); err != nil {
			return err
		}
		progress("teams: the new volunteers' rows written up to computer %d of %d..%d in %v", min(from+teamsChunk-1, *last),
			*first, *last, since(began))
	}
	return nil
}

// teamChunk writes the rows of the new volunteers' computers first–last
// on days, day after day, as addChunk does the history's: 0.2–1.0 of the
// 8 cores' day, granted 0.85–1.05 of the estimate two days later.
func teamChunk(ctx context.Context, conn *pgxpool.Conn, first, last int64, days []time.Time, hs *history) error {
	var totals, sums []string
	for _, f := range accounting.UsageFields {
		totals = append(totals, f.Total+" = s."+f.Column)
		sums = append(sums, "sum("+f.Column+") AS "+f.Column)
	}
	_, err := conn.Exec(ctx, accounting.LedgerFrom(`
		SELECT hp.host_id, hp.user_id, hp.project_id, d.d,
			round(x.cpu_s * `+microPerSecond(4e9)+`), x.cpu_s * 1000000, 0, 0,
			x.cpu_s / 3600, CASE WHEN (hp.host_id + x.n) % 29 = 0 THEN 1 ELSE 0 END,
			0, 0, 0, 0, 0, 0
		FROM host_projects hp
		CROSS JOIN unnest($3::date[]) AS d (d)
		CROSS JOIN LATERAL (SELECT (d.d - $4::date) AS n) AS k
		CROSS JOIN LATERAL (SELECT k.n, (8 * 86400 / 3 * (20 + (hp.host_id * 31 + k.n * 17) % 81) / 100)::bigint
			AS cpu_s) AS x
		WHERE hp.host_id BETWEEN $1 AND $2
		ORDER BY d.d, hp.host_id, hp.project_id`), first, last, days, hs.today.AddDate(0, 0, 1-historyDays))
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	_, err = conn.Exec(ctx, `
		INSERT INTO confirmed_ledger (host_id, project_id, day, user_id, granted_micro)
		SELECT host_id, project_id, day, user_id, round(`+accounting.CreditSQL("")+` *
			(0.85 + 0.2 * ((host_id * 13 + (day - $3::date)) % 11) / 10))
		FROM ledger WHERE host_id BETWEEN $1 AND $2 AND day = ANY($4::date[]) AND day <= $3::date - 2
		ORDER BY day, host_id, project_id`, first, last, hs.today, days)
	if err != nil {
		return fmt.Errorf("confirmed ledger: %w", err)
	}
	_, err = conn.Exec(ctx, `
		UPDATE host_projects hp SET `+strings.Join(totals, ", ")+`
		FROM (SELECT host_id, project_id, `+strings.Join(sums, ", ")+` FROM ledger
		      WHERE host_id BETWEEN $1 AND $2 AND day = ANY($3::date[]) GROUP BY host_id, project_id) s
		WHERE hp.host_id = s.host_id AND hp.project_id = s.project_id`, first, last, days)
	if err != nil {
		return fmt.Errorf("totals: %w", err)
	}
	return nil
}
