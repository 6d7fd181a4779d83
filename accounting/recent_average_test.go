package accounting_test

import (
	"math"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

func TestRecentAverage(t *testing.T) {
	day := func(n int) time.Time { return time.Date(2026, 3, 1+n, 0, 0, 0, 0, time.UTC) }
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

	// Nothing granted: no average, and no time of one.
	if avg, at := accounting.RecentAverage([]accounting.TeamDay{{Day: day(0), Estimated: 5}}, day(3)); avg != 0 || !at.IsZero() {
		t.Errorf("without confirmed credit: %v at %v, want 0 at the zero time", avg, at)
	}

	// One day's credit is the rate over that day, at the day's end, and
	// halves in a week.
	one := []accounting.TeamDay{{Day: day(0), Confirmed: 700}}
	if avg, at := accounting.RecentAverage(one, day(1)); !near(avg, 700) || !at.Equal(day(1)) {
		t.Errorf("at the end of the day: %v at %v, want 700", avg, at)
	}
	if avg, _ := accounting.RecentAverage(one, day(8)); !near(avg, 350) {
		t.Errorf("a week later: %v, want 350", avg)
	}

	// The same credit every day tends to it: after 10 weeks, within 2^-10.
	var steady []accounting.TeamDay
	for n := range 70 {
		steady = append(steady, accounting.TeamDay{Day: day(n), Confirmed: 100})
	}
	if avg, _ := accounting.RecentAverage(steady, day(70)); math.Abs(avg-100) > 100.0/1024 {
		t.Errorf("after 70 days of 100: %v, want about 100", avg)
	}

	// BOINC's rule by hand: 100 on day 0, 300 on day 2 (two days later).
	w := math.Exp(-2 * math.Ln2 / 7)
	want := 100*w + (1-w)*300/2
	w1 := math.Exp(-1.5 * math.Ln2 / 7) // then decayed to day 4, noon
	two := []accounting.TeamDay{{Day: day(0), Confirmed: 100}, {Day: day(2), Confirmed: 300}}
	if avg, at := accounting.RecentAverage(two, day(4).Add(12*time.Hour)); !near(avg, want*w1) || !at.Equal(day(4).Add(12*time.Hour)) {
		t.Errorf("two grants: %v at %v, want %v", avg, at, want*w1)
	}

	// A day that has not ended by now is left out.
	if avg, _ := accounting.RecentAverage(two, day(2).Add(time.Hour)); !near(avg, 100*math.Exp(-(1+1.0/24)*math.Ln2/7)) {
		t.Errorf("the unfinished day counted: %v", avg)
	}
}
