package accounting

import (
	"sync"
	"testing"
)

// The cache holds at most maxCachedPrefs volunteers, and a slower RPC that
// read an older version never replaces a newer one.
func TestPrefsCacheBoundedAndNewest(t *testing.T) {
	c := newPrefsCache()
	for id := range int64(maxCachedPrefs + 100) {
		c.Put(id, cachedPrefs{version: 1})
	}
	if n := c.Len(); n != maxCachedPrefs {
		t.Errorf("%d entries, want %d", n, maxCachedPrefs)
	}
	c.Put(-1, cachedPrefs{version: 5, prefs: rpcPrefs{Odd: "read at version 5"}})
	c.Put(-1, cachedPrefs{version: 4})
	if e, ok := c.Get(-1); !ok || e.version != 5 || e.prefs.Odd != "read at version 5" {
		t.Errorf("version 5 replaced by an older read: %+v, %v", e, ok)
	}
}

// mapPrefsCache is how the preferences were kept before accounting/cache
// (a map under a mutex, an arbitrary entry evicted when full): the
// baseline of BenchmarkPrefsCacheHit.
type mapPrefsCache struct {
	mu      sync.Mutex
	entries map[int64]cachedPrefs
}

func (c *mapPrefsCache) get(userID, version int64) (cachedPrefs, bool) {
	c.mu.Lock()
	e, ok := c.entries[userID]
	c.mu.Unlock()
	return e, ok && e.version == version
}

// BenchmarkPrefsCacheHit: the steady-state RPC's lookup of a volunteer's
// preferences, found at the version asked, among 100,000 volunteers; in
// parallel, every core looks up at once.
func BenchmarkPrefsCacheHit(b *testing.B) {
	const users = maxCachedPrefs
	e := cachedPrefs{version: 3, prefs: rpcPrefs{Keywords: map[int]KeywordAnswer{1: "yes"}}}
	old := &mapPrefsCache{entries: map[int64]cachedPrefs{}}
	c := newPrefsCache()
	for id := range int64(users) {
		old.entries[id] = e
		c.Put(id, e)
	}
	hit := map[string]func(id int64) bool{
		"before": func(id int64) bool { _, ok := old.get(id, 3); return ok },
		"cache": func(id int64) bool {
			got, ok := c.Get(id)
			return ok && got.version == 3
		},
	}
	for _, name := range []string{"before", "cache"} {
		get := hit[name]
		b.Run(name+"/serial", func(b *testing.B) {
			b.ReportAllocs()
			id := int64(0)
			for b.Loop() {
				if !get(id * 7919 % users) {
					b.Fatal("miss")
				}
				id++
			}
		})
		b.Run(name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for id := int64(0); pb.Next(); id++ {
					if !get(id * 7919 % users) {
						b.Error("miss")
						return
					}
				}
			})
		})
	}
}
