package views

import (
	"context"
	"strings"
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
	}, ExportDays: map[int64]time.Time{0: from.AddDate(0, 0, 2)}}
	for _, byProject := range []bool{false, true} {
		h.ByProject = byProject
		c := historyChart(en, h)
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

// Confirmed credit is known only up to each project's latest export: the
// line ends at the earliest of them instead of falling to 0, the tables
// show a dash after it, and the pages say up to which day it is known.
func TestConfirmedEndsAtTheExportDays(t *testing.T) {
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	at := func(d int) time.Time { return from.AddDate(0, 0, d) }
	h := History{From: from, To: at(5), Days: 30, BasePath: "/"}
	for d := range 6 {
		h.Rows = append(h.Rows,
			accounting.HistoryDay{Day: at(d), ProjectID: 1, ProjectName: "A", CPUEC: 10, Confirmed: 9},
			accounting.HistoryDay{Day: at(d), ProjectID: 2, ProjectName: "B", GPUEC: 5})
	}
	h.Rows[4].Confirmed = 0 // day 2 of A: granted nothing, and that is known

	if _, ok := h.ConfirmedThrough(); ok {
		t.Error("with no export, confirmed credit is said to be known")
	}
	c := historyChart(en, h)
	if line := c.Series[len(c.Series)-1]; !line.Partial || len(line.Values) != 0 {
		t.Errorf("with no export the confirmed line has %d values (partial %v), want none", len(line.Values), line.Partial)
	}

	h.ExportDays = map[int64]time.Time{1: at(3), 2: at(4), 3: at(0)} // project 3 has no rows
	if through, ok := h.ConfirmedThrough(); !ok || !through.Equal(at(3)) {
		t.Fatalf("confirmed known through %v (%v), want %v", through, ok, at(3))
	}
	c = historyChart(en, h)
	line := c.Series[len(c.Series)-1]
	if want := []float64{9, 9, 0, 9}; !line.Partial || len(line.Values) != 4 || line.Values[2] != 0 || line.Values[3] != 9 {
		t.Errorf("confirmed line %v (partial %v), want %v", line.Values, line.Partial, want)
	}
	for _, want := range []string{"Estimated credit per day, last 30 days, 90 in all, highest 1 Mar 2026",
		"confirmed credit known up to 4 Mar 2026"} {
		if !strings.Contains(c.Title, want) {
			t.Errorf("the chart's text alternative %q lacks %q", c.Title, want)
		}
	}
	var svg strings.Builder
	if err := DailyChart(c).Render(context.Background(), &svg); err != nil {
		t.Fatal(err)
	}
	out := svg.String()
	if n := strings.Count(out, `class="dot"`); n != 4 {
		t.Errorf("%d points on the confirmed line, want 4", n)
	}
	if !strings.Contains(out, "Fri 6 Mar 2026 — Estimated, CPU: 10; Estimated, GPU: 5; Confirmed: not known yet") ||
		!strings.Contains(out, "Confirmed (line): known to 4 Mar 2026, latest 9") {
		t.Errorf("the unknown days are not said to be unknown:\n%s", out)
	}

	var page strings.Builder
	d := DashboardPage{History: h, Summary: accounting.Summary{Today: accounting.Totals{Confirmed: 0}, Last7: accounting.Totals{Confirmed: 27}}}
	if err := totalsTable(d.Summary, h).Render(context.Background(), &page); err != nil {
		t.Fatal(err)
	}
	if err := historySection("t", h).Render(context.Background(), &page); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	if n := strings.Count(html, `<abbr title="not known yet">–</abbr>`); n != 2+2 {
		t.Errorf("%d cells say confirmed credit is not known, want 4 (today, yesterday, two days)", n)
	}
	if !strings.Contains(html, "Confirmed credit is known up to 4 Mar 2026") {
		t.Errorf("the tables do not say up to which day confirmed credit is known:\n%s", html)
	}
}

// A partial line with no known day draws nothing; one with some ends there.
func TestPartialLineEnds(t *testing.T) {
	days := []time.Time{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)}
	for known, want := range map[int]int{0: 0, 2: 2, 3: 3} {
		c := Chart{Days: days, Series: []Series{{Name: "est", Values: []float64{1, 2, 3}},
			{Name: "conf", Values: []float64{4, 5, 6}[:known], Kind: Line, Partial: true}}}
		v := layoutChart(en, c)
		got := 0
		if len(v.Lines) == 1 {
			got = len(strings.Fields(v.Lines[0].Points))
		} else if len(v.Lines) > 1 {
			t.Fatalf("%d lines", len(v.Lines))
		}
		if got != want {
			t.Errorf("%d known days: line of %d points, want %d", known, got, want)
		}
	}
}
