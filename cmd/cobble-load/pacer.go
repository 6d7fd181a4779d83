package main

import (
	"context"
	"sync"
	"time"
)

// pacer spaces the starts of RPCs over all workers evenly at a fixed rate.
// Each wait reserves the next free start time; a start that is already past
// is moved to now, so a pacer that fell behind never sends a burst to catch
// up. A nil pacer does not wait.
type pacer struct {
	every time.Duration

	mu   sync.Mutex
	next time.Time
}

// newPacer returns a pacer for rate starts per second, or nil for 0.
func newPacer(rate float64) *pacer {
	if rate <= 0 {
		return nil
	}
	return &pacer{every: time.Duration(float64(time.Second) / rate)}
}

// minSleep is the shortest wait worth a timer.
const minSleep = 50 * time.Microsecond

// wait blocks until the caller's start time, which is before stop. It
// returns an error when ctx ends or the start time would be at or after stop.
func (p *pacer) wait(ctx context.Context, stop time.Time) error {
	if p == nil {
		return ctx.Err()
	}
	now := time.Now()
	p.mu.Lock()
	at := p.next
	if at.Before(now) {
		at = now
	}
	p.next = at.Add(p.every)
	p.mu.Unlock()
	if !at.Before(stop) {
		return context.DeadlineExceeded
	}
	if d := at.Sub(now); d >= minSleep {
		return sleep(ctx, d)
	}
	return ctx.Err()
}
