package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/boinctest"
)

// clientNotices starts Cobble and a real client whose volunteer reads
// Cobble in language ("" for none chosen), joins and syncs, and waits
// until the client's notices contain want; it returns them.
func clientNotices(t *testing.T, language, want string) (notices, amURL string, store *accounting.Store, client *boinctest.Client, rec *recorder) {
	t.Helper()
	ctx := context.Background()
	amURL, store, rec = startCobble(t)
	proj := boinctest.NewProject(t)
	u, err := store.Accounts.CreateUser(ctx, accounting.NewUser{Email: "vol@example.org", Password: "secret-pass"})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Accounts.SetLanguage(ctx, u.ID, language); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Catalog.AddProject(ctx, accounting.Project{URL: proj.URL(), Name: "P", Authenticator: "key"}); err != nil {
		t.Fatal(err)
	}
	client = boinctest.StartWith(t, boinctest.Options{Notices: true})
	if out, err := client.JoinAcctMgr(ctx, amURL, "vol@example.org", "secret-pass"); err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Fatalf("join failed: %v\n%s", err, out)
	}
	if out, err := client.SyncAcctMgr(ctx); err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Fatalf("sync failed: %v\n%s", err, out)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(notices, want) {
		if time.Now().After(deadline) {
			t.Fatalf("the client lists no notice %q from the feed:\n%s\nclient log:\n%s\nlast request:\n%s", want, notices, client.Log(), rec.last())
		}
		time.Sleep(time.Second)
		notices, _ = client.Cmd(ctx, "--get_notices", "0")
	}
	return notices, amURL, store, client, rec
}

// The AM reply's <rss_feeds> makes the real client fetch the volunteer's
// notices feed and list its items as notices.
func TestRealClientShowsNotices(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, amURL, store, client, rec := clientNotices(t, "", "Your computers contributed")
	// The client keeps the feed list in notices/feeds.xml: our secret URL.
	u, _ := store.Accounts.Login(ctx, "vol@example.org", "secret-pass")
	token, _ := store.Accounts.FeedToken(ctx, u.ID)
	feeds, err := os.ReadFile(filepath.Join(client.Dir, "notices", "feeds.xml"))
	if err != nil || !strings.Contains(string(feeds), "<url>"+amURL+"notices/"+token+".rss</url>") {
		t.Errorf("the client's feed list lacks the volunteer's feed (%v):\n%s", err, feeds)
	}
	if !strings.Contains(rec.last(), "<authenticator>") {
		t.Errorf("last request was not a sync with the authenticator")
	}
}

// A volunteer who reads Cobble in German sees the notices of their feed in
// German in the real client (boinccmd --get_notices).
func TestRealClientShowsNoticesInGerman(t *testing.T) {
	t.Parallel()
	notices, _, _, _, _ := clientNotices(t, "de", "Deine Computer haben diese Woche")
	if strings.Contains(notices, "Your computers contributed") {
		t.Errorf("the client lists the English notice too:\n%s", notices)
	}
	t.Logf("boinccmd --get_notices:\n%s", notices)
}
