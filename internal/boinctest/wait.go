package boinctest

import (
	"testing"
	"time"
)

// WaitFor polls cond every 50 ms until it holds, and fails the test naming
// what it waited for when timeout passes first.
func WaitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
