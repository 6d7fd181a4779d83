package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
)

// A password change keeps the computers' keys, so the message for a key
// Cobble no longer accepts does not blame one: it names what does revoke
// keys (disconnecting the computer, among others).
func TestRevokedKeyMessageSaysWhatHappened(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	u := e.user("vol@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	_, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	follow := join.followUp(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	if err := e.store.ChangePassword(ctx, u.ID, "secret-pass", "another-pass"); err != nil {
		t.Fatal(err)
	}
	if status, r := e.rpc(follow); status != http.StatusOK || r.ErrorNum != 0 {
		t.Fatalf("after a password change the computer's key is refused: %d %q", r.ErrorNum, r.ErrorMsg)
	}
	cs, err := e.store.Computers(ctx, u.ID, e.store.Today(time.Now(), "UTC"))
	if err != nil || len(cs) != 1 {
		t.Fatalf("computers %v, %v", cs, err)
	}
	if err := e.store.Disconnect(ctx, u.ID, cs[0].ID); err != nil {
		t.Fatal(err)
	}
	_, r := e.rpc(follow)
	if r.ErrorNum != boinc.CodeBadPassword || !strings.Contains(r.ErrorMsg, "disconnected") ||
		strings.Contains(r.ErrorMsg, "reset") || strings.Contains(r.ErrorMsg, "password was") {
		t.Errorf("revoked key: error %d %q", r.ErrorNum, r.ErrorMsg)
	}
}
