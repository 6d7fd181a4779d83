package accounting_test

import (
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// Who sees a project: the welcome page (Open), volunteers' settings
// (Choosable) and reconciliation (ReconciledFrom) each ask one rule.
func TestProjectVisibility(t *testing.T) {
	t.Parallel()
	const stats = "https://p.example.org/stats/"
	for _, c := range []struct {
		status           accounting.ProjectStatus
		statsURL, source string
		open, choosable  bool
		reconciled       bool
	}{
		{accounting.StatusActive, stats, "", true, true, true},
		{accounting.StatusPaused, stats, "", false, true, true},
		{accounting.StatusRetired, stats, "", false, false, false},
		{accounting.StatusActive, "", "", true, true, false},
		{accounting.StatusActive, "", "host.gz", true, true, true},
		{accounting.StatusPaused, "", "host.gz", false, true, true},
		{accounting.StatusRetired, "", "host.gz", false, false, false},
	} {
		p := accounting.Project{Status: c.status, StatsURL: c.statsURL}
		if got := p.Open(); got != c.open {
			t.Errorf("%s: Open() = %v, want %v", c.status, got, c.open)
		}
		if got := p.Choosable(); got != c.choosable {
			t.Errorf("%s: Choosable() = %v, want %v", c.status, got, c.choosable)
		}
		if got := p.ReconciledFrom(c.source); got != c.reconciled {
			t.Errorf("%s, stats URL %q: ReconciledFrom(%q) = %v, want %v", c.status, c.statsURL, c.source, got, c.reconciled)
		}
	}
}
