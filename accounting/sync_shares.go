package accounting

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// recentWindow is the span of "recent work" that project shares are
// balanced over.
const recentWindow = 7 * 24 * time.Hour

// RecentWork is Cobble's recent work per project, in Cobblestones per day:
// the estimated credit of the last seven days from the ledger, read
// periodically (never per RPC), plus the work expected from hosts given a
// project since, until the ledger shows it. Without that expectation every
// host joining between two reads would go to the same project. Every
// instance records its expectations in the database too (work_expected,
// store_expected.go) and reads all of them before a new host's RPC, so
// that instances on one database balance as one. It is safe for
// concurrent use; the zero value knows nothing.
type RecentWork struct {
	mu       sync.Mutex
	base     map[int64]float64 // per project, from the ledger as of readAt
	readAt   time.Time
	expected map[int64]map[time.Time]float64 // per project and hour: Cobblestones per day
	cached   map[int64]float64               // Fractions, until Set or Expect
}

// Set replaces the ledger's figures (Cobblestones per day per project over
// the last seven days) read at now.
func (w *RecentWork) Set(perDay map[int64]float64, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.base, w.readAt, w.cached = perDay, now, nil
	for id, es := range w.expected {
		maps.DeleteFunc(es, func(at time.Time, _ float64) bool { return now.Sub(at) >= recentWindow })
		if len(es) == 0 {
			delete(w.expected, id)
		}
	}
}

// Expect records that from now on a host gives each project the rate of
// work in rates (Cobblestones per day). Expectations are kept per hour.
func (w *RecentWork) Expect(rates map[int64]float64, now time.Time) {
	if len(rates) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.expected == nil {
		w.expected = map[int64]map[time.Time]float64{}
	}
	hour := now.Truncate(time.Hour)
	for id, r := range rates {
		if w.expected[id] == nil {
			w.expected[id] = map[time.Time]float64{}
		}
		w.expected[id][hour] += r
	}
	w.cached = nil
}

// SetExpected replaces the expectations with expected (per project and
// hour, Cobblestones per day): those every instance on the database
// recorded, read from it.
func (w *RecentWork) SetExpected(expected map[int64]map[time.Time]float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expected, w.cached = expected, nil
}

// Fractions returns each project's fraction of the recent work, or nil
// when there is none. An expectation counts in full until the ledger was
// read after it, then less as the ledger's seven days take it in. The
// result is shared: callers must not modify it.
func (w *RecentWork) Fractions() map[int64]float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cached == nil {
		w.cached = w.fractions()
	}
	return w.cached
}

func (w *RecentWork) fractions() map[int64]float64 {
	work := make(map[int64]float64, len(w.base)+len(w.expected))
	total := 0.0
	for id, v := range w.base {
		work[id] += v
		total += v
	}
	for id, es := range w.expected {
		for at, rate := range es {
			seen := min(max(w.readAt.Sub(at).Seconds()/recentWindow.Seconds(), 0), 1)
			work[id] += rate * (1 - seen)
			total += rate * (1 - seen)
		}
	}
	if total <= 0 {
		return map[int64]float64{}
	}
	for id := range work {
		work[id] /= total
	}
	return work
}

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
func (s *SyncStore) RecentWorkLoop(ctx context.Context, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := s.refreshRecentWork(ctx, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("reading recent work failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
