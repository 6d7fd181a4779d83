package reconcile

import (
	"math"
	"math/rand/v2"
	"slices"
)

// bootstrapRounds is how many resamples a bootstrap interval draws; the
// generator's seed is fixed, so that the same hosts give the same interval.
const bootstrapRounds = 1000

// quantile returns the q-quantile of sorted values (0 ≤ q ≤ 1), linearly
// interpolated between the two nearest ranks, as PostgreSQL's
// percentile_cont does; NaN for no values.
func quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	pos := q * float64(n-1)
	lo := int(math.Floor(pos))
	if lo >= n-1 {
		return sorted[n-1]
	}
	frac := pos - float64(lo)
	return sorted[lo] + frac*(sorted[lo+1]-sorted[lo])
}

// median returns the median of values (left in any order); NaN for none.
func median(values []float64) float64 {
	n := len(values)
	if n == 0 {
		return math.NaN()
	}
	hi := selectNth(values, n/2)
	if n%2 == 1 {
		return hi
	}
	// The other middle value is the largest of the lower half.
	return (hi + slices.Max(values[:n/2])) / 2
}

// selectNth reorders values so that values[k] is the value of rank k
// (0-based), smaller ones before it and larger ones after, and returns it:
// a quickselect with the middle element as pivot.
func selectNth(values []float64, k int) float64 {
	lo, hi := 0, len(values)-1
	for lo < hi {
		pivot := values[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for values[i] < pivot {
				i++
			}
			for values[j] > pivot {
				j--
			}
			if i <= j {
				values[i], values[j] = values[j], values[i]
				i, j = i+1, j-1
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return values[k]
		}
	}
	return values[k]
}

// bootstrapMedian returns a 95 % percentile-bootstrap interval of the
// median of values: the 2.5th and 97.5th percentiles of the medians of
// bootstrapRounds resamples drawn with a generator seeded by seed.
func bootstrapMedian(values []float64, seed uint64) Interval {
	n := len(values)
	if n == 0 {
		return Interval{math.NaN(), math.NaN()}
	}
	sorted := slices.Sorted(slices.Values(values))
	rng := rand.New(rand.NewPCG(seed, 0x43524544)) // fixed stream: reproducible
	counts := make([]int32, n)
	medians := make([]float64, bootstrapRounds)
	for r := range medians {
		medians[r] = resampleMedian(sorted, counts, rng)
	}
	slices.Sort(medians)
	return Interval{quantile(medians, 0.025), quantile(medians, 0.975)}
}

// resampleMedian draws len(sorted) values of sorted with replacement and
// returns their median. It counts how often each rank is drawn (in
// counts, cleared first) and walks the counts to the middle ranks, so
// that a resample costs no sort.
func resampleMedian(sorted []float64, counts []int32, rng *rand.Rand) float64 {
	n := len(sorted)
	clear(counts)
	for range n {
		counts[rng.IntN(n)]++
	}
	lo, hi := (n-1)/2, n/2 // the middle ranks, one for odd n
	seen, low := 0, 0.0
	for i, c := range counts {
		next := seen + int(c)
		if seen <= lo && lo < next {
			low = sorted[i]
		}
		if seen <= hi && hi < next {
			return (low + sorted[i]) / 2
		}
		seen = next
	}
	return low
}

// summary is a sample's median, its 95 % bootstrap interval and its
// quartiles.
type summary struct {
	Median float64
	CI95   Interval
	IQR    Interval
}

// summarize returns the summary of values (not changed), bootstrapped with
// seed.
func summarize(values []float64, seed uint64) summary {
	sorted := slices.Sorted(slices.Values(values))
	return summary{Median: quantile(sorted, 0.5), CI95: bootstrapMedian(sorted, seed),
		IQR: Interval{quantile(sorted, 0.25), quantile(sorted, 0.75)}}
}

// enough reports whether hosts on volunteers distinct volunteers are
// enough to show figures.
func enough(hosts, volunteers int) bool {
	return hosts >= MinFairHosts && volunteers >= MinFairVolunteers
}

// volunteersOf counts the distinct volunteers of hosts.
func volunteersOf(hosts []CreditHost) int {
	seen := map[int64]bool{}
	for _, h := range hosts {
		seen[h.UserID] = true
	}
	return len(seen)
}

// ratios returns the hosts' ratios.
func ratios(hosts []CreditHost) []float64 {
	out := make([]float64, len(hosts))
	for i, h := range hosts {
		out[i] = h.Ratio()
	}
	return out
}
