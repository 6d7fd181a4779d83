// Package cache is Cobble's one in-memory cache: a map from keys to values
// with a bound on its entries, in which an arbitrary entry makes room for a
// new key, entries may expire a fixed time after they were put, and a rule
// may keep an entry from being replaced by an older value. It is safe for
// concurrent use and imports nothing of Cobble's.
//
// The Store keeps the catalog, volunteers' preferences, time zones and its
// rewritten queries in caches of this type; the handlers keep URL
// signatures and notices-feed tokens in them.
//
// Why an arbitrary entry, not the least recently used: Cobble's largest
// caches are read by clients that come back at a fixed interval (a host's
// RPC every few hours), each key once per round. When more keys come round
// than the cache holds, evicting the least recently used (or the oldest)
// entry evicts exactly the key that is needed next, and no lookup hits;
// evicting arbitrary entries keeps a share of hits (42 % with room for two
// thirds of the keys, in TestRoundsLargerThanTheCacheStillHit). Below the
// bound every policy gives the same hits. And a hit changes nothing: it
// costs one mutex and one map lookup, as the hand-written caches this
// replaced did, where keeping an order of use would also relink entries
// scattered in memory on every hit.
package cache

import (
	"sync"
	"time"
)

// Options configure a Cache.
type Options[V any] struct {
	// Max is the most entries the cache holds; it must be at least 1.
	// Putting a new key into a full cache first evicts an arbitrary entry.
	Max int
	// TTL is how long after it was put an entry is returned; 0 keeps
	// entries until they are evicted, replaced or deleted.
	TTL time.Duration
	// Now is the clock TTL is measured on (default time.Now).
	Now func() time.Time
	// Replace reports whether Put may replace old, the value of a live
	// entry, with v; nil always replaces. It lets a cache keep the newest
	// version of a value whichever of two readers finishes last. It runs
	// with the cache locked: it must be quick and must not use the cache.
	Replace func(old, v V) bool
}

// Cache is a bounded map from K to V, safe for concurrent use; New makes
// one. A hit costs one mutex and one map lookup and allocates nothing.
// Values are returned as they were put: a V holding maps, slices or
// pointers shares them with every caller, who must not modify them.
type Cache[K comparable, V any] struct {
	opts  Options[V]
	start time.Time // the clock when the cache was made; expiry counts from it

	mu      sync.Mutex
	entries map[K]entry[V]
}

type entry[V any] struct {
	val V
	// expires is when the entry expires, as time since Cache.start (so
	// that a monotonic clock stays monotonic); 0 without a TTL.
	expires time.Duration
}

// New returns an empty cache. It panics if opts.Max is less than 1 or
// opts.TTL is negative: both are programming errors.
func New[K comparable, V any](opts Options[V]) *Cache[K, V] {
	if opts.Max < 1 || opts.TTL < 0 {
		panic("cache: Max must be at least 1 and TTL at least 0")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &Cache[K, V]{opts: opts, entries: make(map[K]entry[V])}
	if opts.TTL > 0 {
		c.start = opts.Now()
	}
	return c
}

// Get returns the value of k and true, or the zero V and false when k has
// no entry or its entry has expired.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if ok && c.opts.TTL > 0 && c.expired(e, c.now()) {
		var zero V
		return zero, false
	}
	return e.val, ok // the zero V on a miss
}

// Put stores v for k, unless k has a live entry whose value
// Options.Replace keeps; it reports whether v was stored. A new key in a
// full cache first evicts an arbitrary entry.
func (c *Cache[K, V]) Put(k K, v V) bool {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.entries[k]
	if ok && c.opts.Replace != nil && !c.expired(old, now) && !c.opts.Replace(old.val, v) {
		return false
	}
	c.store(k, v, ok, now)
	return true
}

// GetOrPut returns the value of k's live entry and true; when k has none,
// it stores v and returns v and false. The lookup and the store hold the
// lock together, so of two callers with one key both get the value that
// one of them stored. Options.Replace is not consulted: a live entry is
// never replaced. A new key in a full cache first evicts an arbitrary entry.
func (c *Cache[K, V]) GetOrPut(k K, v V) (V, bool) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.entries[k]
	if ok && !c.expired(old, now) {
		return old.val, true
	}
	c.store(k, v, ok, now)
	return v, false
}

// store puts v for k with the lock held; present is whether k has an
// entry, live or expired, which v replaces without evicting another.
func (c *Cache[K, V]) store(k K, v V, present bool, now time.Duration) {
	if !present && len(c.entries) >= c.opts.Max {
		c.evict()
	}
	e := entry[V]{val: v}
	if c.opts.TTL > 0 {
		e.expires = now + c.opts.TTL
	}
	c.entries[k] = e
}

// evict deletes an arbitrary entry: map iteration starts at a random one.
func (c *Cache[K, V]) evict() {
	for k := range c.entries {
		delete(c.entries, k)
		return
	}
}

// Delete removes k's entry, if any.
func (c *Cache[K, V]) Delete(k K) {
	c.mu.Lock()
	delete(c.entries, k)
	c.mu.Unlock()
}

// Clear removes every entry.
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	clear(c.entries)
	c.mu.Unlock()
}

// Len returns the number of entries held, counting expired ones that were
// not yet evicted or replaced.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// now is the time since c.start, read only when entries expire.
func (c *Cache[K, V]) now() time.Duration {
	if c.opts.TTL == 0 {
		return 0
	}
	return c.opts.Now().Sub(c.start)
}

func (c *Cache[K, V]) expired(e entry[V], now time.Duration) bool {
	return c.opts.TTL > 0 && now >= e.expires
}
