package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/browsertest"
)

// seedJobProblems writes a stuck round and a failed one, whose error
// holds markup, into the job queue.
func seedJobProblems(t *testing.T, e *env) {
	t.Helper()
	_, err := e.pool.Exec(context.Background(), `INSERT INTO river_job (args, kind, state, attempt, attempted_at, scheduled_at, finalized_at, errors)
		VALUES ('{}', 'rollup_round', 'running', 1, now() - interval '2 hours', now() - interval '2 hours', NULL, NULL),
		('{}', 'alerts_round', 'discarded', 1, now() - interval '1 hour', now() - interval '1 hour', now() - interval '1 hour',
			ARRAY['{"attempt": 1, "error": "the <b>database</b> went away"}'::jsonb])`)
	if err != nil {
		t.Fatal(err)
	}
}

// The admin overview shows the job queue's stuck and failed jobs, with
// the last error as text, and nothing of the queue while it is healthy.
func TestOverviewShowsJobProblems(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.login("admin@example.org", true)
	_, page, _ := do(t, admin, "GET", e.http.URL+"/admin/overview", nil, nil)
	if strings.Contains(page, `id="jobs"`) {
		t.Error("the overview shows the job queue while no job is stuck or failed")
	}
	seedJobProblems(t, e)
	// Each kind's timeout decides: a message's job is stuck after minutes
	// (web.JobTimeouts), a reconciliation round's not after 90 minutes.
	_, err := e.pool.Exec(context.Background(), `INSERT INTO river_job (args, kind, queue, state, attempt, attempted_at, scheduled_at)
		VALUES ('{"id": 1}', 'mail', 'mail', 'running', 1, now() - interval '5 minutes', now() - interval '5 minutes'),
		('{}', 'reconcile_round', 'default', 'running', 1, now() - interval '90 minutes', now() - interval '90 minutes')`)
	if err != nil {
		t.Fatal(err)
	}
	_, page, _ = do(t, admin, "GET", e.http.URL+"/admin/overview", nil, nil)
	for _, want := range []string{`id="jobs"`, "2 jobs are stuck", "1 job failed in the last 24 hours.",
		"rollup_round", ">mail<", "alerts_round", "the &lt;b&gt;database&lt;/b&gt; went away"} {
		if !strings.Contains(page, want) {
			t.Errorf("the overview lacks %q", want)
		}
	}
	if strings.Contains(page, "reconcile_round") {
		t.Error("the overview names a reconciliation round running within its timeout")
	}
	if strings.Contains(page, "<b>database</b>") {
		t.Error("a job's error is written as markup")
	}
}

// In a real browser, the overview's job table fits 1280 and 390 pixels
// (it scrolls sideways inside its box), and axe-core finds nothing.
func TestBrowserOverviewJobs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := accounting.NewUser{Email: "admin@example.org", Password: "long-enough", IsAdmin: true}
	if _, err := e.store.Accounts.CreateUser(context.Background(), admin); err != nil {
		t.Fatal(err)
	}
	seedJobProblems(t, e)
	b := browsertest.New(t)
	b.Open(t, e.http.URL+"/login")
	b.Fill(t, "#email", "admin@example.org")
	b.Fill(t, "#password", "long-enough")
	b.Click(t, "main form button[type=submit]")
	for _, w := range []int{1280, phoneWidth} {
		b.Resize(t, w, 900)
		b.Open(t, e.http.URL+"/admin/overview")
		if got := b.Text(t, "#jobs h2"); got != "Background jobs" {
			t.Errorf("at %d px the jobs heading is %q", w, got)
		}
		for _, v := range b.Axe(t, browsertest.WCAG21AA...) {
			t.Errorf("at %d px: %v", w, v)
		}
		b.Screenshot(t, screenshotPath(t, "overview-jobs-"+itoa(int64(w))+".png"))
	}
}
