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

// With no periodic runs, Loop returns at once, before it reads anything.
func TestLoopOffWithoutEvery(t *testing.T) {
	t.Parallel()
	r := New(nil, nil, Options{}) // a nil store: any read would panic
	defer r.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Loop(t.Context(), time.Millisecond, nil)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Loop ran with Every zero")
	}
}
