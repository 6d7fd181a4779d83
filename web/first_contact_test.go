package web_test

import (
	"context"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// A newcomer's first computer to connect is named on the dashboard, with
// when its first estimated figures come (its next contact, an hour after
// this one with the test's RepeatSec) and when confirmed ones do, rather
// than a table of zeros with no word (issue 45, item 6).
func TestDashboardSaysFirstContact(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("vol@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	status, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	if status != http.StatusOK || join.ErrorNum != 0 {
		t.Fatalf("join: status %d, error %d %q", status, join.ErrorNum, join.ErrorMsg)
	}
	_, dash, _ := do(t, e.session(t, "vol@example.org", "secret-pass"), "GET", e.http.URL+"/", nil, nil)
	note := regexp.MustCompile(`(?s)<section class="card first-contact".*?</section>`).FindString(dash)
	text := html.UnescapeString(note)
	var last time.Time
	if err := e.pool.QueryRow(context.Background(), `SELECT last_rpc_at FROM hosts`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	next := locale.English().DateTime(last.Add(time.Hour).UTC())
	for _, want := range []string{"vm has connected", "next contact, expected around " + next, "Confirmed figures", "export"} {
		if !strings.Contains(text, want) {
			t.Errorf("the dashboard's word on the first contact lacks %q: %q\n%s", want, text, dash)
		}
	}
}
