package views

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// A phone's chart is drawn at a phone's width, whole: 30 days keep a bar
// each, today's included; a year becomes weeks, the last ending today,
// with the same total; a confirmed line keeps only the weeks it knows.
func TestPhoneChart(t *testing.T) {
	l := locale.Default().Get("en")
	series := func(n, known int) []Series {
		return []Series{{Name: "CPU", Values: repeat(1, n), Class: "cpu"},
			{Name: "Confirmed", Values: repeat(2, known), Kind: Line, Partial: true}}
	}
	month := phoneChart(l, Chart{Days: days(30, jan1), Series: series(30, 10)})
	if month.Width != phoneChartWidth || len(month.Days) != 30 || month.Weeks || !month.Days[29].Equal(jan1.AddDate(0, 0, 29)) {
		t.Errorf("30 days: %d wide, %d days (weeks %v)", month.Width, len(month.Days), month.Weeks)
	}
	root, _ := renderChart(t, month)
	if n := len(root.bars()); n != 30 {
		t.Errorf("30 days: %d bars drawn, want 30", n)
	}
	year := phoneChart(l, Chart{Days: days(365, jan1), Series: series(365, 200)})
	last := jan1.AddDate(0, 0, 364)
	if len(year.Days) != 53 || !year.Weeks || !year.Days[52].Equal(last) || !year.Days[51].Equal(last.AddDate(0, 0, -7)) {
		t.Fatalf("365 days: %d positions, the last %v (weeks %v)", len(year.Days), year.Days[len(year.Days)-1], year.Weeks)
	}
	total := 0.0
	for _, v := range year.Series[0].Values {
		total += v
	}
	if total != 365 || year.Series[0].Values[52] != 7 || year.Series[0].Values[0] != 1 {
		t.Errorf("365 days: weekly sums total %v, last week %v, first %v", total, year.Series[0].Values[52], year.Series[0].Values[0])
	}
	// Day 199 (index) is the last known; weeks end at 364-7k: 196 is the last week's end ≤ 199.
	if got := len(year.Series[1].Values); got != 53-(364-196)/7 {
		t.Errorf("the confirmed line knows %d weeks", got)
	}
	root, text := renderChart(t, year)
	if n := len(root.bars()); n != 53 {
		t.Errorf("365 days: %d bars drawn, want 53", n)
	}
	if !strings.Contains(text, "53 weeks, to 31 Dec 2025") || !strings.Contains(text, "credit per week") {
		t.Errorf("the chart of weeks does not say it counts weeks:\n%s", text)
	}
}

// The dashboard's history holds a wide chart and a phone's chart.
func TestHistoryHasPhoneChart(t *testing.T) {
	to := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	h := History{From: to.AddDate(0, 0, -364), To: to, Days: 365, BasePath: "/",
		Rows: []accounting.HistoryDay{{Day: to, CPUEC: 5}}}
	page := renderIn(t, locale.Default().Get("de"), historySection("x", h))
	for _, want := range []string{`class="chart-wide"`, `class="chart-phone"`, `viewBox="0 0 ` + strconv.Itoa(phoneChartWidth) + ` `, "Credits pro Woche"} {
		if !strings.Contains(page, want) {
			t.Errorf("no %s in the history", want)
		}
	}
	if strings.Contains(page, "scrolls sideways") || strings.Contains(page, `class="scroll chart-box"`) {
		t.Error("the volunteer's chart still scrolls sideways")
	}
}
