package views

import (
	"context"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/internal/locale"
)

// The credit page's summary states the range of the ratios and of the
// GPU ÷ CPU figures of the projects with enough data, a single project's
// figures as such, and that there are too few data when no project has
// enough (issue 45, item 9).
func TestCreditSummaryText(t *testing.T) {
	ratio := func(v float64) *float64 { return &v }
	enough := func(name string, median float64, gpu *float64) reconcile.ProjectFairness {
		return reconcile.ProjectFairness{Name: name, Enough: true, Median: median, GPUvsCPU: gpu}
	}
	few := reconcile.ProjectFairness{Name: "Few"}
	for _, c := range []struct {
		name, lang string
		projects   []reconcile.ProjectFairness
		want       string
	}{
		{"range", "en", []reconcile.ProjectFairness{enough("A", 1.4, ratio(2.1)), enough("B", 0.6, nil),
			enough("C", 0.9, ratio(1.25)), few}, "In short: over the last 30 days, the 3 projects with enough data " +
			"granted between 0.60 × (B) and 1.40 × (A) the credit the BOINC client estimated for the same work " +
			"(1 × is exactly the estimate).|1 other project has too little data yet and is left out.|" +
			"Computers working on a graphics card were granted between 1.25 × (C) and 2.10 × (A) what computers " +
			"using only their processors were granted for the same estimated work."},
		{"one", "de", []reconcile.ProjectFairness{few, enough("A", 1.4, ratio(2.1)), few}, "Kurz gesagt: In den " +
			"letzten 30 Tagen hat A das 1,40-Fache des Credits vergeben, den der BOINC-Client für dieselbe Arbeit " +
			"geschätzt hat (das 1-Fache wäre genau die Schätzung).|2 weitere Projekte haben noch zu wenige Daten und " +
			"sind nicht mitgezählt.|Bei A bekamen Computer, die auf einer Grafikkarte arbeiteten, das 2,10-Fache " +
			"dessen, was Computer nur mit Prozessor für dieselbe geschätzte Arbeit bekamen."},
		{"same", "en", []reconcile.ProjectFairness{enough("A", 0.981, ratio(2.1)), enough("B", 0.979, ratio(2.104))},
			"In short: over the last 30 days, the 2 projects with enough data all granted about 0.98 × the credit " +
				"the BOINC client estimated for the same work (1 × is exactly the estimate).|On the 2 projects with " +
				"enough computers of both kinds, computers working on a graphics card were granted about 2.10 × what " +
				"computers using only their processors were granted for the same estimated work."},
		{"none", "en", []reconcile.ProjectFairness{few}, "Over the last 30 days no project has enough data for " +
			"figures yet: each needs at least 20 computers of 5 volunteers."},
	} {
		ctx := locale.With(context.Background(), locale.Default().Get(c.lang))
		got := strings.Join(creditSummaryText(ctx, reconcile.Fairness{WindowDays: 30, Projects: c.projects}), "|")
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
