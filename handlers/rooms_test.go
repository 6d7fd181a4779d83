package handlers

import (
	"maps"
	"slices"
	"testing"

	"github.com/cobble-am/cobble/internal/methodcount"
)

// TestNoTypeHasTooManyMethods counts, with go/ast, the methods declared on
// each type of handlers (tests aside), the rooms and their plumbing: past
// methodcount.Most, as in accounting, a room is split by audience.
func TestNoTypeHasTooManyMethods(t *testing.T) {
	t.Parallel()
	counts, err := methodcount.Count(".", "handlers")
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
			t.Errorf("%s has %d methods, more than %d: split it by audience", typ, n, methodcount.Most)
		}
	}
}
