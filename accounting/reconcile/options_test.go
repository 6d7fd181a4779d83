package reconcile

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// DefaultOptions owns every reconciliation default; a zero
// field takes it, but a zero Every means no periodic runs.
func TestReconcileOptionDefaults(t *testing.T) {
	t.Parallel()
	def := DefaultOptions()
	noPeriodic := def
	noPeriodic.Every = 0
	mine := Options{Every: time.Hour, Timeout: time.Minute, StallTimeout: time.Second,
		FileTimeout: 2 * time.Second, MaxBytes: 1 << 20, AllowPrivate: true, Workers: 9, Window: 48 * time.Hour,
		RatioLow: 0.25, RatioHigh: 3, StaleAfter: time.Hour}
	for _, c := range []struct {
		name     string
		in, want Options
	}{
		{"zero: defaults, no periodic runs", Options{}, noPeriodic},
		{"negative: defaults, no periodic runs", Options{Every: -time.Hour, Timeout: -1, Workers: -1,
			RatioLow: -1, MaxBytes: -1}, noPeriodic},
		{"the defaults themselves", def, def},
		{"every field set is kept", mine, mine},
	} {
		got := c.in.withDefaults()
		if got.Now == nil {
			t.Errorf("%s: no clock", c.name)
		}
		if diff := cmp.Diff(c.want, got, cmpopts.IgnoreFields(Options{}, "Now", "Observe")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	if def.Every <= 0 {
		t.Errorf("the default period %v runs nothing", def.Every)
	}
}

// With Every zero there are no periodic runs: the server adds no
// periodic round; with it set, there are.
func TestPeriodicOnlyWithEvery(t *testing.T) {
	t.Parallel()
	off := New(nil, nil, Options{}) // a nil store: any read would panic
	defer off.Close()
	on := New(nil, nil, Options{Every: time.Hour})
	defer on.Close()
	if off.Periodic() || !on.Periodic() {
		t.Errorf("Periodic: %v with Every zero, %v with an hour; want false and true", off.Periodic(), on.Periodic())
	}
}
