package views

import (
	"math"
	"testing"
)

func TestOSText(t *testing.T) {
	for _, c := range []struct{ name, version, want string }{
		{"Linux Debian", "Debian GNU/Linux 12 (bookworm) [6.1|libc 2.36]", "Debian GNU/Linux 12 (bookworm) [6.1|libc 2.36]"},
		{"Microsoft Windows 11", "Professional x64 Edition, (10.00.22631.00)", "Microsoft Windows 11 Professional x64 Edition, (10.00.22631.00)"},
		{"Darwin", "", "Darwin"},
		{"", "", "an unknown OS"},
	} {
		if got := osText(c.name, c.version); got != c.want {
			t.Errorf("osText(%q, %q) = %q, want %q", c.name, c.version, got, c.want)
		}
	}
}

func TestMedianText(t *testing.T) {
	for v, want := range map[float64]string{0: "–", math.NaN(): "–", 1.234: "1.23"} {
		if got := medianText(v); got != want {
			t.Errorf("medianText(%v) = %q, want %q", v, got, want)
		}
	}
}
