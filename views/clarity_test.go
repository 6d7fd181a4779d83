package views

import (
	"math"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

func TestOSText(t *testing.T) {
	for _, c := range []struct{ name, version, want string }{
		{"Linux Debian", "Debian GNU/Linux 12 (bookworm) [6.1|libc 2.36]", "Debian GNU/Linux 12 (bookworm) (kernel 6.1, libc 2.36)"},
		{"Linux Ubuntu", "Ubuntu 24.04.1 LTS [6.8.0-45-generic|libc 2.39]", "Linux Ubuntu 24.04.1 LTS (kernel 6.8.0-45-generic, libc 2.39)"},
		{"Microsoft Windows 11", "Professional x64 Edition, (10.00.22631.00)", "Microsoft Windows 11 Professional x64 Edition, (10.00.22631.00)"},
		{"Darwin", "", "Darwin"},
		{"", "", "an unknown OS"},
	} {
		if got := osText(c.name, c.version); got != c.want {
			t.Errorf("osText(%q, %q) = %q, want %q", c.name, c.version, got, c.want)
		}
	}
}

// The admin host page's hardware line has no space before its comma
// (issue 45, item 13).
func TestHardwareText(t *testing.T) {
	got := hardwareText(8, "Intel Core i7 ", []accounting.Coproc{{Type: "NVIDIA", Count: 1}})
	if want := "8 CPUs, Intel Core i7; 1 × NVIDIA"; got != want {
		t.Errorf("hardwareText = %q, want %q", got, want)
	}
}

func TestMedianText(t *testing.T) {
	for v, want := range map[float64]string{0: "–", math.NaN(): "–", 1.234: "1.23"} {
		if got := medianText(v); got != want {
			t.Errorf("medianText(%v) = %q, want %q", v, got, want)
		}
	}
}
