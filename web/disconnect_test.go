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

// A disconnected computer, and a computer of a deleted account, hear on
// their next RPC that they must join again; the notices feed is named in
// every successful reply.
func TestDisconnectedComputerIsToldToJoinAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	u := e.user("vol@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	status, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	if status != http.StatusOK || join.ErrorNum != 0 {
		t.Fatalf("join: status %d, error %q", status, join.ErrorMsg)
	}
	token, _ := e.store.Accounts.FeedToken(ctx, u.ID)
	if !strings.Contains(join.Raw, "<url>http://127.0.0.1:1/notices/"+token+".rss</url>") {
		t.Errorf("join reply does not name the notices feed:\n%s", join.Raw)
	}
	cs, err := e.store.Computers.Computers(ctx, u.ID, e.store.Ledger.Today(time.Now(), "UTC"))
	if err != nil || len(cs) != 1 {
		t.Fatalf("computers %v, %v", cs, err)
	}
	if err := e.store.Computers.Disconnect(ctx, u.ID, cs[0].ID); err != nil {
		t.Fatal(err)
	}
	follow := join.followUp(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	status, sync := e.rpc(follow)
	if status != http.StatusOK || sync.ErrorNum != boinc.CodeBadPassword || !strings.Contains(sync.ErrorMsg, "disconnected") ||
		!strings.Contains(sync.ErrorMsg, "join") {
		t.Errorf("RPC of a disconnected computer: status %d, error %d %q", status, sync.ErrorNum, sync.ErrorMsg)
	}
}

// A steady-state RPC names the volunteer's current notices feed: a renewed
// token reaches the next reply at once (it is read with the host, not from
// a per-instance cache).
func TestSteadyReplyNamesTheCurrentFeed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	u := e.user("vol@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	_, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	follow := join.followUp(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	if err := e.store.Accounts.RenewFeedToken(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	token, err := e.store.Accounts.FeedToken(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	status, sync := e.rpc(follow)
	if status != http.StatusOK || sync.ErrorNum != 0 || !strings.Contains(sync.Raw, "/notices/"+token+".rss</url>") {
		t.Errorf("steady RPC after a renewed feed token: status %d, error %q, reply:\n%s", status, sync.ErrorMsg, sync.Raw)
	}
}
