package accounting_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/cobble-am/cobble/internal/methodcount"
)

// TestNoTypeHasTooManyMethods counts, with go/ast, the methods declared on
// each type of accounting and its sub-packages (tests aside): past
// methodcount.Most, a type is split by area.
func TestNoTypeHasTooManyMethods(t *testing.T) {
	counts, err := methodcount.Count(".", "accounting")
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) == 0 {
		t.Fatal("no methods found: the count looks in the wrong place")
	}
	for _, typ := range slices.Sorted(maps.Keys(counts)) {
		n := counts[typ]
		t.Logf("%s: %d", typ, n)
		if n > methodcount.Most {
			t.Errorf("%s has %d methods, more than %d: split it by area", typ, n, methodcount.Most)
		}
	}
}
