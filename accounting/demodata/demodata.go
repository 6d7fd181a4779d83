// Package demodata writes a plausible history for a volunteer straight into
// Cobble's tables: computers, their projects, daily ledger rows, a counter
// reset, a clamped claim and confirmed credit. `cobble dev` uses it so that
// a newcomer sees living pages; benchmarks use it to build years of history.
//
// It writes SQL directly, bypassing the RPC path: it is for development and
// measurement only, never for a production database.
package demodata

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
)

// Computer describes one computer to create.
type Computer struct {
	Name          string
	Platform      string
	OSName        string
	PModel        string
	ClientVersion string
	NCPUs         int
	PFPOps        float64 // per core
	GPUs          int     // NVIDIA GPUs
	GPUPeakFLOPS  float64 // per GPU
}

// Spec is the history to write for one volunteer.
type Spec struct {
	UserID    int64
	Computers []Computer
	// Projects are catalog ids; every computer works for all of them.
	Projects []int64
	Days     int       // days of history, ending on End
	End      time.Time // the last day (midnight UTC)
	// ConfirmedLag is how many of the latest days have no confirmed credit
	// yet (reconciliation lags behind).
	ConfirmedLag int
	// Events adds a counter reset and a clamped claim on the first computer.
	Events bool
}

// Seed writes the history in one transaction, unless the volunteer has
// computers already: seeding twice changes nothing. It reports whether it
// wrote anything.
func Seed(ctx context.Context, pool *pgxpool.Pool, s Spec) (bool, error) {
	wrote := false
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM hosts WHERE user_id = $1`, s.UserID).Scan(&n); err != nil || n > 0 {
			return err
		}
		var hosts []int64
		for i, c := range s.Computers {
			id, err := addComputer(ctx, tx, s, c, i)
			if err != nil {
				return err
			}
			hosts = append(hosts, id)
		}
		if err := addLedger(ctx, tx, s); err != nil {
			return err
		}
		if s.Events && len(hosts) > 0 && len(s.Projects) > 0 {
			if err := addEvents(ctx, tx, s, hosts[0], s.Projects[0]); err != nil {
				return err
			}
		}
		if err := addRuns(ctx, tx, s); err != nil {
			return err
		}
		if err := addExports(ctx, tx, s); err != nil {
			return err
		}
		wrote = true
		return addTotals(ctx, tx, s.UserID)
	})
	return wrote, err
}

func addComputer(ctx context.Context, tx pgx.Tx, s Spec, c Computer, i int) (int64, error) {
	coprocs := []map[string]any{}
	if c.GPUs > 0 {
		coprocs = append(coprocs, map[string]any{"type": "NVIDIA", "count": c.GPUs, "peak_flops": c.GPUPeakFLOPS})
	}
	cj, _ := json.Marshal(coprocs)
	var id int64
	err := tx.QueryRow(ctx, `
		INSERT INTO hosts (user_id, opaque_token, host_cpid, domain_name, client_version, platforms, os_name,
			p_model, ncpus, p_fpops, coprocs, created_at, last_rpc_at, rpc_count)
		VALUES ($1, $2, $3, $4, $5, ARRAY[$6::text], $7, $8, $9, $10, $11, $12, $13, 100) RETURNING id`,
		s.UserID, token(), token(), c.Name, c.ClientVersion, c.Platform, c.OSName, c.PModel, c.NCPUs, c.PFPOps,
		cj, s.End.AddDate(0, 0, -s.Days), s.End.Add(time.Duration(9+i)*time.Hour)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("demo computer: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO am_tokens (token_hash, user_id, host_id) VALUES (decode($1, 'hex'), $2, $3)`,
		token()+token(), s.UserID, id); err != nil {
		return 0, err
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO host_projects (host_id, project_id, user_id, assigned, attached, project_hostid, first_seen_at)
		SELECT $1::bigint, p, $2, true, true, 1000 * $1::bigint + p, $3 FROM unnest($4::bigint[]) AS p`,
		id, s.UserID, s.End.AddDate(0, 0, -s.Days), s.Projects)
	return id, err
}

// addLedger writes one row per (computer, project, day): each computer's
// cores (and GPUs) shared among its projects, busy 60–100 % of the day,
// through the ledger's one writer, which marks the days for the next
// rollup round (rows of months without a partition wait in DEFAULT until
// cobble serve's partition upkeep). The amounts go in the order of
// accounting.UsageFields; the confirmed credit's days are among them.
func addLedger(ctx context.Context, tx pgx.Tx, s Spec) error {
	_, err := tx.Exec(ctx, accounting.LedgerFrom(`
		WITH x AS (
			SELECT hp.host_id, hp.project_id, d::date AS day, h.p_fpops,
				h.ncpus * 86400.0 / @nproj::int * (0.6 + 0.4 * abs(sin(extract(julian FROM d) * 0.37 + hp.host_id * 1.3 + hp.project_id))) AS cpu_s,
				coalesce((h.coprocs -> 0 ->> 'count')::int, 0) AS gpus,
				coalesce((h.coprocs -> 0 ->> 'peak_flops')::float8, 0) AS peak
			FROM host_projects hp JOIN hosts h ON h.id = hp.host_id
			CROSS JOIN generate_series(@end::date - (@days::int - 1), @end::date, interval '1 day') AS d
			WHERE hp.user_id = @user)
		SELECT host_id, @user::bigint, project_id, day,
			round(cpu_s * p_fpops * @scale::float8 * 1e6), round(cpu_s * 1e6),
			round(gpus * 43200.0 / @nproj::int * gpus * 0.2 * peak * @scale::float8 * 1e6),
			round(gpus * 43200.0 / @nproj::int * 1e6),
			round(cpu_s / 7200), CASE WHEN extract(day FROM day) IN (7, 21) THEN 1 ELSE 0 END,
			0, 0, 0, 0, 0, 0
		FROM x`), pgx.NamedArgs{"user": s.UserID, "end": s.End, "days": s.Days, "nproj": len(s.Projects),
		"scale": accounting.CobblestoneScale})
	if err != nil {
		return fmt.Errorf("demo ledger: %w", err)
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO confirmed_ledger (host_id, project_id, day, user_id, granted_micro)
		SELECT host_id, project_id, day, user_id,
			round(`+accounting.CreditSQL("")+` * (0.85 + 0.2 * abs(cos(extract(julian FROM day) * 0.71))))
		FROM ledger WHERE user_id = $1 AND day <= $2::date - $3::int`, s.UserID, s.End, s.ConfirmedLag)
	return err
}

// addEvents records a counter reset 60 days ago and a clamped claim 20
// days ago on one computer and project, with the clamped amount in the ledger.
func addEvents(ctx context.Context, tx pgx.Tx, s Spec, hostID, projectID int64) error {
	reset := s.End.AddDate(0, 0, -60).Add(14 * time.Hour)
	clamp := s.End.AddDate(0, 0, -20).Add(11 * time.Hour)
	clamped := accounting.Counters{CPUEC: 2000}
	events := accounting.NewHostEvents(s.UserID, hostID)
	err := errors.Join(
		events.Add(&projectID, reset, accounting.EventReset, accounting.EventDetail{
			Before: &accounting.Counters{CPUEC: 41234.5, CPUTime: 8100000, JobsSuccess: 1200, JobsError: 4},
			After:  &accounting.Counters{CPUEC: 12.5, CPUTime: 3600, JobsSuccess: 1}}),
		events.Add(&projectID, clamp, accounting.EventClamp, accounting.EventDetail{
			Requested: &accounting.Counters{CPUEC: 2750, CPUTime: 90000, JobsSuccess: 40}, Clamped: &clamped}))
	if err != nil {
		return err
	}
	rows := accounting.NewLedgerRows(hostID, s.UserID)
	rows.Add(projectID, accounting.CivilDay(clamp), accounting.Usage{}, accounting.Usage{CPUEC: int64(clamped.CPUEC * 1e6)})
	b := &pgx.Batch{}
	events.Queue(b)
	// Reported when the claim was made, so that the day's evidence dates
	// its report on its day; its day is marked for the rollups whatever
	// day it is now.
	rows.Queue(b, clamp)
	accounting.QueueDirtyDays(b, []time.Time{accounting.CivilDay(clamp)})
	return tx.SendBatch(ctx, b).Close()
}

// addRuns records a finished reconciliation run of each project that has
// none, as of the last confirmed day.
func addRuns(ctx context.Context, tx pgx.Tx, s Spec) error {
	at := s.End.AddDate(0, 0, -s.ConfirmedLag).Add(23 * time.Hour)
	_, err := tx.Exec(ctx, `
		INSERT INTO reconcile_runs (project_id, started_at, finished_at, status, source, export_time,
			hosts_scanned, hosts_matched)
		SELECT p, $2::timestamptz, $2::timestamptz + interval '4 seconds', 'ok', 'demo data', $2::timestamptz - interval '1 hour',
			(SELECT count(*) FROM host_projects WHERE project_id = p) + 1000,
			(SELECT count(*) FROM host_projects WHERE project_id = p)
		FROM unnest($1::bigint[]) AS p
		WHERE NOT EXISTS (SELECT 1 FROM reconcile_runs r WHERE r.project_id = p)`, s.Projects, at)
	return err
}

// addExports records the volunteer's computers as matched and verified in
// each project's latest run, as a reconciliation stores them: a baseline
// export at the start of the history's first day, then one at the end of
// each confirmed day that began before the run's export (the last at the
// run's export time), holding the confirmed credit so far. So each export's grant falls on one day in the
// volunteer's zone, and a day's evidence shows its confirmed credit as the
// share of one grant, as it would after daily reconciliations.
func addExports(ctx context.Context, tx pgx.Tx, s Spec) error {
	first := s.End.AddDate(0, 0, 1-s.Days)
	_, err := tx.Exec(ctx, `
		INSERT INTO export_credit (host_id, project_id, user_id, export_time, run_id, project_hostid, total_credit,
			expavg_credit, expavg_time)
		SELECT hp.host_id, hp.project_id, hp.user_id, e.at, r.id, hp.project_hostid, e.total, 0, 0
		FROM host_projects hp JOIN users u ON u.id = hp.user_id
		CROSS JOIN LATERAL (SELECT id, export_time FROM reconcile_runs WHERE project_id = hp.project_id
			AND status = 'ok' ORDER BY started_at DESC, id DESC LIMIT 1) r
		CROSS JOIN LATERAL (
			SELECT $2::date::timestamp AT TIME ZONE u.time_zone AS at, 0::float8 AS total
			UNION ALL
			SELECT least((c.day + 1)::timestamp AT TIME ZONE u.time_zone, r.export_time),
				sum(c.granted_micro) OVER (ORDER BY c.day) / 1e6
			FROM confirmed_ledger c
			WHERE c.host_id = hp.host_id AND c.project_id = hp.project_id AND c.user_id = hp.user_id
				AND c.day::timestamp AT TIME ZONE u.time_zone < r.export_time) e
		WHERE hp.user_id = $1 AND hp.project_hostid > 0`, s.UserID, first.Format(time.DateOnly))
	if err != nil {
		return fmt.Errorf("demo exports: %w", err)
	}
	return nil
}

// addTotals sets each pair's lifetime totals to the sums of its ledger rows.
func addTotals(ctx context.Context, tx pgx.Tx, userID int64) error {
	var set, sums []string
	for _, f := range accounting.UsageFields {
		set = append(set, f.Total+" = l."+f.Column)
		sums = append(sums, "sum("+f.Column+") AS "+f.Column)
	}
	_, err := tx.Exec(ctx, `
		UPDATE host_projects hp SET `+strings.Join(set, ", ")+`
		FROM (SELECT host_id, project_id, `+strings.Join(sums, ", ")+`
			FROM ledger WHERE user_id = $1 GROUP BY host_id, project_id) l
		WHERE hp.host_id = l.host_id AND hp.project_id = l.project_id`, userID)
	return err
}

func token() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
