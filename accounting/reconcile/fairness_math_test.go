package reconcile

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestQuantileAndMedian(t *testing.T) {
	tests := []struct {
		values       []float64
		median, q1   float64
		q3, wantLast float64
	}{
		{[]float64{3, 1, 2}, 2, 1.5, 2.5, 3},
		{[]float64{4, 1, 3, 2}, 2.5, 1.75, 3.25, 4},
		{[]float64{7}, 7, 7, 7, 7},
	}
	for _, tt := range tests {
		sorted := slices.Sorted(slices.Values(tt.values))
		got := []float64{median(slices.Clone(tt.values)), quantile(sorted, 0.25), quantile(sorted, 0.75), quantile(sorted, 1)}
		want := []float64{tt.median, tt.q1, tt.q3, tt.wantLast}
		if !slices.Equal(got, want) {
			t.Errorf("%v: median, q1, q3, max = %v, want %v", tt.values, got, want)
		}
	}
	if !math.IsNaN(median(nil)) || !math.IsNaN(quantile(nil, 0.5)) {
		t.Error("the median of nothing is a number")
	}
}

// selectNth agrees with sorting, on values with many ties too.
func TestSelectNthAgreesWithSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		n := 1 + rng.IntN(60)
		vs := make([]float64, n)
		for i := range vs {
			vs[i] = float64(rng.IntN(1 + round%10))
		}
		sorted := slices.Sorted(slices.Values(vs))
		k := rng.IntN(n)
		if got := selectNth(slices.Clone(vs), k); got != sorted[k] {
			t.Fatalf("rank %d of %v: %v, want %v", k, vs, got, sorted[k])
		}
		if got, want := median(slices.Clone(vs)), quantile(sorted, 0.5); got != want {
			t.Fatalf("median of %v: %v, want %v", vs, got, want)
		}
	}
}

// The bootstrap interval is reproducible, holds the median, and narrows
// as the sample grows.
func TestBootstrapMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sample := func(n int) []float64 {
		vs := make([]float64, n)
		for i := range vs {
			vs[i] = 1 + rng.NormFloat64()*0.1
		}
		return vs
	}
	small, large := sample(25), sample(2500)
	a, b := bootstrapMedian(small, 7), bootstrapMedian(slices.Clone(small), 7)
	if a != b {
		t.Errorf("two intervals of one sample with one seed differ: %v, %v", a, b)
	}
	m := median(slices.Clone(small))
	if !(a.Low <= m && m <= a.High) || a.Low == a.High {
		t.Errorf("interval %v does not hold the median %v", a, m)
	}
	l := bootstrapMedian(large, 7)
	if l.High-l.Low >= a.High-a.Low || !(l.Low < 1 && 1 < l.High) {
		t.Errorf("interval of 2500 values %v is no narrower than of 25 %v, or misses 1", l, a)
	}
}

func TestOrderInterval(t *testing.T) {
	vs := make([]float64, 100)
	for i := range vs {
		vs[i] = float64(i)
	}
	// 50 ∓ 9.8: ranks 40 and 60.
	if got := orderInterval(vs); got != (Interval{40, 60}) {
		t.Errorf("interval of 0..99: %v, want {40 60}", got)
	}
	if got := orderInterval([]float64{5}); got != (Interval{5, 5}) {
		t.Errorf("interval of one value: %v", got)
	}
}

// resampleMedian's median of a resample is the median of the values it
// drew: the same draws, sorted and halved the long way, agree.
func TestResampleMedianIsTheDrawsMedian(t *testing.T) {
	for n := 1; n <= 40; n++ {
		sorted := make([]float64, n)
		for i := range sorted {
			sorted[i] = float64(i * i % 7) // ties too
		}
		slices.Sort(sorted)
		a, b := rand.New(rand.NewPCG(9, uint64(n))), rand.New(rand.NewPCG(9, uint64(n)))
		counts := make([]int32, n)
		for range 20 {
			got := resampleMedian(sorted, counts, a)
			draws := make([]float64, n)
			for i := range draws {
				draws[i] = sorted[b.IntN(n)]
			}
			slices.Sort(draws)
			if want := quantile(draws, 0.5); got != want {
				t.Fatalf("n %d: %v, want %v", n, got, want)
			}
		}
	}
}
