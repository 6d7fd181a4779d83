package views

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/internal/locale"
)

// The recovery codes page shows each code on its own line, offers them all
// in a box to copy and as a text file to download, in both languages.
func TestRecoveryCodesCopyAndDownload(t *testing.T) {
	codes := []string{"mnjj-lhij-nvmt-o4aj", "abcd-efgh-ijkl-mnop", "qrst-uvwx-yz23-4567"}
	textarea := regexp.MustCompile(`(?s)<textarea id="recovery-codes-all"[^>]*readonly[^>]*>(.*?)</textarea>`)
	download := regexp.MustCompile(`<a [^>]*id="recovery-codes-download" href="([^"]*)" download="([^"]+)"`)
	for _, code := range []string{"en", "de"} {
		page := renderIn(t, locale.Default().Get(code), RecoveryCodes(Page{SiteName: "Cobble"}, codes))
		m := textarea.FindStringSubmatch(page)
		if m == nil || html.UnescapeString(m[1]) != strings.Join(codes, "\n") {
			t.Errorf("%s: no box with the codes one a line: %v", code, m)
		}
		d := download.FindStringSubmatch(page)
		if d == nil {
			t.Fatalf("%s: no download link:\n%s", code, page)
		}
		text, err := url.PathUnescape(strings.TrimPrefix(html.UnescapeString(d[1]), "data:text/plain;charset=utf-8,"))
		if err != nil || strings.Fields(text) == nil || strings.Join(strings.Fields(text), " ") != strings.Join(codes, " ") ||
			!strings.HasSuffix(d[2], ".txt") {
			t.Errorf("%s: the download %q (%s) holds %q, %v", code, d[2], d[1], text, err)
		}
		if n := strings.Count(page, `<li><code>`); n != len(codes) {
			t.Errorf("%s: %d codes in the list, want %d", code, n, len(codes))
		}
	}
}
