package accounting

import (
	"fmt"
	"testing"
)

// hiddenRunes are the characters that break a line or reorder the text
// around them without being control characters: the line and paragraph
// separators and the bidirectional controls.
var hiddenRunes = []rune{
	'\u2028', '\u2029', // line and paragraph separators
	'\u202a', '\u202b', '\u202c', '\u202d', '\u202e', // embeddings and overrides
	'\u2066', '\u2067', '\u2068', '\u2069', // isolates
	'\u200e', '\u200f', '\u061c', // marks
}

// Printable and PrintableLines refuse each hidden character, and
// printableOnly replaces it with a space; the letters beside them stay.
func TestPrintableRefusesHiddenCharacters(t *testing.T) {
	t.Parallel()
	for _, r := range hiddenRunes {
		s := "evil" + string(r) + "gpj.exe"
		if Printable(s) {
			t.Errorf("Printable(%q) = true, want false", s)
		}
		if PrintableLines(s + "\nsecond line") {
			t.Errorf("PrintableLines(%q) = true, want false", s)
		}
		if got, want := printableOnly(s), "evil gpj.exe"; got != want {
			t.Errorf("printableOnly(%q) = %q, want %q", s, got, want)
		}
	}
	// Right-to-left letters and the joiners that scripts need still pass.
	for _, s := range []string{"שלום", "مرحبا", "क्\u200dष", "👩\u200d💻", "a\u200bb"} {
		if !Printable(s) || !PrintableLines(s) {
			t.Errorf("%q is refused, want it accepted", s)
		}
	}
}

// Every name and address a person types refuses the hidden characters:
// an email address at sign-up, email change and password reset, a display
// name, a location's name and a computer's nickname.
func TestNamesAndAddressesRefuseHiddenCharacters(t *testing.T) {
	t.Parallel()
	for _, r := range hiddenRunes {
		t.Run(fmt.Sprintf("U+%04X", r), func(t *testing.T) {
			t.Parallel()
			h := string(r)
			nu := NewUser{Email: "ada" + h + "@example.org", Name: "Ada", Password: "long-enough"}
			wantFields(t, "sign-up email", nu.Validate(), "email")
			nu = NewUser{Email: "ada@example.org", Name: "Ada" + h + "Lovelace", Password: "long-enough"}
			wantFields(t, "display name", nu.Validate(), "name")
			wantFields(t, "reset email", checkEmailField("ada@example.org"+h), "email")
			if validEmail("ada" + h + "@example.org") {
				t.Errorf("validEmail accepts an address with U+%04X", r)
			}
			v := validation{}
			checkLocationName(v, "name", "Home"+h+"Office")
			wantFields(t, "location name", v.err(), "name")
			v = validation{}
			checkNickname(v, "Laptop"+h)
			wantFields(t, "nickname", v.err(), "name")
		})
	}
}

// wantFields fails t unless err is a ValidationError on exactly field.
func wantFields(t *testing.T, what string, err error, field string) {
	t.Helper()
	ve, ok := err.(*ValidationError)
	if !ok {
		t.Errorf("%s: %v, want a ValidationError on %q", what, err, field)
		return
	}
	if _, bad := ve.Fields[field]; !bad || len(ve.Fields) != 1 {
		t.Errorf("%s: %v, want a message on %q alone", what, err, field)
	}
}
