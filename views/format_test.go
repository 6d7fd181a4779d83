package views

import (
	"math"
	"testing"
)

func TestCredit(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 0.001: "< 0.01", 3.14159: "3.14", 123.45: "123", -2.5: "-2.5", 750: "750", 9011.2: "9,011",
		12345.6: "12,346", 1234567: "1,234,567", -9876543.2: "-9,876,543", math.NaN(): "–"} {
		if got := credit(v); got != want {
			t.Errorf("credit(%v) = %q, want %q", v, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}
