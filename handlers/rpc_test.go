package handlers

import (
	"strings"
	"testing"

	"github.com/cobble-am/cobble/internal/locale"
)

// The message for a key Cobble no longer knows names what revokes keys,
// and not a password change or reset, which keep them (accounting's
// TestAccountSettings and TestPasswordReset check that).
func TestRevokedKeyMessage(t *testing.T) {
	t.Parallel()
	msg := locale.English().T("rpc.revoked")
	for _, want := range []string{"disconnected", "joined Cobble again", "account was deleted", "join again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q: %s", want, msg)
		}
	}
	for _, wrong := range []string{"reset", "password was", "password changed"} {
		if strings.Contains(msg, wrong) {
			t.Errorf("the message blames a password change (%q): %s", wrong, msg)
		}
	}
}
