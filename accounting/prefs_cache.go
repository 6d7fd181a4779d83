package accounting

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
)

// maxCachedPrefs bounds prefsCache, which holds one entry per volunteer
// whose hosts are in their steady state.
const maxCachedPrefs = 100_000

// prefsCache keeps volunteers' preferences as the steady-state RPC uses
// them, each with the users.prefs_version it was read at. That RPC reads
// only the version with the host lock; when it matches, the preferences
// here are current, on any number of Cobble instances, since every change
// in the database bumps the version (migration 008).
//
// Entries are shared between RPCs and never changed: readers must not
// modify the maps.
type prefsCache struct {
	mu      sync.Mutex
	entries map[int64]cachedPrefs // user ID → preferences
}

type cachedPrefs struct {
	version int64
	choices map[int64]ProjectChoice
	prefs   rpcPrefs
}

// get returns the user's preferences if those kept are at version.
func (c *prefsCache) get(userID, version int64) (cachedPrefs, bool) {
	c.mu.Lock()
	e, ok := c.entries[userID]
	c.mu.Unlock()
	return e, ok && e.version == version
}

// put keeps e for the user, in place of any older entry; when the cache is
// full, an arbitrary entry makes room.
func (c *prefsCache) put(userID int64, e cachedPrefs) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[int64]cachedPrefs{}
	}
	old, ok := c.entries[userID]
	if ok && old.version > e.version {
		return
	}
	if !ok && len(c.entries) >= maxCachedPrefs {
		for id := range c.entries {
			delete(c.entries, id)
			break
		}
	}
	c.entries[userID] = e
}

// volunteerPrefs returns the volunteer's preferences at version: those
// kept in memory, or else read on conn (inside the RPC's transaction) and
// kept, with the version they were read at.
func (s *Store) volunteerPrefs(ctx context.Context, conn *pgxpool.Conn, userID, version int64) (cachedPrefs, error) {
	if e, ok := s.prefs.get(userID, version); ok {
		return e, nil
	}
	var e cachedPrefs
	var pr prefsRow
	err := conn.QueryRow(ctx, `SELECT u.prefs_version, `+prefsColumns+` FROM users u `+prefsJoins+`
		WHERE u.id = $1`, userID).Scan(append([]any{&e.version}, pr.dest()...)...)
	if err != nil {
		return e, err
	}
	e.choices, e.prefs = pr.parse()
	s.prefs.put(userID, e)
	return e, nil
}
