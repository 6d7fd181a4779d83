package accounting

import (
	"math"
	"time"
)

// avgHalfLife is the half-life of the recent-average credit, as BOINC
// computes RAC: one week.
const avgHalfLife = 7 * 24 * time.Hour

// updateAverage folds work (credit earned since workStart) into an average of
// credit per day with a one-week half-life, the way BOINC updates RAC.
func updateAverage(avg float64, avgTime time.Time, work float64, workStart, now time.Time) (float64, time.Time) {
	const day = 86400.0
	halfLife := avgHalfLife.Seconds()
	switch {
	case !avgTime.IsZero():
		diff := max(now.Sub(avgTime).Seconds(), 0)
		weight := math.Exp(-diff * math.Ln2 / halfLife)
		avg *= weight
		if 1-weight > 1e-6 {
			avg += (1 - weight) * work / (diff / day)
		} else {
			avg += math.Ln2 * work * day / halfLife
		}
	case work > 0:
		if days := now.Sub(workStart).Seconds() / day; days > 0 {
			avg = work / days
		}
	}
	return avg, now
}

// decayedAverage is avg as of now, decayed since avgTime.
func decayedAverage(avg float64, avgTime, now time.Time) float64 {
	if avgTime.IsZero() {
		return avg
	}
	diff := max(now.Sub(avgTime).Seconds(), 0)
	return avg * math.Exp(-diff*math.Ln2/avgHalfLife.Seconds())
}
