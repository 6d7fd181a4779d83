package accounting

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The read stage of an RPC (SyncStore.Sync): authenticate, lock the host and
// read what planning it needs. In the steady state that is one round trip
// (readKnownHost); any other RPC authenticates, identifies its host and
// reads in sync_read_join.go, then reads the host's project rows here
// (readHostState).

// rpcRead is what the read stage found: the volunteer, their host (its row
// locked until the write stage ends the transaction), and the RPC's state.
type rpcRead struct {
	user      User
	host      Host
	feedToken string // read with the host in the steady state; "" otherwise
	state     rpcState
}

// rpcState is what an RPC reads with the host row locked.
type rpcState struct {
	pairs   map[int64]*hostProject  // the host's projects
	choices map[int64]ProjectChoice // the volunteer's always/never
	// hostChoices are the volunteer's always/never for this host.
	hostChoices map[int64]ProjectChoice
	others      map[int64]projectCredit // the volunteer's credit on other hosts
	prefs       rpcPrefs                // the volunteer's keywords and compute preferences
}

// readKnownHost is the read stage of a steady-state RPC: lockKnownHost's
// round trip, then the volunteer's preferences from memory while their
// version is the one read with the host (a third round trip reads them
// after a change). It returns pgx.ErrNoRows when the tokens do not name a
// host of the token's volunteer. The caller ends the transaction, also
// after an error.
func (s *SyncStore) readKnownHost(ctx context.Context, conn *pgxpool.Conn, req SyncRequest) (rpcRead, error) {
	k, err := s.lockKnownHost(ctx, conn, req.Authenticator, req.HostToken, req.Now)
	if err != nil {
		return rpcRead{}, err
	}
	prefs, err := s.volunteerPrefs(ctx, conn, k.user.ID, k.prefsVersion)
	if err != nil {
		return rpcRead{}, err
	}
	st := k.state
	st.choices, st.prefs = prefs.choices, prefs.prefs
	return rpcRead{user: k.user, host: k.host, feedToken: k.feedToken, state: st}, nil
}

// lockedHost is what the first round trip of a steady-state RPC reads.
type lockedHost struct {
	user         User
	host         Host
	feedToken    string
	prefsVersion int64 // users.prefs_version
	state        rpcState
}

// lockKnownHost begins a transaction on conn and, in the same round trip,
// checks the AM token, locks the host that the host token names and reads
// the RPC's state but the volunteer's preferences. The volunteer's credit
// on their other hosts comes from memory (sync_credit_cache.go), or is
// read in that round trip when what memory has is too old. It returns
// pgx.ErrNoRows when the tokens do not name a host of the token's
// volunteer. The caller ends the transaction, also after an error.
func (s *SyncStore) lockKnownHost(ctx context.Context, conn *pgxpool.Conn, authenticator, hostToken string, now time.Time) (lockedHost, error) {
	owner, kept, fresh := s.credits.fresh(hostToken)
	var seq uint64
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(`SELECT set_config('synchronous_commit', 'off', true),
		set_config('plan_cache_mode', 'force_generic_plan', true)`)
	b.Queue(`
		SELECT u.id, u.email, u.name, u.is_admin, u.time_zone, u.language, u.created_at, u.feed_token,
			h.id, h.user_id, h.opaque_token, h.created_at, h.last_rpc_at,
			h.budget_at, h.budget_cpu_ec_micro, h.budget_cpu_time_micro,
			h.budget_gpu_ec_micro, h.budget_gpu_time_micro, h.budget_jobs, u.prefs_version,
			h.location_id, h.pause_mode, h.pause_until, h.resume_pending, h.resume_notice, `+hostChoicesColumns+`
		FROM am_tokens t JOIN users u ON u.id = t.user_id
		JOIN hosts h ON h.user_id = t.user_id AND h.opaque_token = @host_token`+hostChoicesJoin+`
		WHERE t.token_hash = @token_hash AND u.disabled_at IS NULL
		FOR UPDATE OF h`, pgx.NamedArgs{"token_hash": tokenHash(authenticator), "host_token": hostToken})
	queueKnownHostState(b, hostToken)
	if !fresh {
		seq = s.credits.beginRead()
		queueVolunteerCredit(b, hostToken)
	}
	s.rewrites.positional(b)
	br := conn.SendBatch(ctx, b)
	k, err := readLockedHost(br)
	var rows map[int64][]creditPart
	if err == nil && !fresh {
		rows, err = readVolunteerCredit(br.Query())
	}
	if err = cmp.Or(br.Close(), err); err != nil {
		return k, err
	}
	switch {
	case !fresh:
		kept = s.credits.stored(k.user.ID, hostToken, seq, rows)
	case owner != k.user.ID: // the host changed hands since memory learnt whose it was
		seq = s.credits.beginRead()
		if rows, err = volunteerCreditByID(ctx, conn, k.user.ID); err != nil {
			return k, err
		}
		kept = s.credits.stored(k.user.ID, hostToken, seq, rows)
	}
	k.state.others = kept.others(k.host.ID, now)
	return k, nil
}

// readLockedHost reads the results of lockKnownHost's batch up to the
// host's project rows.
func readLockedHost(br pgx.BatchResults) (lockedHost, error) {
	var k lockedHost
	_, err := br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	if err != nil {
		return k, err
	}
	u, h := &k.user, &k.host
	var bud budgetRow
	dest := append([]any{&u.ID, &u.Email, &u.Name, &u.IsAdmin, &u.TimeZone, &u.Language, &u.CreatedAt, &k.feedToken,
		&h.ID, &h.UserID, &h.Token, &h.CreatedAt, &h.LastRPCAt}, bud.dest()...)
	var hc hostChoicesRow
	if err = br.QueryRow().Scan(append(dest, &k.prefsVersion, &h.LocationID,
		&h.pause.mode, &h.pause.until, &h.pause.resumePending, &h.pause.resumeNotice, &hc.projects, &hc.choices)...); err != nil {
		return k, err
	}
	h.budget = bud.budget()
	k.state, err = readHostProjects(br)
	k.state.hostChoices = hc.parse()
	return k, err
}

// hostChoicesColumns are the volunteer's choices for host h: the
// projects and the choices, two arrays in the same order (NULL when none).
// They come from hostChoicesJoin, which reads the host's rows once: two
// subqueries, one per array, cost the steady-state RPC a second index scan.
const hostChoicesColumns = `hc.projects, hc.choices`

// hostChoicesJoin joins hostChoicesColumns to a query on hosts h: one
// aggregate row, even when the host has no choices. The two aggregates
// take the same rows in the same order, so the arrays pair up without an
// ORDER BY, which would cost every RPC a sort per array (parse keys them
// by project; their order does not matter).
const hostChoicesJoin = `
	CROSS JOIN LATERAL (SELECT array_agg(project_id) AS projects, array_agg(choice) AS choices
		FROM host_project_choices c WHERE c.user_id = h.user_id AND c.host_id = h.id) AS hc`

// hostChoicesRow receives hostChoicesColumns.
type hostChoicesRow struct {
	projects []int64
	choices  []ProjectChoice
}

// parse returns the choices by project ID; nil when there are none.
func (r hostChoicesRow) parse() map[int64]ProjectChoice {
	if len(r.projects) == 0 || len(r.projects) != len(r.choices) {
		return nil
	}
	out := make(map[int64]ProjectChoice, len(r.projects))
	for i, id := range r.projects {
		out[id] = r.choices[i]
	}
	return out
}

// The RPC's reads name the volunteer and the host by their ids once the
// host is identified (loadRPCState), or by the AM token and the host token
// in the steady state (lockKnownHost), where they go in the same round trip
// as the query that checks those tokens, locks the host and reads the
// version of the volunteer's preferences.

// queueKnownHostState queues the read of the host's project rows, for the
// host that the host token names, behind the query that checks both
// tokens. It finds the host by its token alone (a unique key): when the
// tokens do not match, that query returns no row and the RPC discards
// what this read.
func queueKnownHostState(b *pgx.Batch, hostToken string) {
	b.Queue(`
		SELECT `+hostProjectColumns+`
		FROM hosts h JOIN host_projects hp ON hp.host_id = h.id
		WHERE h.opaque_token = @host_token`, pgx.NamedArgs{"host_token": hostToken})
}

// readHostState reads the host's project rows and the volunteer's credit
// on their other hosts, as the end of queueRPCState queues them.
func readHostState(br pgx.BatchResults) (rpcState, error) {
	st, err := readHostProjects(br)
	if err != nil {
		return st, err
	}
	rows, err := br.Query()
	if err != nil {
		return st, err
	}
	var id, total int64
	var avg float64
	st.others = map[int64]projectCredit{}
	_, err = pgx.ForEachRow(rows, []any{&id, &total, &avg}, func() error {
		st.others[id] = projectCredit{Total: fromMicro(total), Avg: avg}
		return nil
	})
	return st, err
}

// readHostProjects reads the host's project rows.
func readHostProjects(br pgx.BatchResults) (rpcState, error) {
	st := rpcState{pairs: map[int64]*hostProject{}}
	rows, err := br.Query()
	if err != nil {
		return st, err
	}
	pairs, err := pgx.CollectRows(rows, scanHostProject)
	for _, p := range pairs {
		st.pairs[p.ProjectID] = p
	}
	return st, err
}

// hostProjectColumns are the columns of host_projects that an RPC reads:
// the last report's and the lifetime totals' in the order of UsageFields.
var hostProjectColumns = `project_id, assigned, attached, project_hostid,
	` + UsageList("%s", LastColumn) + `, reported_at,
	` + UsageList("%s", TotalColumn) + `, avg_ec, avg_time`

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

// creditColumns are a volunteer's lifetime credit in micro-Cobblestones and
// recent average as of @now, summed over a group of host_projects rows.
var creditColumns = `sum(` + CreditSQL("total_") + `),
	coalesce(sum(avg_ec * exp(-greatest(extract(epoch FROM @now::timestamptz - avg_time), 0)
		* ln(2) / @half_life::float8)) FILTER (WHERE avg_time IS NOT NULL), 0)`
