package web

import (
	"context"
	"log/slog"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// attemptsKept is how long the counters of the guessing and sign-up
// limits are kept: past their longest window (an hour).
const attemptsKept = 2 * time.Hour

// pruneAttemptsLoop deletes the limits' counters of windows that have
// ended, every 10 minutes until ctx ends. Every instance does it; the
// deletes are cheap and idempotent. Failures are logged.
func pruneAttemptsLoop(ctx context.Context, store *accounting.Store, log *slog.Logger) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if _, err := store.Access.PruneAttempts(ctx, now.Add(-attemptsKept)); err != nil && ctx.Err() == nil {
				log.Warn("pruning the limits' counters failed", "err", err)
			}
		}
	}
}
