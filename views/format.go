package views

import (
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
// ("Linux Debian") and a version that often repeats it ("Debian GNU/Linux
// 12 …"); the version alone says it all when it holds every word of the name.
func osText(name, version string) string {
	name, version = strings.TrimSpace(name), strings.TrimSpace(version)
	switch {
	case name == "" && version == "":
		return "an unknown OS"
	case version == "":
		return name
	}
	lower := strings.ToLower(version)
	for _, w := range strings.Fields(strings.ToLower(name)) {
		if !strings.Contains(lower, w) {
			return name + " " + version
		}
	}
	return version
}

// medianText formats a median ratio, or a dash when there is none.
func medianText(m float64) string {
	if math.IsNaN(m) || m <= 0 {
		return "–"
	}
	return strconv.FormatFloat(m, 'f', 2, 64)
}
