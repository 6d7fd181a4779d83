package accounting

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable reports whether s is text a person can read and type: valid
// UTF-8 without control characters, which are C0 (below U+0020), DEL and
// C1 (U+0080–U+009F). Every one-line field Cobble takes from people
// follows this rule, whether a form or the domain checks it.
func Printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}

// PrintableLines is Printable for text of several lines: tabs, line feeds
// and carriage returns are allowed too.
func PrintableLines(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r'
	})
}

// printableOnly makes s Printable: each control character and each byte
// of invalid UTF-8 becomes a space (so does U+FFFD, which stands for
// such bytes).
func printableOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// Plural counts n of what in English: "1 orphan", "2 orphans", "3
// matches", "4 entries".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	switch {
	case strings.HasSuffix(what, "entry"):
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(what, "y"))
	case strings.HasSuffix(what, "ch"), strings.HasSuffix(what, "s"):
		return fmt.Sprintf("%d %ses", n, what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Storable reports whether PostgreSQL can store s as text: valid UTF-8
// without NUL bytes. It is the one storable-text rule; CleanText makes any
// string follow it.
func Storable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// CleanText makes s Storable, at most n bytes.
func CleanText(s string, n int) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "\uFFFD")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "")
	}
	return s
}
