package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// A volunteer who reads Cobble in German gets the messages of their RPC
// replies in German; a request that authenticates nobody is answered in
// English (the client sends no language).
func TestRPCMessagesInVolunteersLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user("vol@example.org", "secret-pass")
	if err := e.store.Accounts.SetLanguage(context.Background(), u.ID, "de"); err != nil {
		t.Fatal(err)
	}
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	// A host claiming a million CPUs is told that Cobble does not believe it.
	join := []byte(strings.Replace(string(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass")),
		"<p_ncpus>2</p_ncpus>", "<p_ncpus>1000000</p_ncpus>", 1))
	status, rep := e.rpc(join)
	if status != http.StatusOK || rep.ErrorNum != 0 {
		t.Fatalf("join: status %d, error %d %q", status, rep.ErrorNum, rep.ErrorMsg)
	}
	msgs := strings.Join(rep.Messages, "\n")
	if !strings.Contains(msgs, "Cobble konnte einige Angaben deines Computers über sich selbst nicht glauben (1000000 CPUs)") {
		t.Errorf("the German volunteer's reply messages: %q", rep.Messages)
	}
	_, bad := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "wrong-pass"))
	if !strings.HasPrefix(bad.ErrorMsg, "Cobble does not know this email and password.") {
		t.Errorf("a wrong password is answered %q, want English", bad.ErrorMsg)
	}
}

// The notices feed is in the volunteer's language; its guids are not, so
// that a client that already showed a notice does not show it again when
// the volunteer switches languages.
func TestNoticesFeedInGerman(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	ctx := context.Background()
	token, err := e.store.Accounts.FeedToken(ctx, e.ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	feed := func() string {
		status, body, _ := do(t, e.browser(), "GET", e.http.URL+"/notices/"+token+".rss", nil, nil)
		if status != http.StatusOK {
			t.Fatalf("feed: status %d", status)
		}
		return body
	}
	english := feed()
	if err := e.store.Accounts.SetLanguage(ctx, e.ada.ID, "de"); err != nil {
		t.Fatal(err)
	}
	german := feed()
	for _, want := range []string{"dein Beitrag", "Deine Woche bei", "Deine Computer haben diese Woche", "CPU-Stunden"} {
		if !strings.Contains(german, want) {
			t.Errorf("the German feed lacks %q:\n%s", want, german)
		}
	}
	for _, english := range []string{"Your computers contributed", "your contribution", "Your week with"} {
		if strings.Contains(german, english) {
			t.Errorf("the German feed has %q:\n%s", english, german)
		}
	}
	if g, e := guids(german), guids(english); g == "" || g != e {
		t.Errorf("the guids changed with the language:\n%s\n%s", e, g)
	}
	if !strings.Contains(german, "<pubDate>") || !strings.Contains(german, " +0000</pubDate>") {
		t.Errorf("pubDate is not RFC 1123:\n%s", german)
	}
}

// guids lists a feed's guids, one a line.
func guids(feed string) string {
	var out []string
	for _, part := range strings.Split(feed, "<guid>")[1:] {
		g, _, _ := strings.Cut(part, "</guid>")
		out = append(out, g)
	}
	return strings.Join(out, "\n")
}
