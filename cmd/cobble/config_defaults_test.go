package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cobble-am/cobble/accounting/reconcile"
)

// The server flags' reconciliation defaults are accounting's, and
// --reconcile-every 0 means what a zero Every means there: no periodic runs.
func TestReconcileFlagDefaultsAreTheDomains(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want func(*reconcile.Options)
	}{
		{nil, func(*reconcile.Options) {}},
		{[]string{"--reconcile-every", "0"}, func(o *reconcile.Options) { o.Every = 0 }},
		{[]string{"--reconcile-every", "90m", "--reconcile-workers", "2", "--ratio-low", "0.3"},
			func(o *reconcile.Options) { o.Every, o.Workers, o.RatioLow = 90*time.Minute, 2, 0.3 }},
	} {
		cfg, err := serverConfig(t, nil, c.args...)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		want := reconcile.DefaultOptions()
		c.want(&want)
		// Run length and staleness have no flags: zero takes the default.
		want.Timeout, want.StaleAfter = 0, 0
		if diff := cmp.Diff(want, cfg.Reconcile, cmpopts.IgnoreFields(reconcile.Options{}, "Now", "Observe")); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.args, diff)
		}
	}
}
