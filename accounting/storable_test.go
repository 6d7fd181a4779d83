package accounting_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cobble-am/cobble/accounting"
)

// TestCleanTextIsStorable checks the one storable-text rule from both
// sides: Storable refuses what PostgreSQL's text cannot hold, and
// CleanText makes anything Storable within its bound.
func TestCleanTextIsStorable(t *testing.T) {
	for _, s := range []string{"plain", "nul\x00inside", "bad \xff\xfe utf-8", "\x00", "", "ünïcödé \u2028"} {
		want := !strings.ContainsRune(s, 0) && utf8.ValidString(s)
		if got := accounting.Storable(s); got != want {
			t.Errorf("Storable(%q) = %v, want %v", s, got, want)
		}
		for _, n := range []int{0, 1, 3, 100} {
			c := accounting.CleanText(s, n)
			if !accounting.Storable(c) || len(c) > n {
				t.Errorf("CleanText(%q, %d) = %q: not Storable within %d bytes", s, n, c, n)
			}
		}
	}
}
