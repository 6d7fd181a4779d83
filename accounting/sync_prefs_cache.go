package accounting

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting/cache"
)

// maxCachedPrefs bounds the preferences cache, which holds one entry per
// volunteer whose hosts are in their steady state.
const maxCachedPrefs = 100_000

// cachedPrefs are a volunteer's preferences as the steady-state RPC uses
// them, with the users.prefs_version they were read at. That RPC reads
// only the version with the host lock; when it matches, the preferences
// kept are current, on any number of Cobble instances, since every change
// in the database bumps the version (migration 008).
//
// Entries are shared between RPCs and never changed: readers must not
// modify the maps.
type cachedPrefs struct {
	version int64
	choices map[int64]ProjectChoice
	prefs   rpcPrefs
}

// newPrefsCache returns the cache of volunteers' preferences by user ID. A
// slower RPC that read an older version never replaces a newer one.
func newPrefsCache() *cache.Cache[int64, cachedPrefs] {
	return cache.New[int64](cache.Options[cachedPrefs]{Max: maxCachedPrefs,
		Replace: func(old, e cachedPrefs) bool { return e.version >= old.version }})
}

// volunteerPrefs returns the volunteer's preferences at version: those
// kept in memory, or else read on conn (inside the RPC's transaction) and
// kept, with the version they were read at.
func (s *SyncStore) volunteerPrefs(ctx context.Context, conn *pgxpool.Conn, userID, version int64) (cachedPrefs, error) {
	if e, ok := s.prefs.Get(userID); ok && e.version == version {
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
	s.prefs.Put(userID, e)
	return e, nil
}
