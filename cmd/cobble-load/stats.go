package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// stats are the outcomes of the measured part of a timed phase.
type stats struct {
	sent, ok int
	errors   map[string]int  // failures by kind
	lat      []time.Duration // of the successful calls
	elapsed  time.Duration   // from the start of measuring until the last call ended
}

// newStats returns stats with room for about n latencies.
func newStats(n int) stats {
	return stats{errors: map[string]int{}, lat: make([]time.Duration, 0, n)}
}

// record counts one call: kind is "" for a success.
func (s *stats) record(kind string, took time.Duration) {
	s.sent++
	if kind != "" {
		s.errors[kind]++
		return
	}
	s.ok++
	s.lat = append(s.lat, took)
}

// mergeStats adds up the workers' stats.
func mergeStats(ws []*worker, elapsed time.Duration) stats {
	n := 0
	for _, w := range ws {
		n += len(w.stats.lat)
	}
	all := newStats(n)
	all.elapsed = elapsed
	for _, w := range ws {
		all.sent += w.stats.sent
		all.ok += w.stats.ok
		for k, v := range w.stats.errors {
			all.errors[k] += v
		}
		all.lat = append(all.lat, w.stats.lat...)
	}
	slices.Sort(all.lat)
	return all
}

// failed is the number of failed calls.
func (s stats) failed() int { return s.sent - s.ok }

// perSecond is the rate of successful calls.
func (s stats) perSecond() float64 {
	if s.elapsed <= 0 {
		return 0
	}
	return float64(s.ok) / s.elapsed.Seconds()
}

// percentile returns the q-quantile (0 < q ≤ 1) of the sorted latencies,
// by the nearest-rank method.
func (s stats) percentile(q float64) time.Duration {
	if len(s.lat) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(s.lat)))) - 1
	return s.lat[min(max(i, 0), len(s.lat)-1)]
}

// latencyLine is "p50 … p90 … p99 … max …" in milliseconds.
func (s stats) latencyLine() string {
	return fmt.Sprintf("p50 %s  p90 %s  p99 %s  max %s", ms(s.percentile(0.5)), ms(s.percentile(0.9)),
		ms(s.percentile(0.99)), ms(s.percentile(1)))
}

// errorLines lists the failures by kind, most frequent first, with 503s
// (Cobble's "try again later") first of all.
func (s stats) errorLines() []string {
	kinds := slices.SortedFunc(maps.Keys(s.errors), func(a, b string) int {
		if (a == "HTTP 503") != (b == "HTTP 503") {
			if a == "HTTP 503" {
				return -1
			}
			return 1
		}
		if s.errors[a] != s.errors[b] {
			return s.errors[b] - s.errors[a]
		}
		return strings.Compare(a, b)
	})
	lines := make([]string, len(kinds))
	for i, k := range kinds {
		lines[i] = fmt.Sprintf("%s: %d", k, s.errors[k])
	}
	return lines
}

// ms formats d in milliseconds.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
