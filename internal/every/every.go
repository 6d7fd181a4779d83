// Package every runs an instance's own periodic work: what each Cobble
// instance does for itself (its caches, its view of the replica and the
// primary, its counters). Work that the whole cluster needs done once is
// a River periodic job instead (web/jobs.go).
//
// It holds the one ticker of Cobble's production code; a test keeps it so.
package every

import (
	"context"
	"time"
)

// Loop calls fn every period until ctx ends, passing the tick's time; with
// now set it calls fn once at the start as well. fn is never called after
// ctx ended, and Loop returns once ctx ends.
func Loop(ctx context.Context, period time.Duration, now bool, fn func(ctx context.Context, at time.Time)) {
	if now && ctx.Err() == nil {
		fn(ctx, time.Now())
	}
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case at := <-t.C:
			if ctx.Err() != nil {
				return
			}
			fn(ctx, at)
		}
	}
}
