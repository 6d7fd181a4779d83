package static

import (
	"regexp"
	"strings"
	"testing"
)

// TestStylesheetBlocksClose: every block of the stylesheet closes where it
// should, so that no rule falls by accident inside a @media block (where it
// would apply to phones alone).
func TestStylesheetBlocksClose(t *testing.T) {
	css, err := embedded.ReadFile("files/style.css")
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAllString(string(css), "")
	depth := 0
	for i, line := range strings.Split(text, "\n") {
		top := line != "" && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "}")
		if top && depth != 0 {
			t.Fatalf("style.css line %d starts a rule %d blocks deep (an unclosed block above): %q", i+1, depth, line)
		}
		depth += strings.Count(line, "{") - strings.Count(line, "}")
	}
	if depth != 0 {
		t.Fatalf("style.css ends %d blocks deep", depth)
	}
}
