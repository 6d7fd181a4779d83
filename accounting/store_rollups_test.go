package accounting_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cobble-am/cobble/accounting"
)

// rollupVsLedger returns, per day, the rollup's (estimated credit, jobs,
// hosts) and the ledger's.
func (h *host) rollupVsLedger() (rollup, ledger map[string][3]int64) {
	h.t.Helper()
	read := func(q string) map[string][3]int64 {
		rows, err := h.pool.Query(context.Background(), q)
		if err != nil {
			h.t.Fatal(err)
		}
		defer rows.Close()
		out := map[string][3]int64{}
		for rows.Next() {
			var day string
			var v [3]int64
			if err := rows.Scan(&day, &v[0], &v[1], &v[2]); err != nil {
				h.t.Fatal(err)
			}
			out[day] = v
		}
		return out
	}
	return read(`SELECT day::text, ec_micro, njobs_success, hosts FROM rollup_days`),
		read(`SELECT day::text, sum(cpu_ec_micro + gpu_ec_micro)::bigint, sum(njobs_success)::bigint,
			count(DISTINCT host_id) FROM ledger GROUP BY day`)
}

func (h *host) dirtyDays() int {
	var n int
	if err := h.pool.QueryRow(context.Background(), `SELECT count(*) FROM ledger_dirty_days`).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

// The rollup folds the recent days, and the older days an RPC spread
// credit over (marked in the RPC's batch), and deleted rows' days.
func TestRollupFoldsChangedDays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t)
	h.sync(time.Hour, &accounting.Counters{CPUEC: 100, CPUTime: 1000, JobsSuccess: 5})
	h.sync(time.Hour, &accounting.Counters{CPUEC: 110, CPUTime: 4600, JobsSuccess: 7})
	if h.dirtyDays() != 0 {
		t.Errorf("an RPC of today marked %d days", h.dirtyDays())
	}
	if err := h.s.Rollup(ctx, h.now.AddDate(0, 0, -2), h.now); err != nil {
		t.Fatal(err)
	}
	rollup, ledger := h.rollupVsLedger()
	if diff := cmp.Diff(ledger, rollup); diff != "" || len(rollup) != 1 {
		t.Errorf("after a day (-ledger +rollup):\n%s", diff)
	}

	// Ten days away: the credit is spread over them, and the days before
	// yesterday are marked, since the next round's window misses them.
	h.sync(10*24*time.Hour, &accounting.Counters{CPUEC: 160, CPUTime: 9000, JobsSuccess: 17})
	if n := h.dirtyDays(); n < 8 {
		t.Errorf("an RPC spreading over 10 days marked %d days", n)
	}
	if err := h.s.Rollup(ctx, h.now.AddDate(0, 0, -2), h.now); err != nil {
		t.Fatal(err)
	}
	rollup, ledger = h.rollupVsLedger()
	if diff := cmp.Diff(ledger, rollup); diff != "" || len(rollup) < 10 || h.dirtyDays() != 0 {
		t.Errorf("after ten days away (-ledger +rollup), %d days still marked:\n%s", h.dirtyDays(), diff)
	}
	rep, err := h.s.RebuildTotals(ctx, true)
	if err != nil || len(rep.Rollups) != 0 {
		t.Errorf("check: %v, rollup differences %+v", err, rep.Rollups)
	}

	// A deletion marks its days; the next round empties them.
	if _, err := h.pool.Exec(ctx, `DELETE FROM hosts`); err != nil {
		t.Fatal(err)
	}
	if h.dirtyDays() < 10 {
		t.Errorf("deleting the host marked %d days", h.dirtyDays())
	}
	if err := h.s.Rollup(ctx, h.now.AddDate(0, 0, -2), h.now); err != nil {
		t.Fatal(err)
	}
	if rollup, _ := h.rollupVsLedger(); len(rollup) != 0 {
		t.Errorf("after the host's deletion, the rollup keeps %v", rollup)
	}
}

// A round after days without one folds the days since the last round.
func TestRollupCatchesUpMissedRounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t)
	if err := h.s.Rollup(ctx, h.now.AddDate(0, 0, -2), h.now); err != nil {
		t.Fatal(err)
	}
	// RPCs every 12 hours for 5 days, no rollup meanwhile: none is marked.
	for i := range 10 {
		h.sync(12*time.Hour, &accounting.Counters{CPUEC: float64(10 * (i + 1)), CPUTime: float64(3600 * (i + 1)), JobsSuccess: int64(i)})
	}
	if err := h.s.Rollup(ctx, h.now.AddDate(0, 0, -2), h.now); err != nil {
		t.Fatal(err)
	}
	rollup, ledger := h.rollupVsLedger()
	if diff := cmp.Diff(ledger, rollup); diff != "" || len(rollup) < 5 {
		t.Errorf("after five days without a round (-ledger +rollup):\n%s", diff)
	}
}

// A round folds from the day before its previous round's, less the time an
// RPC may be in flight: an RPC that began just before midnight and
// committed after the first round of the next day left the day before its
// own unmarked, and the next round folds it.
func TestRollupFoldsWhatAnRPCInFlightWrote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t)                                                                      // May 1, 10:00
	h.sync(time.Minute, &accounting.Counters{CPUEC: 100, CPUTime: 1000, JobsSuccess: 5}) // the baseline
	first := time.Date(2026, 5, 3, 0, 0, 5, 0, time.UTC)
	if err := h.s.Rollup(ctx, first.AddDate(0, 0, -1), first); err != nil {
		t.Fatal(err)
	}
	// Begun on May 2 at 23:59:30, before that round, and committed after
	// it: its credit goes to May 1 and 2, neither marked.
	h.sync(first.Add(-35*time.Second).Sub(h.now), &accounting.Counters{CPUEC: 500, CPUTime: 90_000, JobsSuccess: 9})
	if h.dirtyDays() != 0 {
		t.Fatalf("the RPC marked %d days", h.dirtyDays())
	}
	next := first.Add(time.Minute)
	if err := h.s.Rollup(ctx, next.AddDate(0, 0, -1), next); err != nil {
		t.Fatal(err)
	}
	rollup, ledger := h.rollupVsLedger()
	if diff := cmp.Diff(ledger, rollup); diff != "" || len(ledger) != 2 {
		t.Errorf("ledger days %v (-ledger +rollup):\n%s", ledger, diff)
	}
}
