package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/boinc"
)

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
	// The server's periodic rollup would fold the days as they are
	// written, over and over, and hold the writers up on the days it
	// took (at 50 M rows it doubled the building); they are folded once,
	// at the end.
	hold, err := store.Ledger.HoldRollups(ctx)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	release := sync.OnceFunc(hold)
	defer release()
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
	release()
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
