package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// RebuildTeamRollups folds every team's detailed settled days again from
// rollup_volunteer_days, as RebuildRollups does after folding the ledger,
// and refreshes every team's totals and recent average, under the
// rollup's lock. It is for memberships written directly, beside the
// store, over volunteers whose rollups are up to date (cmd/cobble-load
// puts a history's volunteers in teams so): it reads the per-volunteer
// rollup, a tenth of the ledger's rows, and leaves the other rollups as
// they are.
func (s *LedgerStore) RebuildTeamRollups(ctx context.Context, now time.Time) error {
	return op("rebuild team rollups", s.backgroundTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, rollupLock); err != nil {
			return err
		}
		return rebuildTeams(ctx, tx, now)
	}))
}
