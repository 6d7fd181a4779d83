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
