package handlers

import (
	"testing"
	"time"
)

func TestFailureLimiter(t *testing.T) {
	l := newFailureLimiter()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range maxFailures {
		if l.blocked("Ada@example.org", now) {
			t.Fatalf("blocked after %d failures", i)
		}
		l.fail("ada@EXAMPLE.org", now)
	}
	if !l.blocked("ada@example.org", now.Add(time.Minute)) {
		t.Error("not blocked after the limit")
	}
	if l.blocked("other@example.org", now) {
		t.Error("another account is blocked")
	}
	if l.blocked("ada@example.org", now.Add(failureWindow)) {
		t.Error("still blocked after the window")
	}
}
