package accounting

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable reports whether s is text a person can read and type: valid
// UTF-8 without control characters, which are C0 (below U+0020), DEL and
// C1 (U+0080–U+009F), and without the invisible characters that change
// how the text around them reads (see hidden). Every one-line field
// Cobble takes from people (names, nicknames, location names, email
// addresses) follows this rule, whether a form or the domain checks it.
func Printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || hidden(r)
	})
}

// PrintableLines is Printable for text of several lines: tabs, line feeds
// and carriage returns are allowed too.
func PrintableLines(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' || hidden(r)
	})
}

// hidden reports whether r is a character that is not a control
// character but still breaks a line or reorders the text shown around
// it: the line and paragraph separators U+2028 and U+2029 (line breaks
// in a mail header or a JavaScript string), and the bidirectional
// controls (the marks U+200E, U+200F and U+061C, the embeddings and
// overrides U+202A–U+202E, the isolates U+2066–U+2069), with which a
// name can show itself as another.
func hidden(r rune) bool {
	switch {
	case r == '\u2028', r == '\u2029':
		return true
	case r == '\u200e', r == '\u200f', r == '\u061c':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// printableOnly makes s Printable: each control character, each hidden
// character and each byte of invalid UTF-8 becomes a space (so does
// U+FFFD, which stands for such bytes).
func printableOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) || hidden(r) {
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
