package accounting

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// changesChannel is where the database's triggers (migration 014) announce
// a change to what instances keep in memory: "catalog", or "feed <user
// id>" for a volunteer's notices-feed token.
const changesChannel = "cobble_changes"

// listenRetryMax is the longest wait between attempts to listen again: a
// failover ends the listening session, and the new primary usually
// answers within seconds.
const listenRetryMax = 5 * time.Second

// Listening reports whether this Store hears of changes as they commit.
// While it does not, callers should not trust their caches of data that
// Change names.
func (s *Store) Listening() bool { return s.listening.Load() }

// ListenChanges listens for changes until ctx ends, on a connection of its
// own. The Store forgets its catalog on each catalog change and passes
// every change to forget, for the caller's caches. When the connection
// fails it reconnects after a second, a wait that doubles up to listenRetryMax,
// and on each (re)connection passes Change{All: true}, since changes may
// have been missed. The catalog's TTL (catalogTTL) bounds its staleness
// meanwhile.
func (s *Store) ListenChanges(ctx context.Context, log *slog.Logger, forget func(Change)) {
	wait := time.Second
	for ctx.Err() == nil {
		start := time.Now()
		err := s.listen(ctx, forget)
		s.listening.Store(false)
		if ctx.Err() != nil {
			return
		}
		log.Warn("listening for changes failed; reconnecting", "err", err, "in", wait)
		if time.Since(start) > time.Minute {
			wait = time.Second // it had been working
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, listenRetryMax)
	}
}

// listen holds one connection listening on changesChannel until it fails
// or ctx ends.
func (s *Store) listen(ctx context.Context, forget func(Change)) error {
	cfg := s.pool.Config().ConnConfig.Copy()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return op("listen", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LISTEN `+changesChannel); err != nil {
		return op("listen", err)
	}
	s.listening.Store(true)
	s.apply(Change{All: true}, forget)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return op("listen", err)
		}
		s.apply(parseChange(n.Payload), forget)
	}
}

func (s *Store) apply(c Change, forget func(Change)) {
	if c.All || c.Catalog {
		s.forgetCatalog()
	}
	if forget != nil {
		forget(c)
	}
}

// parseChange reads a notification's payload; one it does not know is
// taken for a change to anything.
func parseChange(payload string) Change {
	if payload == "catalog" {
		return Change{Catalog: true}
	}
	if id, ok := strings.CutPrefix(payload, "feed "); ok {
		if n, err := strconv.ParseInt(id, 10, 64); err == nil && n > 0 {
			return Change{FeedUser: n}
		}
	}
	return Change{All: true}
}
