package views

import (
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// Days read from the database may carry another location than the
// window's days: they must still land on their day.
func TestHistoryChartPlacesDaysOfAnyLocation(t *testing.T) {
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	local := time.FixedZone("elsewhere", 0)
	h := History{From: from, To: from.AddDate(0, 0, 2), Rows: []accounting.HistoryDay{
		{Day: from.AddDate(0, 0, 1).In(local), ProjectName: "P", CPUEC: 2, GPUEC: 1, Confirmed: 4},
	}}
	for _, byProject := range []bool{false, true} {
		h.ByProject = byProject
		c := historyChart("t", h)
		var bars, line float64
		for _, s := range c.Series {
			if s.Kind == Bars {
				bars += s.Values[1]
			} else {
				line += s.Values[1]
			}
		}
		if len(c.Days) != 3 || bars != 3 || line != 4 {
			t.Errorf("by project %v: %d days, bars %v, line %v; want 3, 3, 4", byProject, len(c.Days), bars, line)
		}
	}
	if d := dailyTotals(h); len(d) != 1 || d[0].CPUEC+d[0].GPUEC != 3 {
		t.Errorf("daily totals %+v", d)
	}
}
