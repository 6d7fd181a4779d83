package views

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// The compute settings' location switcher sets each location apart: one
// list item each, after the label, never "Defaultwork".
func TestLocationSwitcherSeparates(t *testing.T) {
	for _, code := range []string{"en", "de"} {
		page := renderIn(t, locale.Default().Get(code), ComputeSection(PrefsForm{Location: "work", Locations: []string{"", "work", "home"}}))
		nav := regexp.MustCompile(`(?s)<nav [^>]*class="location-tabs">(.*?)</nav>`).FindStringSubmatch(page)
		if nav == nil {
			t.Fatalf("%s: no switcher:\n%s", code, page)
		}
		if n := strings.Count(nav[1], "<li>"); n != 3 {
			t.Errorf("%s: %d list items for 3 locations:\n%s", code, n, nav[1])
		}
	}
}

// Hours read like the credit beside them: none is "0", not "0.0", and a
// whole number of hours has no ".0".
func TestHoursFormats(t *testing.T) {
	en, de := locale.Default().Get("en"), locale.Default().Get("de")
	for _, tc := range []struct {
		h      float64
		en, de string
	}{{0, "0", "0"}, {2, "2", "2"}, {2.5, "2.5", "2,5"}, {0.01, "< 0.1", "< 0,1"}, {12.4, "12", "12"}, {1234.6, "1,235", "1.235"}} {
		if got := hoursIn(en, tc.h); got != tc.en {
			t.Errorf("en hoursIn(%v) = %q, want %q", tc.h, got, tc.en)
		}
		if got := hoursIn(de, tc.h); got != tc.de {
			t.Errorf("de hoursIn(%v) = %q, want %q", tc.h, got, tc.de)
		}
	}
}

// A computer's system reads once: the distribution BOINC names in both
// fields appears once, without the kernel's bracket.
func TestPlatformOnce(t *testing.T) {
	for _, tc := range []struct {
		name, version, platform, want string
	}{
		{"Linux Debian", "Debian GNU/Linux 12 (bookworm) [6.18.0-1-amd64|libc 2.36]", "x86_64-pc-linux-gnu", "Debian GNU/Linux 12 (bookworm) (x86_64-pc-linux-gnu)"},
		{"Linux Ubuntu", "Ubuntu 24.04.1 LTS [6.8.0-45-generic|libc 2.39]", "", "Linux Ubuntu 24.04.1 LTS"},
		{"Microsoft Windows 11", "Professional x64 Edition, (10.00.22631.00)", "windows_x86_64", "Microsoft Windows 11 Professional x64 Edition, (10.00.22631.00) (windows_x86_64)"},
		{"Darwin", "23.4.0", "", "Darwin 23.4.0"},
		{"", "", "", "–"},
	} {
		c := accounting.Computer{OSName: tc.name, OSVersion: tc.version, Platform: tc.platform}
		if got := platform(c); got != tc.want {
			t.Errorf("platform(%q, %q) = %q, want %q", tc.name, tc.version, got, tc.want)
		}
	}
}

// With no credit in the window, the history does not claim that Cobble
// has not read the projects' statistics: it may have, and the computer
// is not in them yet, or there is no project at all.
func TestNoFalseStatisticsClaim(t *testing.T) {
	to := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	for _, exports := range []map[int64]time.Time{nil, {1: to.AddDate(0, 0, -2)}} {
		h := History{From: to.AddDate(0, 0, -29), To: to, Days: 30, BasePath: "/", ExportDays: exports}
		for _, code := range []string{"en", "de"} {
			l := locale.Default().Get(code)
			if page := renderIn(t, l, historySection("x", h)); strings.Contains(page, l.T("history.no_confirmed")) {
				t.Errorf("%s, exports %v: the empty history says %q", code, exports, l.T("history.no_confirmed"))
			}
		}
	}
	h := History{From: to.AddDate(0, 0, -29), To: to, Days: 30, BasePath: "/", Rows: []accounting.HistoryDay{{Day: to, ProjectID: 1, CPUEC: 3}}}
	if page := renderIn(t, locale.Default().Get("en"), historySection("x", h)); !strings.Contains(page, "has not read") {
		t.Error("credit of a project never read no longer says its statistics were not read")
	}
}

// Each preset is explained before it is chosen, in both languages, and the
// words name its disk limit, so that they follow its values.
func TestPresetsExplained(t *testing.T) {
	for _, code := range []string{"en", "de"} {
		page := renderIn(t, locale.Default().Get(code), ComputeSection(PrefsForm{}))
		for _, name := range []string{accounting.PresetStandard, accounting.PresetLowPower, accounting.PresetMaximum} {
			v, _ := accounting.Preset(name)
			what := presetWhat(locale.With(context.Background(), locale.Default().Get(code)), name)
			if what == "" || !strings.Contains(page, what) || !strings.Contains(what, strconv.FormatFloat(v.DiskMaxGB, 'f', -1, 64)+" GB") {
				t.Errorf("%s: preset %s explained as %q", code, name, what)
			}
		}
	}
}
