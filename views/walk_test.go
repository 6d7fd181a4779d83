package views

import (
	"regexp"
	"strings"
	"testing"

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
