package accounting_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cobble-am/cobble/accounting"
)

// Amounts of credit in warnings read as on the pages: thousands separated.
func TestClampWarningFormatsCredit(t *testing.T) {
	s := accounting.Summary{Last30: accounting.Totals{Clamped: 12345.678}}
	for _, w := range accounting.Warnings(nil, s, time.Now()) {
		if w.Kind != accounting.WarningClamped {
			continue
		}
		if !strings.Contains(w.Msg.String(), "claimed 12,346 more") {
			t.Errorf("clamp warning: %q", w.Msg.String())
		}
		return
	}
	t.Error("no clamp warning")
}

// Every kind of warning is given when it applies, and has a title of its own.
func TestEveryWarningKind(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	quiet := now.Add(-4 * 24 * time.Hour)
	old := []accounting.Computer{{ID: 1, Connected: true, LastRPCAt: &quiet, ClientVersion: "7.12.1"}}
	bad := accounting.Summary{Last7: accounting.Totals{JobsOK: 5, JobsError: 5}, Last30: accounting.Totals{Clamped: 10}}
	var kinds []accounting.WarningKind
	for _, w := range append(accounting.Warnings(old, bad, now), accounting.Warnings(nil, bad, now)...) {
		if !slices.Contains(kinds, w.Kind) {
			kinds = append(kinds, w.Kind)
		}
	}
	if diff := cmp.Diff(sortedStrings(accounting.WarningKinds), sortedStrings(kinds)); diff != "" {
		t.Errorf("kinds given (-every kind +given):\n%s", diff)
	}
	for _, k := range accounting.WarningKinds {
		if strings.HasPrefix(k.String(), "Warning (") {
			t.Errorf("%s has no title: %q", string(k), k.String())
		}
	}
}
