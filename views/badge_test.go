package views

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// The badge speaks its owner's language, is well-formed SVG of 400×80,
// and its PNG decodes at the same size; a text too long for it is cut
// with an ellipsis.
func TestBadge(t *testing.T) {
	b := accounting.Badge{Handle: "ada-l", Totals: true, Confirmed: 1234567.8, Last30: 4321, Areas: []int{9, 1, 16}, Site: "Cobble"}
	for _, tt := range []struct{ lang, want string }{
		{"en", "1,234,568 confirmed credit · 4,321 in 30 days"},
		{"de", "1.234.568 bestätigte Credits · 4.321 in 30 Tagen"},
	} {
		l := locale.Default().Get(tt.lang)
		svg := BadgeSVG(l, b)
		if !strings.Contains(string(svg), tt.want) || !strings.Contains(string(svg), `width="400" height="80"`) {
			t.Errorf("%s badge:\n%s\nwant %q", tt.lang, svg, tt.want)
		}
		if err := xml.Unmarshal(svg, new(struct{})); err != nil {
			t.Errorf("%s badge is not well-formed XML: %v", tt.lang, err)
		}
		data, err := BadgePNG(l, b)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil || img.Bounds().Dx() != BadgeWidth || img.Bounds().Dy() != BadgeHeight {
			t.Errorf("%s PNG: %v, %v", tt.lang, img.Bounds(), err)
		}
	}
	long := strings.Repeat("Artificial Intelligence ", 6)
	if got := (badgeFaces{}).fitText(long, 12, false, 376); !strings.HasSuffix(got, "…") || len(got) >= len(long) {
		t.Errorf("a long line is not cut: %q", got)
	}
	if got := (badgeFaces{}).fitText("Physics", 12, false, 376); got != "Physics" {
		t.Errorf("a short line is changed: %q", got)
	}
}

// A badge whose profile shows neither totals nor areas draws the handle
// and the site's name, nothing else.
func TestBadgeShowsOnlyTheHandle(t *testing.T) {
	l := locale.Default().Get("en")
	got := badgeLines(l, accounting.Badge{Handle: "ada-l", Site: "Cobble"})
	if len(got) != 2 || got[0].text != "ada-l" || got[1].text != "BOINC volunteer computing with Cobble" {
		t.Errorf("badge lines: %+v", got)
	}
}
