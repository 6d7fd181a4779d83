package reconcile_test

import (
	"testing"
	"time"

	"github.com/cobble-am/cobble/boinc/exporttest"
)

// EstimatedSince sums what was estimated after the report's window (which
// ends the day before the latest export), up to today. Six hosts estimate
// 50 credits each on May 1st and on May 2nd.
func TestEstimatedSinceTheWindow(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	for i, c := range []struct {
		export time.Time
		want   float64
	}{
		{may1, 600},                     // window ends April 30th: both days
		{may1.Add(24 * time.Hour), 300}, // ends May 1st: May 2nd
		{may1.Add(48 * time.Hour), 0},   // ends May 2nd: nothing after it
	} {
		// Each export differs, so that each run reads it.
		e.stats.publish(c.export, []exporttest.Host{gen(101, 42, float64(100*(i+1)))}, 0)
		e.run()
		pr, err := e.rec.Report(e.ctx, e.proj)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.Ledger.RebuildRollups(e.ctx, e.now); err != nil { // it reads the rollups
			t.Fatal(err)
		}
		got, err := e.rec.EstimatedSince(e.ctx, pr)
		if err != nil || !near(got, c.want) {
			t.Errorf("export of %v (window to %v): estimated since %v, %v; want %v", c.export, pr.To, got, err, c.want)
		}
	}
	// Today inside the window (the clock behind the export): nothing.
	e.now = may1
	pr, _ := e.rec.Report(e.ctx, e.proj)
	if got, err := e.rec.EstimatedSince(e.ctx, pr); got != 0 || err != nil {
		t.Errorf("with today before the window's end: %v, %v; want 0", got, err)
	}
}
