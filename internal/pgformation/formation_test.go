package pgformation

import (
	"context"
	"testing"
	"time"
)

// The formation starts with node_1 primary and node_2 its synchronous
// secondary; when node_1 crashes, node_2 takes over, and node_1, run
// again, comes back as its secondary.
func TestFormationFailsOver(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a pg_auto_failover formation")
	}
	f := Start(t, 2*time.Minute)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var names, commit string
	if err := f.Nodes[0].Query(ctx, `SELECT current_setting('synchronous_standby_names'),
		current_setting('synchronous_commit')`, &names, &commit); err != nil {
		t.Fatal(err)
	}
	if names == "" || commit != "on" {
		t.Errorf("synchronous_standby_names %q, synchronous_commit %q: want a standby and on", names, commit)
	}
	killed := time.Now()
	if err := f.Nodes[0].Crash(); err != nil {
		t.Fatal(err)
	}
	if err := f.WaitStates(ctx, map[string]string{"node_2": "wait_primary"}); err != nil {
		t.Fatalf("%v\n%s", err, f.Logs())
	}
	t.Logf("node_2 promoted %v after node_1 crashed", time.Since(killed).Round(time.Millisecond))
	if err := f.Rejoin(f.Nodes[0]); err != nil {
		t.Fatal(err)
	}
	if err := f.WaitStates(ctx, map[string]string{"node_2": "primary", "node_1": "secondary"}); err != nil {
		t.Fatalf("%v\n%s", err, f.Logs())
	}
	t.Logf("node_1 back as node_2's secondary %v after the crash", time.Since(killed).Round(time.Millisecond))
	p, _, err := f.Primary(ctx)
	if err != nil || p != f.Nodes[1] {
		t.Errorf("Primary: %v, %v; want node_2", p, err)
	}
}
