package web_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A pause of all computers shows on the dashboard, with how many and until
// when, and its short form has the pause chosen, so that saving it again
// keeps the pause (and its date) rather than resuming every computer.
func TestDashboardShowsAllComputersPause(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	day := e.store.Ledger.Today(time.Now(), "UTC").AddDate(0, 0, 3).Format(time.DateOnly)
	status, _, _ := do(t, e.adaClient, "POST", e.http.URL+"/computers/pause", url.Values{"mode": {"pause"}, "until": {day}}, nil)
	if status != http.StatusSeeOther {
		t.Fatalf("POST /computers/pause: %d", status)
	}
	_, dash, _ := do(t, e.adaClient, "GET", e.http.URL+"/", nil, nil)
	text := html.UnescapeString(dash)
	if !strings.Contains(text, "Paused until") || !strings.Contains(text, "2 of your 2 computers") {
		t.Errorf("the dashboard does not show the pause of both computers:\n%s", dash)
	}
	form := regexp.MustCompile(`(?s)<form method="post" action="/computers/pause">.*?</form>`).FindString(dash)
	if !strings.Contains(form, `<option value="pause" selected>`) {
		t.Errorf("the dashboard's form does not choose the pause: %s", form)
	}
	if !strings.Contains(form, `value="`+day+`"`) {
		t.Errorf("the dashboard's form drops the pause's date %s: %s", day, form)
	}
}
