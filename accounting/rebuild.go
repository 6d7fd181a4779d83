package accounting

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// TotalsDifference is one stored total that did not match the ledger.
type TotalsDifference struct {
	HostID, ProjectID int64
	Field             string // e.g. "cpu_ec"
	Stored, Ledger    float64
}

// RebuildReport says what RebuildTotals checked and found.
type RebuildReport struct {
	Pairs       int64 // (host, project) rows checked
	Differences []TotalsDifference
}

// totalFields are the host_projects totals derived from the ledger, with
// their ledger column and the divisor that turns them into whole units.
var totalFields = []struct{ name, total, ledger string }{
	{"cpu_ec", "total_cpu_ec_micro", "cpu_ec_micro"},
	{"cpu_time", "total_cpu_time_micro", "cpu_time_micro"},
	{"gpu_ec", "total_gpu_ec_micro", "gpu_ec_micro"},
	{"gpu_time", "total_gpu_time_micro", "gpu_time_micro"},
	{"njobs_success", "total_njobs_success", "njobs_success"},
	{"njobs_error", "total_njobs_error", "njobs_error"},
}

// RebuildTotals recomputes every derived total (the lifetime totals of each
// host and project) from the ledger, reports each difference, and, unless
// dryRun, stores the ledger's value. RPCs wait while it corrects; a dry run
// changes nothing and makes nothing wait: it reads one snapshot, in which
// each RPC's ledger rows and totals (written in one transaction) are there
// together or not at all. The daily totals of volunteers, projects and the
// system are queries on the ledger and need no rebuilding.
func (s *Store) RebuildTotals(ctx context.Context, dryRun bool) (RebuildReport, error) {
	var rep RebuildReport
	opts := pgx.TxOptions{}
	if dryRun {
		opts = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	}
	err := pgx.BeginTxFunc(ctx, s.pool, opts, func(tx pgx.Tx) error {
		if !dryRun {
			if _, err := tx.Exec(ctx, `LOCK TABLE host_projects, ledger IN EXCLUSIVE MODE`); err != nil {
				return err
			}
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM host_projects`).Scan(&rep.Pairs); err != nil {
			return err
		}
		for _, f := range totalFields {
			diffs, err := totalDifferences(ctx, tx, f.name, f.total, f.ledger, dryRun)
			if err != nil {
				return err
			}
			rep.Differences = append(rep.Differences, diffs...)
		}
		return nil
	})
	return rep, op("rebuild totals", err)
}

// totalDifferences compares one total column with its ledger sums, and
// corrects it unless dryRun. Column names come from totalFields only.
func totalDifferences(ctx context.Context, tx pgx.Tx, name, total, ledger string, dryRun bool) ([]TotalsDifference, error) {
	query := fmt.Sprintf(`
		WITH sums AS (
			SELECT host_id, project_id, sum(%[2]s)::bigint AS v FROM ledger GROUP BY host_id, project_id
		), diff AS (
			SELECT hp.host_id, hp.project_id, hp.%[1]s AS stored, coalesce(s.v, 0) AS ledger
			FROM host_projects hp LEFT JOIN sums s USING (host_id, project_id)
			WHERE hp.%[1]s <> coalesce(s.v, 0)
		)`, total, ledger)
	if dryRun {
		query += `SELECT host_id, project_id, stored, ledger FROM diff ORDER BY host_id, project_id`
	} else {
		query += fmt.Sprintf(`
		UPDATE host_projects hp SET %s = diff.ledger FROM diff
		WHERE hp.host_id = diff.host_id AND hp.project_id = diff.project_id
		RETURNING diff.host_id, diff.project_id, diff.stored, diff.ledger`, total)
	}
	rows, _ := tx.Query(ctx, query)
	unit := 1.0
	if total != "total_njobs_success" && total != "total_njobs_error" {
		unit = microPerUnit
	}
	var d TotalsDifference
	var stored, inLedger int64
	var out []TotalsDifference
	_, err := pgx.ForEachRow(rows, []any{&d.HostID, &d.ProjectID, &stored, &inLedger}, func() error {
		d.Field, d.Stored, d.Ledger = name, float64(stored)/unit, float64(inLedger)/unit
		out = append(out, d)
		return nil
	})
	return out, err
}
