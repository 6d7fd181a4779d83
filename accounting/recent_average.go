package accounting

import (
	"math"
	"time"
)

// Recent average credit, as BOINC's projects keep it (update_average in
// BOINC's lib/util.cpp) and publish it in their statistics exports as
// expavg_credit and expavg_time: Cobblestones a day, decaying by half in
// a week without new credit (avgHalfLife, average.go).

// RecentAverage is BOINC's recent average of the confirmed credit of
// days (oldest first, as TeamDay's; days are midnight UTC of the
// credited day), as of now: each day's credit counts as granted at the
// end of its day, and the average is updated by BOINC's rule at each day
// with credit, then decayed to now. Days that end after now are left
// out. at is now, or the zero time when no day has credit (BOINC's
// expavg_time of someone never granted any).
func RecentAverage(days []TeamDay, now time.Time) (avg float64, at time.Time) {
	for _, d := range days {
		end := d.Day.Add(24 * time.Hour)
		if d.Confirmed == 0 || end.After(now) {
			continue
		}
		if at.IsZero() {
			// The first credit: the rate over the day it was earned in.
			avg, at = d.Confirmed, end
			continue
		}
		avg, at = grantAverage(avg, at, d.Confirmed, end), end
	}
	if at.IsZero() {
		return 0, time.Time{}
	}
	return grantAverage(avg, at, 0, now), now
}

// grantAverage is BOINC's update of the recent average avg, last
// updated at, with work Cobblestones granted at now: the old average
// decays by the time since, and the work counts as a rate over that
// time, weighted so that the half-life holds. For a time too short to
// divide by, the limit of the same rule is used.
func grantAverage(avg float64, at time.Time, work float64, now time.Time) float64 {
	diff := max(now.Sub(at), 0).Seconds()
	weight := math.Exp(-diff * math.Ln2 / avgHalfLife.Seconds())
	avg *= weight
	if 1-weight > 1e-6 {
		return avg + (1-weight)*work/(diff/86400)
	}
	return avg + math.Ln2*work*86400/avgHalfLife.Seconds()
}
