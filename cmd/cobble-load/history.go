package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/boinc"
)

// historyConfig is what --history and the flags beside it ask for: a year
// of ledger built directly in SQL, and what to measure on it.
type historyConfig struct {
	rows         int64 // ledger rows wanted; 0 builds no history
	pages        bool  // measure the pages on it
	pageRequests int   // requests per page
	exportHosts  int   // hosts in the export reconciled on it; 0 skips that
	rounds       int   // measurements of it, each beside an empty database
	cobbleBin    string
}

// The history's shape: each of its hosts works for historyProjects
// projects every day of historyDays; a volunteer owns hostsPerVolunteer.
// 50M asks for 50,000 hosts of 5,000 volunteers (54.75 M ledger rows).
const (
	historyProjects   = 3
	historyDays       = 365
	hostsPerVolunteer = 10
	rowsPerHostAsked  = 1000 // --history N builds N/1000 hosts
	maxHistoryRows    = 500_000_000
	historyChunk      = 500 // hosts per INSERT of their ledger rows
)

// register adds the history's flags to fs.
func (h *historyConfig) register(fs *flag.FlagSet) {
	fs.Func("history", "build a year of ledger of about `N` rows first (such as 2M or 50M: N/1000 hosts of "+
		"N/10000 volunteers × 3 projects × 365 days, and confirmed rows), in SQL, and compare the RPC load "+
		"before and after it", func(s string) error {
		n, err := parseCount(s)
		h.rows = n
		return err
	})
	fs.BoolVar(&h.pages, "pages", false, "with --history: measure the pages and downloads on the history")
	fs.IntVar(&h.pageRequests, "page-requests", 50, "with --pages: requests per page (after one not counted)")
	fs.IntVar(&h.exportHosts, "export-hosts", 1_000_000, "with --history: hosts in the credit export "+
		"reconciled on the history (0 skips it)")
	fs.IntVar(&h.rounds, "rounds", 1, "with --history: measure it this many times, each round the RPC load "+
		"on an empty database and then on the history, the pages, and the export")
	fs.StringVar(&h.cobbleBin, "cobble", "", "with --history: the cobble binary that reconciles the export "+
		"(default: built with 'go build' into a temporary directory)")
}

// validate adds the history flags' problems to check.
func (h *historyConfig) validate(check func(bool, string)) {
	check(h.rows >= 0 && h.rows <= maxHistoryRows, fmt.Sprintf("--history must be at most %d", maxHistoryRows))
	check(h.rows == 0 || h.rows >= rowsPerHostAsked*hostsPerVolunteer, "--history must be at least 10k")
	check(h.rows > 0 || !h.pages, "--pages needs --history")
	check(h.pageRequests >= 1 && h.pageRequests <= 10_000, "--page-requests must be between 1 and 10000")
	check(h.rounds >= 1 && h.rounds <= 10, "--rounds must be between 1 and 10")
	check(h.exportHosts >= 0 && h.exportHosts <= 10_000_000, "--export-hosts must be between 0 and 10000000")
}

// parseCount reads a count such as 2000000, 500k, 2M or 1.5G.
func parseCount(s string) (int64, error) {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult = 1e3
	case strings.HasSuffix(s, "M"):
		mult = 1e6
	case strings.HasSuffix(s, "G"):
		mult = 1e9
	}
	if mult != 1 {
		s = s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f*mult > maxHistoryRows {
		return 0, fmt.Errorf("not a count such as 2M or 50M")
	}
	return int64(f * mult), nil
}

// history is what the builder made: the ids the measurements need.
type history struct {
	hosts, volunteers int
	ledgerRows        int64
	confirmedRows     int64
	projects          [historyProjects]accounting.Project
	run               string // the run that built it: its emails and names carry it
	volunteerEmail    string // the measured volunteer: the first, with 10 hosts
	volunteerID       int64
	hostID            int64 // the measured volunteer's first host
	accountUserID     int64 // Cobble's account on the history projects
	firstHostID       int64
	today             time.Time
}

// historyPassword is the password of the measured volunteer and the admin.
const historyPassword = "history-password"

// historyAccount is the project user id of Cobble's shared account on the
// history projects (the export's records of Cobble's hosts carry it).
const historyAccount = 777_000_001

// buildHistory writes the history: projects through the store, everything
// else with INSERT ... SELECT over generate_series, workers chunks at once.
func buildHistory(ctx context.Context, pool *pgxpool.Pool, store *accounting.Store, cfg config, run string,
	progress func(string, ...any)) (*history, error) {
	hs := &history{hosts: int(cfg.history.rows / rowsPerHostAsked)}
	hs.volunteers = (hs.hosts + hostsPerVolunteer - 1) / hostsPerVolunteer
	hs.today = accounting.CivilDay(time.Now().UTC())
	for i := range hs.projects {
		p, err := store.Catalog.AddProject(ctx, accounting.Project{
			URL:  fmt.Sprintf("http://127.0.0.1:9/history-%s-p%d/", run, i+1),
			Name: fmt.Sprintf("History project %d (%s)", i+1, run), Authenticator: "history-shared-account-key",
			Keywords: []int{historyAreas[i%len(historyAreas)]}, // the leaderboards' science areas
			StatsURL: fmt.Sprintf("http://127.0.0.1:9/history-%s-p%d/stats/", run, i+1)})
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		hs.projects[i] = p
	}
	if err := hs.addPeople(ctx, pool, run); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	progress("history: %d volunteers, %d hosts, %d (host, project) pairs written", hs.volunteers, hs.hosts,
		hs.hosts*historyProjects)
	// The ledgers' month partitions of the year, as Cobble creates them
	// ahead; rows of a month without one would land in the default.
	if _, err := pool.Exec(ctx, `SELECT ledger_partition_add(t, m::date)
		FROM unnest(ARRAY['ledger', 'confirmed_ledger']) AS t,
			generate_series(date_trunc('month', $1::date), $2::date, interval '1 month') AS m`,
		hs.today.AddDate(0, 0, -historyDays), hs.today); err != nil {
		return nil, fmt.Errorf("history: partitions: %w", err)
	}
	indexes, err := dropLedgerIndexes(ctx, pool)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	err = hs.addRows(ctx, pool, progress)
	began := time.Now()
	if ierr := createIndexes(ctx, pool, indexes); ierr != nil {
		return nil, fmt.Errorf("history: creating the ledgers' indexes again: %w", errors.Join(err, ierr))
	}
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	progress("history: the ledgers' %d secondary indexes created again in %v", len(indexes), since(began))
	if err := hs.addRuns(ctx, pool); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	// The runs' host ratios, as a run stores them when it commits.
	rec := reconcile.New(store, pool, reconcile.Options{})
	defer rec.Close()
	for _, p := range hs.projects {
		if err := rec.RefreshRatios(ctx, p); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
	}
	// The credit fairness measure, as the reconciliation loop computes it.
	began = time.Now()
	if err := rec.Fairness.Measure(ctx); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	progress("history: the credit fairness measure computed in %v", since(began))
	// The rollups of every day, as the periodic rollup keeps them.
	if err := store.Ledger.RebuildRollups(ctx, time.Now()); err != nil {
		return nil, fmt.Errorf("history: rollups: %w", err)
	}
	return hs, nil
}

// addPeople writes the volunteers (the first can log in), an admin, the
// hosts and their (host, project) pairs, each host with a project host id.
func (hs *history) addPeople(ctx context.Context, pool *pgxpool.Pool, run string) error {
	hs.run, hs.volunteerEmail = run, fmt.Sprintf("history-%s-1@example.org", run)
	hash, err := bcrypt.GenerateFromPassword([]byte(boinc.PasswordHash(historyPassword, hs.volunteerEmail)),
		bcrypt.MinCost)
	if err != nil {
		return err
	}
	_, err = pool.Exec(ctx, `
		INSERT INTO users (email, name, password_hash, time_zone, created_at)
		SELECT format('history-%s-%s@example.org', $1::text, i), format('History volunteer %s', i), $2,
			'UTC', now() - interval '400 days'
		FROM generate_series(1, $3::int) AS i ORDER BY i`, run, string(hash), hs.volunteers)
	if err != nil {
		return err
	}
	if err := pool.QueryRow(ctx, `SELECT id FROM users WHERE email = $1`, hs.volunteerEmail).
		Scan(&hs.volunteerID); err != nil {
		return err
	}
	_, err = pool.Exec(ctx, `
		INSERT INTO hosts (user_id, opaque_token, host_cpid, domain_name, client_version, platforms,
			os_name, p_model, ncpus, p_fpops, created_at, last_rpc_at, rpc_count)
		SELECT u.id, format('history-%s-%s-%s', $1::text, u.id, k), md5(u.id || '/' || k),
			format('history-host-%s-%s', u.id, k), '8.0.4', '{x86_64-pc-linux-gnu}', 'Linux', 'History CPU',
			8, 4e9, now() - interval '400 days', now() - (k || ' minutes')::interval, 365 * 24
		FROM users u CROSS JOIN generate_series(1, $2::int) AS k
		WHERE u.email LIKE format('history-%s-%%', $1::text)
		ORDER BY u.id, k
		LIMIT $3`, run, hostsPerVolunteer, hs.hosts)
	if err != nil {
		return err
	}
	if err := pool.QueryRow(ctx, `SELECT min(id) FROM hosts WHERE user_id = $1`, hs.volunteerID).
		Scan(&hs.hostID); err != nil {
		return err
	}
	hs.firstHostID = hs.hostID
	ids := hs.projectIDs()
	_, err = pool.Exec(ctx, `
		INSERT INTO host_projects (host_id, project_id, user_id, assigned, attached, project_hostid, first_seen_at)
		SELECT h.id, p, h.user_id, true, true, 20 * (h.id - $2::bigint) + 7, now() - interval '400 days'
		FROM hosts h CROSS JOIN unnest($1::bigint[]) AS p
		WHERE h.id >= $2 AND h.opaque_token LIKE format('history-%s-%%', $3::text)
		ORDER BY h.id, p`, ids, hs.firstHostID, run)
	if err != nil {
		return err
	}
	hs.accountUserID = historyAccount
	_, err = pool.Exec(ctx, `UPDATE projects SET account_userid = $2 WHERE id = ANY($1)`, ids, hs.accountUserID)
	return err
}

func (hs *history) projectIDs() []int64 {
	ids := make([]int64, len(hs.projects))
	for i, p := range hs.projects {
		ids[i] = p.ID
	}
	return ids
}

// historyWorkers is how many chunks are written at once.
const historyWorkers = 2

// bulkConn returns a connection that skips the foreign keys' triggers
// (the builder writes rows whose references it has just written): in a
// throwaway cluster the tool connects as a superuser, who may.
func bulkConn(ctx context.Context, pool *pgxpool.Pool) (*pgxpool.Conn, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, `SET session_replication_role = replica`); err != nil {
		conn.Release()
		return nil, fmt.Errorf("skipping foreign-key checks while building (needs a superuser): %w", err)
	}
	return conn, nil
}

// dropLedgerIndexes drops the ledgers' secondary indexes, so that the
// bulk writes maintain only their primary keys, and returns the
// statements that create them again.
func dropLedgerIndexes(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	rows, _ := pool.Query(ctx, `
		SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
		FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
		WHERE t.relname IN ('ledger', 'confirmed_ledger') AND t.relnamespace = 'public'::regnamespace
		  AND NOT i.indisprimary AND NOT i.indisunique`)
	var names, defs []string
	var name, def string
	_, err := pgx.ForEachRow(rows, []any{&name, &def}, func() error {
		// A partitioned table's index is defined ON ONLY the parent; made
		// again it must reach every partition.
		names, defs = append(names, name), append(defs, strings.Replace(def, " ON ONLY ", " ON ", 1))
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if _, err := pool.Exec(ctx, `DROP INDEX `+n); err != nil {
			return nil, err
		}
	}
	return defs, nil
}

// createIndexes runs the statements dropLedgerIndexes returned, two at
// a time.
func createIndexes(ctx context.Context, pool *pgxpool.Pool, defs []string) error {
	var wg sync.WaitGroup
	errs := make([]error, len(defs))
	sem := make(chan struct{}, historyWorkers)
	for i, def := range defs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			conn, err := pool.Acquire(ctx)
			if err != nil {
				errs[i] = err
				return
			}
			defer conn.Release()
			if _, err = conn.Exec(ctx, `SET maintenance_work_mem = '256MB'`); err == nil {
				_, err = conn.Exec(ctx, def)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// addRows writes the ledger and confirmed rows and the pairs' lifetime
// totals, historyChunk hosts at a time, historyWorkers at once.
func (hs *history) addRows(ctx context.Context, pool *pgxpool.Pool, progress func(string, ...any)) error {
	chunks := make(chan int64)
	errs := make(chan error, historyWorkers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done, began := 0, time.Now()
	for range historyWorkers {
		wg.Go(func() {
			conn, err := bulkConn(ctx, pool)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Release()
			for first := range chunks {
				if err := hs.addChunk(ctx, conn, first, first+historyChunk-1); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				done += historyChunk
				if done%(historyChunk*20) == 0 {
					progress("history: %d of %d hosts' rows written in %v", min(done, hs.hosts), hs.hosts, since(began))
				}
				mu.Unlock()
			}
		})
	}
	var err error
send:
	for first := hs.firstHostID; first < hs.firstHostID+int64(hs.hosts); first += historyChunk {
		select {
		case chunks <- first:
		case err = <-errs:
			break send
		case <-ctx.Done():
			err = ctx.Err()
			break send
		}
	}
	close(chunks)
	wg.Wait()
	if err == nil && len(errs) > 0 {
		err = <-errs
	}
	if err != nil {
		return err
	}
	return pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM ledger WHERE host_id >= $1),
		       (SELECT count(*) FROM confirmed_ledger WHERE host_id >= $1)`, hs.firstHostID).
		Scan(&hs.ledgerRows, &hs.confirmedRows)
}

// addChunk writes the rows of hosts first–last, day after day, as Cobble
// writes them: a day's rows lie together, not a host's. A host earns 0.2–1.0 of
// its 8 cores' day on each project; one host in three also has a GPU. The
// projects grant 0.85–1.05 of the estimate two days later, except for one
// host in 97 (a third: flagged low) and one in 89 (three times: high).
func (hs *history) addChunk(ctx context.Context, pool *pgxpool.Conn, first, last int64) error {
	var totals, sums []string
	for _, f := range accounting.UsageFields {
		totals = append(totals, f.Total+" = s."+f.Column)
		sums = append(sums, "sum("+f.Column+") AS "+f.Column)
	}
	from := hs.today.AddDate(0, 0, -(historyDays - 1))
	// Through the ledger's one writer, which also marks the days; the
	// rollups are rebuilt after the history is written.
	_, err := pool.Exec(ctx, accounting.LedgerFrom(`
		SELECT hp.host_id, hp.user_id, hp.project_id, d::date,
			round(x.cpu_s * `+microPerSecond(4e9)+`), x.cpu_s * 1000000,
			CASE WHEN hp.host_id % 3 = 0 THEN round(x.cpu_s * `+microPerSecond(2e12)+`) ELSE 0 END,
			CASE WHEN hp.host_id % 3 = 0 THEN x.cpu_s * 250000 ELSE 0 END,
			x.cpu_s / 3600, CASE WHEN (hp.host_id + x.n) % 29 = 0 THEN 1 ELSE 0 END,
			0, 0, 0, 0, 0, 0
		FROM host_projects hp
		CROSS JOIN generate_series($3::date, $4::date, interval '1 day') AS d
		CROSS JOIN LATERAL (SELECT (d::date - $3::date) AS n) AS k
		CROSS JOIN LATERAL (SELECT k.n, (8 * 86400 / 3 * (20 + (hp.host_id * 31 + k.n * 17 + hp.project_id * 7) % 81)
			/ 100)::bigint AS cpu_s) AS x
		WHERE hp.host_id BETWEEN $1 AND $2 AND hp.project_id = ANY($5)
		ORDER BY d, hp.host_id, hp.project_id`), first, last, from, hs.today, hs.projectIDs())
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	_, err = pool.Exec(ctx, `
		INSERT INTO confirmed_ledger (host_id, project_id, day, user_id, granted_micro)
		SELECT host_id, project_id, day, user_id, round(`+accounting.CreditSQL("")+` *
			CASE WHEN host_id % 97 = 0 THEN 0.3 WHEN host_id % 89 = 0 THEN 3
			     ELSE 0.85 + 0.2 * ((host_id * 13 + (day - $3::date)) % 11) / 10 END)
		FROM ledger WHERE host_id BETWEEN $1 AND $2 AND day <= $3::date - 2 AND project_id = ANY($4)
		ORDER BY day, host_id, project_id`, first, last, hs.today, hs.projectIDs())
	if err != nil {
		return fmt.Errorf("confirmed ledger: %w", err)
	}
	_, err = pool.Exec(ctx, `
		UPDATE host_projects hp SET `+strings.Join(totals, ", ")+`
		FROM (SELECT host_id, project_id, `+strings.Join(sums, ", ")+` FROM ledger
		      WHERE host_id BETWEEN $1 AND $2 AND project_id = ANY($3) GROUP BY host_id, project_id) s
		WHERE hp.host_id = s.host_id AND hp.project_id = s.project_id`, first, last, hs.projectIDs())
	if err != nil {
		return fmt.Errorf("totals: %w", err)
	}
	return nil
}

// microPerSecond is, as SQL, the estimated credit in millionths that a
// second of a device of flops earns.
func microPerSecond(flops float64) string {
	return strconv.FormatFloat(flops*accounting.CobblestoneScale*1e6, 'f', 6, 64)
}

// addRuns records a successful reconciliation run of each history project
// as of yesterday, as if its export had just been read, with every history
// host matched in it.
func (hs *history) addRuns(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, `
		INSERT INTO reconcile_runs (project_id, started_at, finished_at, status, source, export_time,
			hosts_scanned, hosts_matched)
		SELECT p, now() - interval '1 hour', now() - interval '50 minutes', 'ok', 'history builder',
			$2::timestamptz, $3::bigint * 20, $3::bigint
		FROM unnest($1::bigint[]) AS p`, hs.projectIDs(), hs.today.Add(-time.Hour), hs.hosts)
	if err != nil {
		return err
	}
	// Every history host is matched and verified in the run, with a
	// baseline export when the history begins (kept under the same run).
	_, err = pool.Exec(ctx, `
		INSERT INTO export_credit (host_id, project_id, user_id, export_time, run_id, project_hostid, total_credit,
			expavg_credit, expavg_time)
		SELECT hp.host_id, hp.project_id, hp.user_id, e.at, r.id, hp.project_hostid, e.total, 0, 0
		FROM host_projects hp JOIN reconcile_runs r ON r.project_id = hp.project_id AND r.source = 'history builder'
		CROSS JOIN LATERAL (VALUES ($2::timestamptz, 0::float8), (r.export_time, 1e6::float8)) AS e (at, total)
		WHERE hp.project_id = ANY($1) AND hp.project_hostid > 0`,
		hs.projectIDs(), hs.today.AddDate(0, 0, -historyDays).Add(-time.Hour))
	return err
}

// allowance is the time the history's building and measuring may take
// beyond the load's phases: generous, for a shared 2-core machine.
func (h historyConfig) allowance() time.Duration {
	if h.rows == 0 {
		return 0
	}
	return 30*time.Minute + time.Duration(h.rows/5_000)*time.Second + time.Duration(h.rounds)*roundAllowance
}

// roundAllowance bounds a round's pages and export reconciliation.
const roundAllowance = 15 * time.Minute

// findHistory returns the history an earlier run built in the database
// (kept with --cluster), or nil if it holds none. Its size must be the
// one asked for.
func findHistory(ctx context.Context, pool *pgxpool.Pool, cfg config) (*history, error) {
	var run string
	err := pool.QueryRow(ctx, `
		SELECT substring(name FROM '^History project 1 \((.*)\)$') FROM projects
		WHERE name LIKE 'History project 1 (%)' ORDER BY id LIMIT 1`).Scan(&run)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history: looking for an earlier one: %w", err)
	}
	hs := &history{today: accounting.CivilDay(time.Now().UTC()), accountUserID: historyAccount,
		run: run, volunteerEmail: fmt.Sprintf("history-%s-1@example.org", run)}
	for i := range hs.projects {
		p := &hs.projects[i]
		if err := pool.QueryRow(ctx, `SELECT id, url FROM projects WHERE name = $1`,
			fmt.Sprintf("History project %d (%s)", i+1, run)).Scan(&p.ID, &p.URL); err != nil {
			return nil, fmt.Errorf("history %s: project %d: %w", run, i+1, err)
		}
	}
	err = pool.QueryRow(ctx, `
		SELECT u.id, (SELECT min(id) FROM hosts WHERE user_id = u.id),
			(SELECT count(*) FROM users WHERE email LIKE format('history-%s-%%', $2::text) AND NOT is_admin),
			(SELECT min(id) FROM hosts WHERE opaque_token LIKE format('history-%s-%%', $2::text)),
			(SELECT count(*) FROM hosts WHERE opaque_token LIKE format('history-%s-%%', $2::text))
		FROM users u WHERE u.email = $1`, hs.volunteerEmail, run).
		Scan(&hs.volunteerID, &hs.hostID, &hs.volunteers, &hs.firstHostID, &hs.hosts)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", run, err)
	}
	if want := int(cfg.history.rows / rowsPerHostAsked); hs.hosts != want {
		return nil, fmt.Errorf("%w: the database holds a history of %d hosts (run %s), and --history asks for %d",
			errUsage, hs.hosts, run, want)
	}
	last := hs.firstHostID + int64(hs.hosts) - 1
	err = pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM ledger WHERE host_id BETWEEN $1 AND $2),
		       (SELECT count(*) FROM confirmed_ledger WHERE host_id BETWEEN $1 AND $2)`, hs.firstHostID, last).
		Scan(&hs.ledgerRows, &hs.confirmedRows)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", run, err)
	}
	return hs, nil
}
