package static

import (
	"strings"
	"testing"
)

// The served stylesheet keeps every rule of the file and none of its
// comments.
func TestStylesheetServedWithoutComments(t *testing.T) {
	a, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := embedded.ReadFile("files/style.css")
	if err != nil {
		t.Fatal(err)
	}
	served := string(a.files[strings.TrimPrefix(a.Path("style.css"), Prefix)])
	if strings.Contains(served, "/*") || strings.Contains(served, "*/") {
		t.Error("the served stylesheet still has comments")
	}
	if !strings.Contains(string(raw), "/*") || len(served) >= len(raw) {
		t.Fatalf("style.css has no comments to strip (%d bytes served of %d)", len(served), len(raw))
	}
	if got, want := strings.Count(served, "{"), strings.Count(string(raw), "{"); got != want {
		t.Errorf("%d rules served, want the file's %d", got, want)
	}
}
