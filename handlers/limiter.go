package handlers

import (
	"strings"
	"sync"
	"time"
)

// Limits on wrong passwords per account, for the AM RPC and the web log-in
// alike: checking a password costs a bcrypt, and guessing must stay slow.
const (
	maxFailures   = 10
	failureWindow = 15 * time.Minute
	// maxTracked bounds the limiter's memory; past it, new accounts are not
	// tracked until the window ends.
	maxTracked = 100_000
)

// failureLimiter counts failed password checks per email in fixed windows.
// It lives in one process: with several instances, each allows maxFailures.
type failureLimiter struct {
	mu     sync.Mutex
	start  time.Time
	counts map[string]int
}

func newFailureLimiter() *failureLimiter {
	return &failureLimiter{counts: map[string]int{}}
}

// blocked reports whether email has used up its failures for now.
func (l *failureLimiter) blocked(email string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roll(now)
	return l.counts[key(email)] >= maxFailures
}

// fail records a failed password check for email.
func (l *failureLimiter) fail(email string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roll(now)
	k := key(email)
	if _, ok := l.counts[k]; ok || len(l.counts) < maxTracked {
		l.counts[k]++
	}
}

func (l *failureLimiter) roll(now time.Time) {
	if now.Sub(l.start) >= failureWindow {
		l.start, l.counts = now, map[string]int{}
	}
}

func key(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
