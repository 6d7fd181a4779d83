package reconcile

import (
	"testing"
	"time"
)

// staleExport is the one rule for a stale export: the overview's marks
// (States) and the project report's flag both ask it.
func TestStaleExport(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	for _, c := range []struct {
		name       string
		staleAfter time.Duration // 0: the default, 3 days
		export     *time.Time
		stale      bool
	}{
		{"no export yet", 0, nil, false},
		{"fresh", 0, at(time.Hour), false},
		{"just 3 days", 0, at(72 * time.Hour), false},
		{"older than 3 days", 0, at(72*time.Hour + time.Second), true},
		{"from the future", 0, at(-time.Hour), false},
		{"older than a shorter limit", 2 * time.Hour, at(3 * time.Hour), true},
		{"within a longer limit", 30 * 24 * time.Hour, at(10 * 24 * time.Hour), false},
	} {
		r := New(nil, nil, Options{StaleAfter: c.staleAfter, Now: func() time.Time { return now }})
		if got := r.staleExport(c.export); got != c.stale {
			t.Errorf("%s: staleExport = %v, want %v", c.name, got, c.stale)
		}
		pr := Report{LastRun: &Run{Status: RunOK, ExportTime: c.export}}
		pr.LastOK = pr.LastRun
		r.flag(&pr)
		if flagged := len(pr.Flags) > 0 && pr.Flags[0] == "stale export"; flagged != c.stale {
			t.Errorf("%s: the project report's flags %q disagree", c.name, pr.Flags)
		}
		r.Close()
	}
}
