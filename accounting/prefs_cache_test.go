package accounting

import "testing"

// The cache holds at most maxCachedPrefs volunteers, and a slower RPC that
// read an older version never replaces a newer one.
func TestPrefsCacheBoundedAndNewest(t *testing.T) {
	var c prefsCache
	for id := range int64(maxCachedPrefs + 100) {
		c.put(id, cachedPrefs{version: 1})
	}
	if n := len(c.entries); n != maxCachedPrefs {
		t.Errorf("%d entries, want %d", n, maxCachedPrefs)
	}
	c.put(-1, cachedPrefs{version: 5, choices: map[int64]ProjectChoice{7: ChoiceNever}})
	c.put(-1, cachedPrefs{version: 4})
	if e, ok := c.get(-1, 5); !ok || e.choices[7] != ChoiceNever {
		t.Errorf("version 5 replaced by an older read: %+v, %v", e, ok)
	}
	if _, ok := c.get(-1, 6); ok {
		t.Error("an entry at version 5 served for version 6")
	}
}
