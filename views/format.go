package views

import (
	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"

	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// credit formats an amount of credit for reading, in English: the admin
// pages'.
func credit(v float64) string { return locale.English().Credit(v) }

// ratio formats granted ÷ estimated, or a dash when there is none.
func ratio(v float64, estimated float64) string {
	if estimated <= 0 {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// when formats an instant in UTC, to the minute.
func when(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// whenPtr formats an optional instant.
func whenPtr(t *time.Time) string {
	if t == nil {
		return "–"
	}
	return when(*t)
}

// day formats a calendar day.
func day(t time.Time) string { return t.Format("2006-01-02") }

// duration formats a run's length for reading.
func duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// count formats a whole number with thousands separators.
func count(n int64) string { return locale.English().Int(n) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// plural says "1 orphan", "2 orphans", "0 orphans", with grouped digits.
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}

// osText names a host's operating system once: BOINC clients send a name
// ("Linux Ubuntu") and a version that often repeats it ("Ubuntu 24.04.1
// LTS [6.8.0-45-generic|libc 2.39]"); each word of the name is said once,
// and the kernel and C library in brackets are named as such:
// "Linux Ubuntu 24.04.1 LTS (kernel 6.8.0-45-generic, libc 2.39)".
func osText(name, version string) string {
	name, version = strings.TrimSpace(name), strings.TrimSpace(version)
	var kernel string
	if i := strings.Index(version, "["); i >= 0 && strings.HasSuffix(version, "]") {
		kernel = strings.ReplaceAll(strings.TrimSpace(version[i+1:len(version)-1]), "|", ", ")
		version = strings.TrimSpace(version[:i])
	}
	lower := strings.ToLower(version)
	var parts []string
	for _, w := range strings.Fields(name) {
		if !strings.Contains(lower, strings.ToLower(w)) {
			parts = append(parts, w)
		}
	}
	if version != "" {
		parts = append(parts, version)
	}
	if kernel != "" {
		parts = append(parts, "(kernel "+kernel+")")
	}
	if len(parts) == 0 {
		return "an unknown OS"
	}
	return strings.Join(parts, " ")
}

// hardwareText is a host's hardware in one line: "8 CPUs, Intel Core
// i7; 1 × NVIDIA".
func hardwareText(ncpus int, model string, coprocs []accounting.Coproc) string {
	s := strconv.Itoa(ncpus) + " CPUs"
	if model = strings.TrimSpace(model); model != "" {
		s += ", " + model
	}
	for _, g := range coprocs {
		s += "; " + strconv.Itoa(g.Count) + " × " + g.Type
	}
	return s
}

// medianText formats a median ratio, or a dash when there is none.
func medianText(m float64) string {
	if math.IsNaN(m) || m <= 0 {
		return "–"
	}
	return strconv.FormatFloat(m, 'f', 2, 64)
}
