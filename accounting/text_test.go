package accounting

import (
	"strings"
	"testing"
)

// Printable is the one rule for text people type; the forms and the
// domain both apply it, so C1 controls are refused everywhere.
func TestPrintable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		s         string
		one, many bool   // Printable, PrintableLines
		only      string // printableOnly
	}{
		{"empty", "", true, true, ""},
		{"ascii", "Ada Lovelace", true, true, "Ada Lovelace"},
		{"accents and emoji", "Zoë 🚀 José", true, true, "Zoë 🚀 José"},
		{"NUL", "a\x00b", false, false, "a b"},
		{"C0 escape", "a\x1bb", false, false, "a b"},
		{"DEL", "a\x7fb", false, false, "a b"},
		{"C1 next line", "a\u0085b", false, false, "a b"},
		{"C1 CSI", "a\u009bb", false, false, "a b"},
		{"tab", "a\tb", false, true, "a b"},
		{"line breaks", "a\r\nb", false, true, "a  b"},
		{"invalid UTF-8", "a\xffb", false, false, "a b"},
		{"lone continuation byte", "\x85", false, false, " "},
	} {
		if got := Printable(c.s); got != c.one {
			t.Errorf("%s: Printable(%q) = %v, want %v", c.name, c.s, got, c.one)
		}
		if got := PrintableLines(c.s); got != c.many {
			t.Errorf("%s: PrintableLines(%q) = %v, want %v", c.name, c.s, got, c.many)
		}
		if got := printableOnly(c.s); got != c.only {
			t.Errorf("%s: printableOnly(%q) = %q, want %q", c.name, c.s, got, c.only)
		}
	}
}

// checkPassword is the one rule for passwords; TestEveryPasswordFollowsTheRule
// checks that every way of choosing one applies it.
func TestPasswordRule(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		password string
		msg      string // "" when the password is accepted
	}{
		{"long-enough", ""},
		{"ünïcödé!", ""},
		{strings.Repeat("x", 200), ""},
		{"seven77", "Use at least 8 characters."},
		{strings.Repeat("x", 201), "Use at most 200 characters."},
		{"\x01234567890", "Use printable characters only."},
		{"tab\tinside it", "Use printable characters only."},
		{"c1\u0085control", "Use printable characters only."},
		{"bad\xffbytes", "Use printable characters only."},
	} {
		v := validation{}
		checkPassword(v, c.password)
		if got := v["password"].String(); got != c.msg {
			t.Errorf("checkPassword(%q): %q, want %q", c.password, got, c.msg)
		}
	}
}
