package web_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/boinctest"
	"github.com/cobble-am/cobble/internal/browsertest"
)

// phoneWidth is the narrow viewport every volunteer page must fit.
const phoneWidth = 390

// shootBoth saves screenshots of the page at url at 1280 and 390 pixels
// wide, and fails t if the page scrolls sideways on the phone.
func shootBoth(t *testing.T, b *browsertest.Browser, url, name string) {
	t.Helper()
	b.Open(t, url)
	if b.Status() != 200 {
		t.Fatalf("%s: status %d", url, b.Status())
	}
	for _, w := range []int{1280, phoneWidth} {
		b.Resize(t, w, 900)
		path := screenshotPath(t, name+"-"+strconv.Itoa(w)+".png")
		b.Screenshot(t, path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width != w {
			t.Errorf("%s at %d px: screenshot %d wide (%v)", name, w, cfg.Width, err)
		}
		if w == phoneWidth {
			if got := b.Eval(t, "document.documentElement.scrollWidth <= window.innerWidth"); got != "true" {
				t.Errorf("%s scrolls sideways at %d px: %s px wide", name, w, b.Eval(t, "document.documentElement.scrollWidth"))
			}
			// Nor do its tables scroll sideways inside their boxes, those
			// folded in <details> included.
			b.Eval(t, `document.querySelectorAll("main details").forEach(d => d.open = true)`)
			wide := b.Eval(t, `[...document.querySelectorAll("main table")].filter(t => {
				for (let e = t; e && e !== document.body; e = e.parentElement)
					if (e.scrollWidth > e.clientWidth + 1) return true;
				return t.getBoundingClientRect().right > window.innerWidth;
			}).map(t => t.className || "table").join(", ")`)
			if wide != "" {
				t.Errorf("%s at %d px: tables wider than their box: %s", name, w, wide)
			}
		}
	}
	b.Resize(t, 1280, 900)
}

// Every volunteer page, with 40 days of history, at desktop and phone width.
func TestBrowserVolunteerPages(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	b := browsertest.New(t)
	base := e.http.URL
	shootBoth(t, b, base+"/", "welcome")
	b.Open(t, base+"/login")
	b.Fill(t, "#email", "ada@example.org")
	b.Fill(t, "#password", "ada-password")
	b.Click(t, "main form button[type=submit]")
	if b.URL(t) != base+"/" {
		t.Fatalf("after log-in the browser is on %s", b.URL(t))
	}
	alpha := "/computers/" + strconv.FormatInt(e.adaHosts[0].ID, 10)
	for _, p := range []struct{ path, name string }{
		{"/", "dashboard"}, {"/?days=90&by=project", "dashboard-by-project"}, {"/computers", "computers"},
		{alpha, "computer"}, {"/projects", "projects"}, {"/settings", "settings"},
		{"/settings/science", "settings-science"}, {"/settings/projects", "settings-projects"},
		{"/settings/compute", "settings-compute"},
	} {
		shootBoth(t, b, base+p.path, p.name)
	}
	// The skip link is the first thing the keyboard reaches.
	b.Open(t, base+"/")
	if got := b.Eval(t, `document.querySelector("a").getAttribute("href")`); got != "#main" {
		t.Errorf("first link %q, want the skip link", got)
	}
	// A bad time zone: 422, the message tied to the field, focus on it.
	b.Open(t, base+"/settings")
	b.Fill(t, "#time_zone", "Nowhere/Atlantis")
	b.Click(t, `form[action="/settings/time-zone"] button`)
	status := b.Status()
	// Chromium applies autofocus when it next renders, which on a long page
	// can come just after the load event.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) &&
		b.Eval(t, "document.activeElement.id") != "time_zone"; {
		time.Sleep(50 * time.Millisecond)
	}
	if status != 422 || b.Eval(t, "document.activeElement.id") != "time_zone" {
		t.Errorf("bad time zone: status %d, focus on %q", status, b.Eval(t, "document.activeElement.id"))
	}
	shootBoth(t, b, base+"/settings", "settings-after")
}

// A volunteer signs up in the browser, connects a real BOINC client that
// reports work, sees exactly the ledger's numbers, changes time zone and
// password, and deletes the account; the client is then refused.
func TestBrowserVolunteerJourney(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	amURL, store, _ := startCobble(t)
	proj := boinctest.NewProject(t)
	if _, err := store.Catalog.AddProject(ctx, accounting.Project{URL: proj.URL(), Name: "Proj & Co", Authenticator: "key"}); err != nil {
		t.Fatal(err)
	}
	b := browsertest.New(t)
	base := strings.TrimSuffix(amURL, "/")
	b.Open(t, base+"/signup")
	b.Fill(t, "#email", "vol@example.org")
	b.Fill(t, "#password", "first-password")
	b.Click(t, "main form button[type=submit]")
	b.Open(t, base+signupLink(t, store))
	b.Fill(t, "#password", "first-password")
	b.Click(t, "main form button[type=submit]")
	if !strings.Contains(b.Text(t, "main"), "No computer is connected yet") {
		t.Error("a new volunteer is not told to connect a computer")
	}
	client := boinctest.Start(t)
	if out, err := client.JoinAcctMgr(ctx, amURL, "vol@example.org", "first-password"); err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Fatalf("join: %v\n%s", err, out)
	}
	report := func(values map[string]string) {
		t.Helper()
		client.Stop()
		client.EditProjectCounters(t, proj.URL(), values)
		client.Restart(t)
		if out, err := client.SyncAcctMgr(ctx); err != nil || !boinctest.ParseAMOutput(out).OK() {
			t.Fatalf("sync: %v\n%s", err, out)
		}
	}
	report(map[string]string{"cpu_ec": "100", "cpu_time": "3600", "njobs_success": "5", "njobs_error": "1"})
	report(map[string]string{"cpu_ec": "100.25", "cpu_time": "3630", "njobs_success": "6", "njobs_error": "1"})

	u, err := store.Accounts.Login(ctx, "vol@example.org", "first-password")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := store.Ledger.Summary(ctx, u.ID, store.Ledger.Today(time.Now(), u.TimeZone))
	if err != nil || sum.AllTime.Estimated != 0.25 || sum.AllTime.JobsOK != 1 {
		t.Fatalf("ledger: %+v, %v; want 0.25 credit and 1 job", sum.AllTime, err)
	}
	b.Open(t, base+"/")
	if got := b.Text(t, "table.totals tbody tr:first-child td:last-child"); got != "0.25" {
		t.Errorf("dashboard all-time estimate %q, want 0.25", got)
	}
	cs, _ := store.Computers.Computers(ctx, u.ID, store.Ledger.Today(time.Now(), u.TimeZone))
	if len(cs) != 1 {
		t.Fatalf("%d computers", len(cs))
	}
	b.Open(t, base+"/computers/"+strconv.FormatInt(cs[0].ID, 10))
	if !strings.Contains(b.Text(t, "main"), "Proj & Co") || !strings.Contains(b.Text(t, "main"), "0.25") {
		t.Error("the computer page lacks its project or its credit")
	}
	csv := b.Eval(t, `(() => { const x = new XMLHttpRequest(); x.open("GET", "/export/history.csv", false); x.send(); return x.responseText; })()`)
	if !strings.Contains(csv, ","+proj.URL()+",Proj & Co,0.25,30,0,1,0,0,0\n") {
		t.Errorf("CSV does not hold the ledger's row:\n%s", csv)
	}

	b.Open(t, base+"/settings")
	b.Fill(t, "#time_zone", "Pacific/Auckland")
	b.Click(t, `form[action="/settings/time-zone"] button`)
	b.Fill(t, "#current_password", "first-password")
	b.Fill(t, "#password", "second-password")
	b.Click(t, `form[action="/settings/password"] button`)
	if text := b.Text(t, "main"); !strings.Contains(text, "password is changed") || !strings.Contains(text, "Now: Pacific/Auckland") {
		t.Errorf("settings after the changes:\n%s", text)
	}
	if out, err := client.SyncAcctMgr(ctx); err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Errorf("the computer stopped working after the password change: %v\n%s", err, out)
	}
	b.Click(t, `form[action="/settings/delete"] button`)
	b.Fill(t, "#password", "second-password")
	b.Click(t, `main form button[type=submit]`)
	if b.URL(t) != base+"/" || !strings.Contains(b.Text(t, "main"), "How it works") {
		t.Errorf("after deleting, the browser is on %s", b.URL(t))
	}
	if out, _ := client.SyncAcctMgr(ctx); boinctest.ParseAMOutput(out).OK() {
		t.Errorf("the deleted volunteer's computer is still served:\n%s", out)
	}
}
