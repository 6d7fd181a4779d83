package accounting

import (
	"math"
	"time"
)

// avgHalfLife is the half-life of the recent-average credit, as BOINC
// computes RAC: one week.
const avgHalfLife = 7 * 24 * time.Hour

// updateAverage decays avg (as of avgTime) to now and folds in work, the
// credit of an RPC, which covers span; elapsed is the time since the host's
// previous RPC. Like BOINC's RAC, the average loses the weight
// 1 − exp(−elapsed·ln2/half-life) and work/span (per day) gains it.
//
// Every project of a host is updated at the host's RPCs with the same
// elapsed and span, and span is at least the time the host's capacity
// needs for the RPC's whole credit (averageSpan). So if the host's
// averages summed to at most its capacity per day before an RPC, they do
// after it: the average never exceeds what the host can do, however short
// or bunched its RPCs.
func updateAverage(avg float64, avgTime time.Time, work float64, elapsed, span time.Duration, now time.Time) (float64, time.Time) {
	const day = 86400.0
	avg = decayedAverage(avg, avgTime, now)
	if work > 0 && elapsed > 0 && span > 0 {
		gain := -math.Expm1(-elapsed.Seconds() * math.Ln2 / avgHalfLife.Seconds())
		avg += gain * work / (span.Seconds() / day)
	}
	if avgTime.After(now) {
		now = avgTime
	}
	return avg, now
}

// averageSpan is the time an RPC's credit covers for the recent average:
// the time since the host's previous RPC, or, when the credit came partly
// from the carried-over budget, the time the host's capacity needs for it.
func averageSpan(c Capacity, cr creditResult) time.Duration {
	r := c.rates()
	perSecond := estimatedCredit(r.CPUEC, r.GPUEC) / microPerUnit
	span := cr.Elapsed
	if perSecond > 0 {
		need := time.Duration(cr.Spent.Credit() / perSecond * float64(time.Second))
		span = max(span, need+1) // +1 ns: never below the exact need after rounding
	}
	return span
}

// decayedAverage is avg as of now, decayed since avgTime.
func decayedAverage(avg float64, avgTime, now time.Time) float64 {
	if avgTime.IsZero() {
		return avg
	}
	diff := max(now.Sub(avgTime).Seconds(), 0)
	return avg * math.Exp(-diff*math.Ln2/avgHalfLife.Seconds())
}
