package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/browsertest"
)

// adminUser is the admin of the browser tests of issue 32.
var adminUser = accounting.NewUser{Email: "root@example.org", Password: "long-enough", IsAdmin: true}

// seedFailure opens a failure episode on a volunteer's computer as the
// failing check does, for pages to show.
func seedFailure(t *testing.T, e *volunteerEnv) {
	t.Helper()
	_, err := e.pool.Exec(context.Background(), `
		INSERT INTO host_failures (user_id, host_id, project_id, kind, detail, started_at)
		VALUES ($1, $2, $3, 'jobs_failing', '{"failed": 9, "jobs": 12}', now())`,
		e.ada.ID, e.adaHosts[1].ID, e.projects[1].ID)
	if err != nil {
		t.Fatal(err)
	}
}

// TestBrowserTrust, in Chromium: Ada pauses a computer and winds down all
// of them, sees a failing computer's warning, opens a day, sends a report
// that an admin answers, and reads the answer; screenshots at desktop and
// phone widths.
func TestBrowserTrust(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("Chromium")
	}
	e := newVolunteerEnv(t)
	seedFailure(t, e)
	b := browsertest.New(t)
	base := e.http.URL
	alpha := base + "/computers/" + itoa(e.adaHosts[0].ID)
	login := func(email, password string) {
		b.Open(t, base+"/login")
		b.Fill(t, "#email", email)
		b.Fill(t, "#password", password)
		b.Click(t, "main form button[type=submit]")
	}
	login("ada@example.org", "ada-password")
	b.Open(t, alpha)
	b.Eval(t, `document.querySelector('#pause-mode').value = 'pause'`)
	b.Eval(t, `document.querySelector('#pause-until').value = '`+time.Now().UTC().AddDate(0, 0, 14).Format(time.DateOnly)+`'`)
	b.Click(t, "#pause button[type=submit]")
	if b.Status() != http.StatusOK || !strings.Contains(b.Text(t, "#pause .pause-state"), "Paused until") {
		t.Fatalf("pause: status %d, %q", b.Status(), b.Text(t, "main"))
	}
	shots := map[string]string{"paused": alpha}
	b.Open(t, base+"/")
	if !strings.Contains(b.Text(t, ".warnings"), "tasks failed") {
		t.Errorf("the dashboard does not warn of the failing computer: %q", b.Text(t, ".warnings"))
	}
	shots["failing"] = base + "/computers/" + itoa(e.adaHosts[1].ID)

	day := e.store.Ledger.Today(time.Now(), "UTC").AddDate(0, 0, -4).Format(time.DateOnly)
	b.Open(t, alpha+"?days=30")
	b.Click(t, `details#history-table summary`)
	b.Click(t, `#history-table a[href$="/days/`+day+`"]`)
	dayURL := b.URL(t)
	b.Open(t, alpha)
	b.Eval(t, `document.querySelector('#open-day').value = '`+day+`'`)
	b.Click(t, ".open-day button[type=submit]")
	if b.URL(t) != dayURL {
		t.Errorf("the open-a-day form went to %s, the table's link to %s", b.URL(t), dayURL)
	}
	if !strings.Contains(b.Text(t, "h1"), "on ") || b.Count(t, ".day-project") == 0 {
		t.Fatalf("the day: %q, %d projects", b.Text(t, "h1"), b.Count(t, ".day-project"))
	}
	shots["day"] = b.URL(t)
	b.Fill(t, "#report-text", "The credit of this day looks too low.")
	b.Click(t, "#report button[type=submit]")
	if !strings.Contains(b.Text(t, "#report [role=status]"), "Sent") {
		t.Fatalf("report: %q", b.Text(t, "#report"))
	}
	shots["report-sent"] = b.URL(t)

	b.Click(t, "header.site form button") // log out
	if _, err := e.store.Accounts.CreateUser(context.Background(), adminUser); err != nil {
		t.Fatal(err)
	}
	login(adminUser.Email, adminUser.Password)
	b.Open(t, base+"/admin/reports")
	b.Fill(t, "section[id^=report-] textarea", "Checked: the project's export was a day late.")
	b.Click(t, "section[id^=report-] input[name=close]")
	b.Click(t, "section[id^=report-] button[type=submit]")
	if !strings.Contains(b.Text(t, "main"), "closed") {
		t.Errorf("the admin's queue after answering: %q", b.Text(t, "main"))
	}
	shots["admin-reports"] = base + "/admin/reports"
	for _, w := range []int{1280, 390} {
		b.SetWidth(t, w)
		b.Open(t, shots["admin-reports"])
		shot := screenshotPath(t, "trust-admin-reports-"+itoa(int64(w))+".png")
		b.Screenshot(t, shot)
		checkScreenshotWidth(t, shot, w, 500)
	}
	b.Click(t, "header.site form button")
	login("ada@example.org", "ada-password")
	b.Open(t, alpha)
	if !strings.Contains(b.Text(t, "main"), "export was a day late") {
		t.Error("the computer's page does not show the answer")
	}
	shots["answered"] = alpha
	for _, w := range []int{1280, 390} {
		b.SetWidth(t, w)
		for name, url := range shots {
			if name == "admin-reports" {
				continue
			}
			b.Open(t, url)
			shot := screenshotPath(t, "trust-"+name+"-"+itoa(int64(w))+".png")
			b.Screenshot(t, shot)
			checkScreenshotWidth(t, shot, w, 500)
			if overflow := b.Eval(t, "document.documentElement.scrollWidth > window.innerWidth"); overflow != "false" {
				t.Errorf("%s at %d px scrolls sideways", name, w)
			}
		}
	}
}

// seedTrust gives Ada's second computer a pause and a failure, and her
// first a report about a day, which it returns (YYYY-MM-DD).
func seedTrust(t *testing.T, e *volunteerEnv) string {
	t.Helper()
	ctx := context.Background()
	seedFailure(t, e)
	if err := e.store.Computers.SetPause(ctx, e.ada.ID, e.adaHosts[1].ID, accounting.PauseForm{Mode: "wind_down"},
		time.Now(), "UTC"); err != nil {
		t.Fatal(err)
	}
	today := e.store.Ledger.Today(time.Now(), "UTC")
	day := today.AddDate(0, 0, -4).Format(time.DateOnly)
	_, err := e.store.Reports.SendReport(ctx, e.ada.ID, e.adaHosts[0].ID, accounting.NewDayReport{Day: day,
		ProjectID: e.projects[0].ID, Text: "This day looks low."}, today, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return day
}
