package web_test

import (
	"context"
	"image/png"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/boinctest"
	"github.com/cobble-am/cobble/internal/browsertest"
)

// An admin adds a project in the browser; a real BOINC client's next sync
// attaches it (so its URL signature verified); the admin edits and retires
// it; the next sync tells the client to finish and detach; the audit log
// shows the three changes.
func TestBrowserAdminCatalogWithRealClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	amURL, store, rec := startCobble(t)
	projA, projB := boinctest.NewProject(t), boinctest.NewProject(t)
	for _, nu := range []accounting.NewUser{{Email: "vol@example.org", Password: "secret-pass"},
		{Email: "admin@example.org", Password: "long-enough", IsAdmin: true}} {
		if _, err := store.Accounts.CreateUser(ctx, nu); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.Catalog.AddProject(ctx, accounting.Project{URL: projA.URL(), Name: "A", Authenticator: "key-a"}); err != nil {
		t.Fatal(err)
	}
	client := boinctest.Start(t)
	if out, err := client.JoinAcctMgr(ctx, amURL, "vol@example.org", "secret-pass"); err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Fatalf("join failed: %v\n%s", err, out)
	}

	b := browsertest.New(t)
	b.Open(t, amURL+"login")
	b.Fill(t, "#email", "admin@example.org")
	b.Fill(t, "#password", "long-enough")
	b.Click(t, "button[type=submit]")
	b.Open(t, amURL+"admin/projects/new")
	b.Fill(t, "#name", "Project B")
	b.Fill(t, "#url", projB.URL())
	b.Fill(t, "#authenticator", "key-b")
	b.Fill(t, "#keywords", "Physics, Astronomy")
	b.Click(t, "#save")
	if !strings.HasSuffix(b.URL(t), "/admin/projects") || !strings.Contains(b.Text(t, "#catalog"), "Project B") {
		t.Fatalf("after adding, at %s:\n%s", b.URL(t), b.Text(t, "main"))
	}
	// Catalog changes reach RPCs within the catalog cache's 5 seconds; this
	// instance forgot its cache on the change.
	if out, err := client.SyncAcctMgr(ctx); err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Fatalf("sync after adding: %v\n%s", err, out)
	}
	boinctest.WaitFor(t, "the client to attach project B", 30*time.Second, func() bool { return projB.MasterFetches() > 0 })
	if log := client.Log(); strings.Contains(log, "signature") && strings.Contains(log, "invalid") {
		t.Fatalf("the client rejected B's signature:\n%s", log)
	}
	p, err := store.Catalog.ProjectByURL(ctx, projB.URL())
	if err != nil {
		t.Fatal(err)
	}
	b.Open(t, amURL+"admin/projects/"+itoa(p.ID)+"/edit")
	b.Fill(t, "#share", "50")
	b.Click(t, "#save")
	b.Open(t, amURL+"admin/projects/"+itoa(p.ID)+"/edit")
	b.Eval(t, `document.querySelector('#status').value = 'retired'`)
	b.Click(t, "#save")

	for range 2 { // the reply to the first tells the client; the second shows it obeyed
		if out, err := client.SyncAcctMgr(ctx); err != nil || !boinctest.ParseAMOutput(out).OK() {
			t.Fatalf("sync after retiring: %v\n%s", err, out)
		}
	}
	if block := projectBlock(rec.last(), projB.URL()); block != "" && !strings.Contains(block, "<detach_when_done>1</detach_when_done>") {
		t.Errorf("retired project not marked detach-when-done by the client:\n%s", block)
	}
	b.Open(t, amURL+"admin/audit")
	audit := b.Text(t, "#audit")
	for _, want := range []string{"project add", "project edit", "share: 100 → 50", "project status", "status: active → retired", "admin@example.org"} {
		if !strings.Contains(audit, want) {
			t.Errorf("audit log lacks %q:\n%s", want, audit)
		}
	}
	screenshots(t, b, amURL, map[string]string{"catalog": "admin/projects", "edit": "admin/projects/" + itoa(p.ID) + "/edit",
		"audit": "admin/audit", "overview": "admin/overview", "user": "admin/lookup?q=vol"})
}

// screenshots saves each page at 1280 and 390 pixels wide and checks that
// the narrow one does not scroll sideways: wide tables scroll in their box.
func screenshots(t *testing.T, b *browsertest.Browser, base string, pages map[string]string) {
	for _, width := range []int{1280, 390} {
		b.Resize(t, width, 900)
		for name, path := range pages {
			b.Open(t, base+path)
			if overflow := b.Eval(t, "document.documentElement.scrollWidth > window.innerWidth"); overflow != "false" {
				t.Errorf("%s at %d px scrolls sideways", name, width)
			}
			shot := screenshotPath(t, "admin-"+name+"-"+itoa(int64(width))+".png")
			b.Screenshot(t, shot)
			f, err := os.Open(shot)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(f)
			f.Close()
			if err != nil || cfg.Width != width {
				t.Errorf("%s: %d px wide (%v), want %d", shot, cfg.Width, err, width)
			}
		}
	}
	b.Resize(t, 1280, 900)
}
