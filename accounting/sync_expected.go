package accounting

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/every"
)

// The work expected from hosts newly given a project is shared by every
// instance on the database through work_expected: the RPC that assigns
// it adds it there in its write batch (no round trip of its own), and an
// RPC that may assign a new host's projects reads all of it first (one
// round trip, only off the steady state). A loop reads it every few
// seconds for the steady-state RPCs, which never read it themselves.

// expectedEvery is how often an instance reads the shared expectations
// in the background.
const expectedEvery = 10 * time.Second

// queueExpected adds, to the RPC's write batch, the rates (Cobblestones
// per day per project) a host is now expected to give, in now's hour.
// Projects go in ID order so that concurrent batches lock rows alike.
func queueExpected(b *pgx.Batch, rates map[int64]float64, now time.Time) {
	if len(rates) == 0 {
		return
	}
	ids := make([]int64, 0, len(rates))
	for id := range rates {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	vals := make([]float64, len(ids))
	for i, id := range ids {
		vals[i] = rates[id]
	}
	b.Queue(`
		INSERT INTO work_expected AS w (project_id, hour, rate)
		SELECT id, @hour, rate FROM unnest(@ids::bigint[], @rates::float8[]) AS u (id, rate)
		ON CONFLICT (project_id, hour) DO UPDATE SET rate = w.rate + excluded.rate`,
		pgx.NamedArgs{"hour": now.UTC().Truncate(time.Hour), "ids": ids, "rates": vals})
}

// readExpected reads every instance's expectations of the last seven days
// into s.recent.
func (s *SyncStore) readExpected(ctx context.Context, q querier, now time.Time) error {
	rows, _ := q.Query(ctx, `
		SELECT project_id, hour, rate FROM work_expected WHERE hour > $1`, now.UTC().Add(-recentWindow))
	expected := map[int64]map[time.Time]float64{}
	var id int64
	var hour time.Time
	var rate float64
	_, err := pgx.ForEachRow(rows, []any{&id, &hour, &rate}, func() error {
		if expected[id] == nil {
			expected[id] = map[time.Time]float64{}
		}
		expected[id][hour] = rate
		return nil
	})
	if err != nil {
		return op("read expected work", err)
	}
	s.recent.SetExpected(expected)
	return nil
}

// PruneExpected deletes the expectations older than the recent window (a
// cluster-wide periodic job).
func (s *SyncStore) PruneExpected(ctx context.Context, now time.Time) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM work_expected WHERE hour <= $1`, now.UTC().Add(-recentWindow))
	return op("prune expected work", err)
}

// ExpectedWorkLoop reads every instance's expected work every
// expectedEvery until ctx ends. A failure keeps the last figures and is
// logged.
func (s *SyncStore) ExpectedWorkLoop(ctx context.Context, log *slog.Logger) {
	every.Loop(ctx, expectedEvery, false, func(ctx context.Context, now time.Time) {
		if err := s.readExpected(ctx, s.pool, now); err != nil && ctx.Err() == nil {
			log.Warn("reading expected work failed", "err", err)
		}
	})
}
