package reconcile

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting"
)

// creditHostsSQL stores, for one window (@days), the credit of the hosts
// that run @run verified, over the days from @from (or from the day of
// the host's first export of the project, its baseline, if later) to @to:
// estimated (and its GPU part), CPU and GPU hours from the ledger,
// granted from the confirmed ledger. Matched hosts are the verified ones
// (settle credits no other); a host the run also listed as unverified
// is left out all the same. Each host's rows are read by the ledgers'
// primary keys (LATERAL), so that the cost is the run's hosts × the
// window's days whatever the planner guesses of the run's hosts (the
// constant bounds on day prune the partitions). With joins, statistics
// taken before the run's rows were written made it guess one host, and
// scan the confirmed ledger's window once per host: minutes at 50 M rows.
var creditHostsSQL = `
	WITH v AS MATERIALIZED (SELECT DISTINCT e.host_id, e.user_id, greatest(@from::date,
			(SELECT min(x.export_time) FROM export_credit x
			 WHERE x.host_id = e.host_id AND x.project_id = @project AND x.user_id = e.user_id)::date) AS since
		FROM export_credit e WHERE e.run_id = @run AND NOT EXISTS
			(SELECT 1 FROM reconcile_unverified u WHERE u.run_id = @run AND u.host_id = e.host_id))
	INSERT INTO credit_hosts (project_id, window_days, user_id, host_id, run_id, estimated, estimated_gpu,
		cpu_hours, gpu_hours, granted)
	SELECT @project, @days, v.user_id, v.host_id, @run, est.e / 1e6, est.eg / 1e6, est.ct / 3.6e9,
		est.gt / 3.6e9, coalesce(gra.g, 0) / 1e6
	FROM v
	CROSS JOIN LATERAL (SELECT sum(` + accounting.CreditSQL("l.") + `) AS e, sum(l.gpu_ec_micro) AS eg,
			sum(l.cpu_time_micro) AS ct, sum(l.gpu_time_micro) AS gt
		FROM ledger l WHERE l.host_id = v.host_id AND l.project_id = @project AND l.user_id = v.user_id
			AND l.day BETWEEN v.since AND @to::date AND l.day >= @from::date) AS est
	CROSS JOIN LATERAL (SELECT sum(c.granted_micro) AS g
		FROM confirmed_ledger c WHERE c.host_id = v.host_id AND c.project_id = @project AND c.user_id = v.user_id
			AND c.day BETWEEN v.since AND @to::date AND c.day >= @from::date) AS gra
	WHERE est.e > 0`

// storeCreditHosts stores, for every fairness window, the credit of the
// hosts run (a successful run) verified, in place of the rows of the
// project's earlier runs, in one background transaction. The windows end
// where the run's report window ends, the day before its export.
func (r *Reconciler) storeCreditHosts(ctx context.Context, run Run) error {
	_, to := r.window(&run)
	err := r.db.backgroundTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM credit_hosts WHERE project_id = $1`, run.ProjectID); err != nil {
			return err
		}
		for _, days := range FairnessWindows {
			args := pgx.NamedArgs{"project": run.ProjectID, "run": run.ID, "days": days,
				"from": to.AddDate(0, 0, 1-days), "to": to}
			if _, err := tx.Exec(ctx, creditHostsSQL, args); err != nil {
				return fmt.Errorf("the %d-day window: %w", days, err)
			}
		}
		return nil
	})
	return op("store the verified hosts' credit", err)
}
