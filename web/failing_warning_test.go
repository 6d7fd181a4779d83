package web_test

import (
	"context"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
)

// A computer failing on a project gets one warning on the dashboard, with
// one count, and the dashboard calls the work "tasks" throughout, as BOINC
// Manager does (issue 45, item 7): not a second warning over all computers'
// last 7 days with other numbers and the word "jobs".
func TestFailingComputerHasOneWarning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	e.user("vol@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	now := time.Now().Add(-2 * time.Hour)
	var auth, host string
	for _, c := range []accounting.Counters{{}, {CPUEC: 5, CPUTime: 3600, JobsSuccess: 4, JobsError: 6}} {
		now = now.Add(time.Hour)
		req := accounting.SyncRequest{Now: now, Authenticator: auth, HostToken: host,
			Host:     accounting.HostReport{CPID: "cpid-fail", DomainName: "flaky", ClientVersion: "7.20.5", Platforms: []string{"x86_64-pc-linux-gnu"}, NCPUs: 8, PFPOps: 3e9},
			Projects: []accounting.ProjectReport{{URL: fixtureURL, AttachedViaAM: true, HostID: 5, Counters: &c}}}
		if auth == "" {
			req.Email, req.PasswordHash = "vol@example.org", boinc.PasswordHash("secret-pass", "vol@example.org")
		}
		res, err := e.store.Sync.Sync(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		auth, host = res.Authenticator, res.HostToken
	}
	if err := e.store.Computers.CheckFailing(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	_, dash, _ := do(t, e.session(t, "vol@example.org", "secret-pass"), "GET", e.http.URL+"/", nil, nil)
	section := regexp.MustCompile(`(?s)<section class="warnings".*?</section>`).FindString(dash)
	alerts := regexp.MustCompile(`(?s)<p class="alert[^"]*">(.*?)</p>`).FindAllStringSubmatch(section, -1)
	var failing []string
	for _, a := range alerts {
		if strings.Contains(a[1], "failed") {
			failing = append(failing, html.UnescapeString(a[1]))
		}
	}
	if len(failing) != 1 || !strings.Contains(failing[0], "6 of its last 10 tasks") {
		t.Errorf("warnings about failed work: %q, want one saying 6 of its last 10 tasks", failing)
	}
	if job := regexp.MustCompile(`(?i)\bjobs?\b`).FindString(dashboardText(dash)); job != "" {
		t.Errorf("the dashboard says %q beside \"tasks\":\n%s", job, dash)
	}
}

// dashboardText is the page's text between its h1 and its footer.
func dashboardText(page string) string {
	page = regexp.MustCompile(`(?s)^.*?<h1|<footer.*$`).ReplaceAllString(page, "")
	return html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(page, " "))
}
