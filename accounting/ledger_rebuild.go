package accounting

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// maxRollupDifferences bounds the rollup differences a check reports.
const maxRollupDifferences = 1000

// RebuildTotals recomputes every derived total (the lifetime totals of each
// host and project, one per UsageFields) from the ledger (with the sums of
// retired months, ledger_retired_totals), reports each
// difference, and, unless dryRun, stores the ledger's value. RPCs wait while
// it corrects; a dry run changes nothing and makes nothing wait: it reads
// one snapshot, in which each RPC's ledger rows and totals (written in one
// transaction) are there together or not at all. The daily totals of
// volunteers, projects and the system are queries on the ledger and need
// no rebuilding.
func (s *LedgerStore) RebuildTotals(ctx context.Context, dryRun bool) (RebuildReport, error) {
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
		if err := tx.QueryRow(ctx, `
			SELECT (SELECT count(*) FROM host_projects), (SELECT count(*) FROM ledger_default),
				(SELECT count(*) FROM confirmed_ledger_default)`).
			Scan(&rep.Pairs, &rep.DefaultLedger, &rep.DefaultConfirmed); err != nil {
			return err
		}
		for _, f := range UsageFields {
			diffs, err := totalDifferences(ctx, tx, f, dryRun)
			if err != nil {
				return err
			}
			rep.Differences = append(rep.Differences, diffs...)
		}
		var err error
		rep.Rollups, err = rollupDifferences(ctx, tx, maxRollupDifferences)
		return err
	})
	return rep, op("rebuild totals", err)
}

// totalDifferences compares f's total column with the sums of its ledger
// column, and corrects it unless dryRun. Column names come from
// UsageFields only.
func totalDifferences(ctx context.Context, tx pgx.Tx, f UsageField, dryRun bool) ([]TotalsDifference, error) {
	query := fmt.Sprintf(`
		WITH sums AS (
			SELECT host_id, project_id, sum(v)::bigint AS v FROM (
				SELECT host_id, project_id, %[2]s AS v FROM ledger
				UNION ALL SELECT host_id, project_id, %[2]s FROM ledger_retired_totals
			) AS l GROUP BY host_id, project_id
		), diff AS (
			SELECT hp.host_id, hp.project_id, hp.%[1]s AS stored, coalesce(s.v, 0) AS ledger
			FROM host_projects hp LEFT JOIN sums s USING (host_id, project_id)
			WHERE hp.%[1]s <> coalesce(s.v, 0)
		)`, f.Total, f.Column)
	if dryRun {
		query += `SELECT host_id, project_id, stored, ledger FROM diff ORDER BY host_id, project_id`
	} else {
		query += fmt.Sprintf(`
		UPDATE host_projects hp SET %s = diff.ledger FROM diff
		WHERE hp.host_id = diff.host_id AND hp.project_id = diff.project_id
		RETURNING diff.host_id, diff.project_id, diff.stored, diff.ledger`, f.Total)
	}
	rows, _ := tx.Query(ctx, query)
	var d TotalsDifference
	var stored, inLedger int64
	var out []TotalsDifference
	_, err := pgx.ForEachRow(rows, []any{&d.HostID, &d.ProjectID, &stored, &inLedger}, func() error {
		d.Field, d.Stored, d.Ledger = f.Name, f.Unit(stored), f.Unit(inLedger)
		out = append(out, d)
		return nil
	})
	return out, err
}
