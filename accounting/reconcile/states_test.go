package reconcile_test

import (
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// The overview's states mark a stale export by the same rule as the
// project report, and leave out the projects reconciliation does not read.
func TestReconcileStatesMarkStaleExports(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	retired, err := e.store.Catalog.AddProject(e.ctx, accounting.Project{URL: "https://gone.example.org/", Name: "Gone",
		Authenticator: "k", Status: accounting.StatusRetired})
	if err != nil {
		t.Fatal(err)
	}
	e.stats.publish(may1.Add(48*time.Hour), nil, 0)
	e.run()
	for _, c := range []struct {
		now   time.Time
		stale bool
	}{{may1.Add(50 * time.Hour), false}, {may1.Add(6 * 24 * time.Hour), true}} {
		e.now = c.now
		states, err := e.rec.States(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(states) != 1 || states[0].ProjectID != e.proj.ID || states[0].ExportTime == nil {
			t.Fatalf("states %+v, want the one reconciled project %d (not the retired %d) with its export",
				states, e.proj.ID, retired.ID)
		}
		pr, err := e.rec.Report(e.ctx, e.proj)
		if err != nil {
			t.Fatal(err)
		}
		if states[0].Stale != c.stale || contains(pr.Flags, "stale export") != c.stale {
			t.Errorf("at %v: state stale %v, report flags %v; want stale %v", c.now, states[0].Stale, pr.Flags, c.stale)
		}
	}
}
