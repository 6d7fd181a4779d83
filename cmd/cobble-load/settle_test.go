package main

import (
	"testing"
)

// A baseline or settling RPC answered 503 (Cobble cannot serve now: its
// database fails over) is sent again until it is accepted, as a client
// would, however long the outage within retryFor; other failures get
// maxTries. The settling of TestFailoverUnderLoad's second load came while
// its formation was still failing over on a busy machine, and three
// immediate tries all got 503.
func TestSettlingRetriesWhileUnavailable(t *testing.T) {
	sends := 0
	outage := func() string {
		if sends++; sends <= 5 {
			return "HTTP 503 at http://127.0.0.1:1/rpc.php"
		}
		return ""
	}
	if kind := sendSettling(t.Context(), outage); kind != "" || sends != 6 {
		t.Errorf("through an outage of 5 answers: %q after %d sends, want accepted after 6", kind, sends)
	}
	sends = 0
	broken := func() string { sends++; return "error_num -1" }
	if kind := sendSettling(t.Context(), broken); kind != "error_num -1" || sends != maxTries {
		t.Errorf("a failure that is not 503: %q after %d sends, want it after %d", kind, sends, maxTries)
	}
}
