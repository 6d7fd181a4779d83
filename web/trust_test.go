package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// The pause forms: each mode is stored and shown on /computers and the
// computer's page; dates in the past or over a year ahead, and unknown
// modes, are 422 with the field's message and store nothing; another
// volunteer's computer is 404.
func TestPauseForms(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	ctx := context.Background()
	alpha := e.adaHosts[0]
	path := fmt.Sprintf("%s/computers/%d", e.http.URL, alpha.ID)
	day := func(days int) string { return time.Now().UTC().AddDate(0, 0, days).Format(time.DateOnly) }
	for _, c := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"mode": {"pause"}, "until": {day(-2)}}, "from today to a year ahead"},
		{url.Values{"mode": {"wind_down"}, "until": {day(400)}}, "from today to a year ahead"},
		{url.Values{"mode": {"wind_down"}, "until": {"next week"}}, "YYYY-MM-DD"},
		{url.Values{"mode": {"nap"}}, "Choose wind down, pause or resume"},
	} {
		status, body, _ := do(t, e.adaClient, "POST", path+"/pause", c.form, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(body, c.want) {
			t.Errorf("POST %v: status %d, want 422 saying %q", c.form, status, c.want)
		}
	}
	if c, _ := e.store.Computers.Computer(ctx, e.ada.ID, alpha.ID, time.Now()); c.PauseMode != accounting.PauseNone {
		t.Fatalf("refused forms stored %q", c.PauseMode)
	}
	if status, _, _ := do(t, e.bobClient, "POST", path+"/pause", url.Values{"mode": {"pause"}}, nil); status != http.StatusNotFound {
		t.Errorf("another volunteer's computer: status %d, want 404", status)
	}
	status, _, h := do(t, e.adaClient, "POST", path+"/pause", url.Values{"mode": {"wind_down"}, "until": {day(10)}}, nil)
	if status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), fmt.Sprintf("/computers/%d", alpha.ID)) {
		t.Fatalf("wind down: status %d, location %q", status, h.Get("Location"))
	}
	if _, body, _ := do(t, e.adaClient, "GET", path, nil, nil); !strings.Contains(body, "Winding down until") {
		t.Error("the computer's page does not show the wind-down")
	}
	if status, _, _ := do(t, e.adaClient, "POST", e.http.URL+"/computers/pause", url.Values{"mode": {"pause"}}, nil); status != http.StatusSeeOther {
		t.Fatalf("pause all: status %d", status)
	}
	_, body, _ := do(t, e.adaClient, "GET", e.http.URL+"/computers", nil, nil)
	if strings.Count(body, "Paused: every project is suspended.") != len(e.adaHosts) {
		t.Errorf("/computers does not show every computer paused")
	}
	if _, body, _ := do(t, e.bobClient, "GET", e.http.URL+"/computers", nil, nil); strings.Contains(body, "Paused") {
		t.Error("another volunteer's computers were paused")
	}
}

// A day's page shows its evidence; a report goes to the admin's queue,
// whose answer reaches the computer's page; bad reports are 422 with the
// field's message (a 100 KB one too), a flood is 429, and neither is
// stored; another volunteer's computer is 404.
func TestDayPageAndReports(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	ctx := context.Background()
	alpha := e.adaHosts[0]
	day := e.store.Ledger.Today(time.Now(), "UTC").AddDate(0, 0, -5).Format(time.DateOnly)
	dayPath := fmt.Sprintf("%s/computers/%d/days/%s", e.http.URL, alpha.ID, day)
	status, body, _ := do(t, e.adaClient, "GET", dayPath, nil, nil)
	if status != http.StatusOK || !strings.Contains(body, "Reports that added to the day") || !strings.Contains(body, "Two") {
		t.Fatalf("GET %s: status %d", dayPath, status)
	}
	for _, bad := range []string{"/days/2026-02-30", "/days/yesterday"} {
		if status, _, _ := do(t, e.adaClient, "GET", fmt.Sprintf("%s/computers/%d%s", e.http.URL, alpha.ID, bad), nil, nil); status != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", bad, status)
		}
	}
	if status, _, _ := do(t, e.bobClient, "GET", dayPath, nil, nil); status != http.StatusNotFound {
		t.Errorf("another volunteer's day: status %d, want 404", status)
	}
	reports := fmt.Sprintf("%s/computers/%d/reports", e.http.URL, alpha.ID)
	form := func(text string) url.Values {
		return url.Values{"day": {day}, "project": {fmt.Sprint(e.projects[1].ID)}, "text": {text}}
	}
	for _, c := range []struct {
		name, text, want string
	}{
		{"100 KB", strings.Repeat("x", 100<<10), "Keep it to 1,000 characters"},
		{"markup", "<img src=x onerror=alert(1)>", "Plain text only"},
		{"control", "ring\x07", "printable characters"},
	} {
		status, body, _ := do(t, e.adaClient, "POST", reports, form(c.text), nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(body, c.want) {
			t.Errorf("%s: status %d, want 422 saying %q; errors: %q", c.name, status, c.want, fieldErrors(body))
		}
	}
	if status, _, _ := do(t, e.bobClient, "POST", reports, form("mine?"), nil); status != http.StatusNotFound {
		t.Errorf("a report on another volunteer's computer: status %d, want 404", status)
	}
	statuses := map[int]int{}
	for range 50 {
		status, _, _ := do(t, e.adaClient, "POST", reports, form("The credit looks low."), nil)
		statuses[status]++
	}
	if statuses[http.StatusSeeOther] < 1 || statuses[http.StatusTooManyRequests] < 40 ||
		statuses[http.StatusSeeOther]+statuses[http.StatusTooManyRequests]+statuses[http.StatusUnprocessableEntity] != 50 {
		t.Errorf("50 reports a minute: statuses %v", statuses)
	}
	stored, err := e.store.Reports.ComputerReports(ctx, e.ada.ID, alpha.ID)
	if err != nil || len(stored) != statuses[http.StatusSeeOther] {
		t.Fatalf("%d reports stored for %d accepted (%v)", len(stored), statuses[http.StatusSeeOther], err)
	}

	admin := e.adminSession(t)
	status, body, _ = do(t, admin, "GET", e.http.URL+"/admin/reports", nil, nil)
	if status != http.StatusOK || !strings.Contains(body, "The credit looks low.") || !strings.Contains(body, "Reports that added to the day") {
		t.Fatalf("GET /admin/reports: status %d", status)
	}
	answer := fmt.Sprintf("%s/admin/reports/%d", e.http.URL, stored[0].ID)
	if status, _, _ := do(t, admin, "POST", answer, url.Values{"answer": {"<b>no</b>"}}, nil); status != http.StatusUnprocessableEntity {
		t.Errorf("markup in an answer: status %d, want 422", status)
	}
	if status, _, _ := do(t, admin, "POST", answer, url.Values{"answer": {"Checked: the export was late."}, "close": {"on"}}, nil); status != http.StatusSeeOther {
		t.Fatalf("answering: status %d", status)
	}
	_, body, _ = do(t, e.adaClient, "GET", fmt.Sprintf("%s/computers/%d", e.http.URL, alpha.ID), nil, nil)
	if !strings.Contains(body, "Checked: the export was late.") {
		t.Error("the computer's page does not show the answer")
	}
}

// adminSession returns a client with a session of a new admin.
func (e *env) adminSession(t *testing.T) *http.Client {
	t.Helper()
	if _, err := e.store.Accounts.CreateUser(context.Background(), adminUser); err != nil {
		t.Fatal(err)
	}
	return e.session(t, adminUser.Email, adminUser.Password)
}

// fieldErrors returns the field messages of a page.
func fieldErrors(body string) []string {
	var out []string
	for _, part := range strings.Split(body, `class="field-error"`)[1:] {
		_, msg, _ := strings.Cut(part, ">")
		msg, _, _ = strings.Cut(msg, "<")
		out = append(out, msg)
	}
	return out
}
