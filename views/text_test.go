package views

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cobble-am/cobble/internal/locale"
)

// tm escapes a message's words and its text values, and puts each
// component where the sentence puts it.
func TestTm(t *testing.T) {
	formats := "[language]\nname = \"X\"\n[format]\ndecimal_separator = \".\"\ngroup_separator = \",\"\n" +
		"months = \"a b c d e f g h i j k l\"\nweekdays = \"a b c d e f g\"\ndate = \"d\"\nday_month = \"d\"\ndate_time = \"d\"\n"
	c, err := locale.Load(fstest.MapFS{"en.toml": {Data: []byte(formats +
		"[x]\nsentence = \"Tom & {{.Link}} <b> {{.Name}}, {{.Count}}\"\nfirst = \"{{.Link}} first\"\n")}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := locale.With(context.Background(), c.Get("en"))
	var b strings.Builder
	if err := tm("x.sentence", "Link", linkText("/a?b=1&c", "go <now>"), "Name", "<i>\x00", "Count", 1234).Render(ctx, &b); err != nil {
		t.Fatal(err)
	}
	if want := `Tom &amp; <a href="/a?b=1&amp;c">go &lt;now&gt;</a> &lt;b&gt; &lt;i&gt;` + "\uFFFD" + `, 1,234`; b.String() != want {
		t.Errorf("got  %s\nwant %s", b.String(), want)
	}
	b.Reset()
	if err := tm("x.first", "Link", strongText("A")).Render(ctx, &b); err != nil || b.String() != "<strong>A</strong> first" {
		t.Errorf("got %s, %v", b.String(), err)
	}
}
