package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/smtptest"
	"github.com/cobble-am/cobble/web"
)

// failingHost joins a computer with a password and reports counters for
// one project through the store's RPC, on the test's clock.
type failingHost struct {
	t          *testing.T
	e          *mailEnv
	auth, host string
	now        time.Time
}

func (h *failingHost) sync(c *accounting.Counters) {
	h.t.Helper()
	h.now = h.now.Add(time.Hour)
	req := accounting.SyncRequest{Now: h.now, Authenticator: h.auth, HostToken: h.host,
		Host:     accounting.HostReport{CPID: "cpid-fail", Platforms: []string{"x86_64-pc-linux-gnu"}, NCPUs: 8, PFPOps: 3e9},
		Projects: []accounting.ProjectReport{{URL: fixtureURL, AttachedViaAM: true, HostID: 5, Counters: c}}}
	if h.auth == "" {
		req.Email, req.PasswordHash = "vol@example.org", boinc.PasswordHash("secret-pass", "vol@example.org")
	}
	res, err := h.e.store.Sync.Sync(context.Background(), req)
	if err != nil {
		h.t.Fatal(err)
	}
	h.auth, h.host = res.Authenticator, res.HostToken
}

// waitEpisodes waits until the computer has open failure episodes.
func (h *failingHost) waitEpisodes(open int) {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := h.e.pool.QueryRow(context.Background(), `SELECT count(*) FROM host_failures WHERE ended_at IS NULL`).Scan(&n); err != nil {
			h.t.Fatal(err)
		}
		if n == open {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("after 30 s, %d open episodes, want %d", n, open)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A computer whose failed jobs grow is mailed about once over real SMTP,
// however often the check runs; the episode ends when the failures stop,
// and a new episode mails again; one click turns the alert off.
func TestFailingAlertOncePerEpisode(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, func(cfg *web.Config) { cfg.AlertsEvery = 200 * time.Millisecond })
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	c := signUpAndConfirm(t, e)
	if status, _, _ := do(t, c, "POST", e.base+"settings/alerts", url.Values{"alert_failing": {"on"}}, nil); status != http.StatusSeeOther {
		t.Fatalf("POST /settings/alerts: status %d", status)
	}
	h := &failingHost{t: t, e: e, now: time.Now().Add(-6 * time.Hour)}
	h.sync(&accounting.Counters{})
	h.sync(&accounting.Counters{CPUEC: 5, CPUTime: 3600, JobsSuccess: 1, JobsError: 6})
	e.waitMail("failing alert", func(ms []smtptest.Message) bool { return len(withSubject(t, ms, "needs a look")) > 0 })
	time.Sleep(time.Second) // five more checks
	if n := len(withSubject(t, e.relay.Messages(), "needs a look")); n != 1 {
		t.Fatalf("%d failing alerts for one episode, want 1", n)
	}
	h.sync(&accounting.Counters{CPUEC: 10, CPUTime: 7200, JobsSuccess: 40, JobsError: 6})
	h.waitEpisodes(0)
	h.sync(&accounting.Counters{CPUEC: 11, CPUTime: 7300, JobsSuccess: 40, JobsError: 90})
	e.waitMail("a second failing alert", func(ms []smtptest.Message) bool { return len(withSubject(t, ms, "needs a look")) == 2 })
	alerts := withSubject(t, e.relay.Messages(), "needs a look")
	oneClick(t, e, alerts[1])
	var on bool
	if err := e.pool.QueryRow(context.Background(), `SELECT alert_failing FROM users WHERE email = 'vol@example.org'`).Scan(&on); err != nil || on {
		t.Errorf("after one click the failing alert is on: %v (%v)", on, err)
	}
}
