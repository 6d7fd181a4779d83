package accounting_test

import (
	"context"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// A dry run (cobble ledger check) makes no RPC wait, and sees an RPC's
// ledger rows and totals together or not at all: here a transaction that
// has written a total but not committed.
func TestRebuildDryRunWaitsForNothing(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	ctx := context.Background()
	h.sync(time.Hour, &accounting.Counters{CPUEC: 10, CPUTime: 100})
	h.sync(time.Hour, &accounting.Counters{CPUEC: 12, CPUTime: 3700})
	tx, err := h.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `UPDATE host_projects SET total_cpu_ec_micro = total_cpu_ec_micro + 1`); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rep, err := h.s.Ledger.RebuildTotals(short, true)
	if err != nil || rep.Pairs != 1 || len(rep.Differences) != 0 {
		t.Errorf("dry run beside an open transaction: %+v %v; want 1 pair, no difference, no wait", rep, err)
	}
}
