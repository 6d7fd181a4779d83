package accounting

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/every"
)

// recentWindow is the span of "recent work" that project shares are
// balanced over.
const recentWindow = 7 * 24 * time.Hour

// expectedRates estimates, per project, the Cobblestones per day a host of
// this capacity gives the projects it newly works for: each resource's
// rate is split evenly over the chosen projects that use it.
func expectedRates(c Capacity, as []Assignment) map[int64]float64 {
	if !slices.ContainsFunc(as, func(a Assignment) bool { return a.Action == Work && a.Reason != ReasonKept }) {
		return nil // the steady state: the host keeps what it runs
	}
	out := map[int64]float64{}
	day := 86400 * CobblestoneScale
	spread := func(resource string, rate float64) {
		var users []int64
		for _, a := range as {
			if a.Action == Work && slices.Contains(a.Project.Resources, resource) {
				users = append(users, a.Project.ID)
			}
		}
		for _, a := range as {
			if a.Action == Work && a.Reason != ReasonKept && slices.Contains(users, a.Project.ID) {
				out[a.Project.ID] += rate / float64(len(users))
			}
		}
	}
	spread(ResourceCPU, float64(c.NCPUs)*c.PFPOps*day)
	for _, g := range c.GPUs {
		spread(g.Type, float64(g.Count)*g.PeakFLOPS*gpuECFactor*day)
	}
	return out
}

// refreshRecentWork reads the last seven days of the per-(project, day)
// rollups into s.recent: a few rows a project, whatever the hosts, as of
// the latest rollup round (folded every minute).
func (s *SyncStore) refreshRecentWork(ctx context.Context, now time.Time) error {
	perDay := map[int64]float64{}
	err := s.backgroundTx(ctx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, `
			SELECT project_id, sum(ec_micro)::float8 / 1e6 / 7
			FROM rollup_project_days WHERE day > $1::date - 7 GROUP BY project_id`, now.UTC())
		var id int64
		var v float64
		_, err := pgx.ForEachRow(rows, []any{&id, &v}, func() error {
			perDay[id] = v
			return nil
		})
		return err
	})
	if err != nil {
		return op("recent work", err)
	}
	s.recent.Set(perDay, now)
	return nil
}

// RecentWorkLoop reads the recent work per project from the ledger now and
// then every interval, until ctx ends; the RPC balances project shares with
// it. A failed read keeps the last figures and is logged.
func (s *SyncStore) RecentWorkLoop(ctx context.Context, period time.Duration, log *slog.Logger) {
	every.Loop(ctx, period, true, func(ctx context.Context, now time.Time) {
		if err := s.refreshRecentWork(ctx, now); err != nil && ctx.Err() == nil {
			log.Warn("reading recent work failed", "err", err)
		}
	})
}
