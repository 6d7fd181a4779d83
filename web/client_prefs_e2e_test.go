package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/boinctest"
)

// TestRealClientPreferences follows a volunteer's settings to a real
// client: the Low power preset lands in global_prefs.xml, the keyword
// answers in acct_mgr_login.xml, and a project set to "never" is asked to
// finish and detach.
func TestRealClientPreferences(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	amURL, store, rec := startCobble(t)
	projA, projB := boinctest.NewProject(t), boinctest.NewProject(t)
	u, err := store.Accounts.CreateUser(ctx, accounting.NewUser{Email: "vol@example.org", Password: "secret-pass"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := store.Catalog.AddProject(ctx, accounting.Project{URL: projA.URL(), Name: "A", Authenticator: "key-a", Keywords: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Catalog.AddProject(ctx, accounting.Project{URL: projB.URL(), Name: "B", Authenticator: "key-b"}); err != nil {
		t.Fatal(err)
	}
	client := boinctest.Start(t)
	out, err := client.JoinAcctMgr(ctx, amURL, "vol@example.org", "secret-pass")
	if err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Fatalf("join failed: %v\n%s\n%s", err, out, client.Log())
	}
	if _, err := os.Stat(filepath.Join(client.Dir, "global_prefs.xml")); err == nil {
		t.Errorf("the client got global preferences before the volunteer chose any")
	}

	// The volunteer picks Low power, says yes to Protein research, no to
	// Cosmology, and never to project A.
	low, _ := accounting.Preset(accounting.PresetLowPower)
	if err := store.Computers.SetComputePrefs(ctx, u.ID, accounting.PresetLowPower, accounting.ComputePrefs{}); err != nil {
		t.Fatal(err)
	}
	if err := store.Computers.SetKeywordChoices(ctx, u.ID, map[int]accounting.KeywordAnswer{11: "yes", 5: "no"}); err != nil {
		t.Fatal(err)
	}
	if err := store.Computers.SetProjectChoices(ctx, u.ID, map[int64]string{a.ID: "never"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if out, err := client.SyncAcctMgr(ctx); err != nil || !boinctest.ParseAMOutput(out).OK() {
			t.Fatalf("sync failed: %v\n%s", err, out)
		}
	}

	prefs := readFile(t, filepath.Join(client.Dir, "global_prefs.xml"))
	for _, want := range []string{"<max_ncpus_pct>50</max_ncpus_pct>", "<cpu_usage_limit>60</cpu_usage_limit>",
		"<run_if_user_active>0</run_if_user_active>", "<mod_time>", "<source_project>" + amURL} {
		if !strings.Contains(prefs, want) {
			t.Errorf("global_prefs.xml lacks %s:\n%s", want, prefs)
		}
	}
	if low.MaxCPUsPct != 50 || low.CPUTimePct != 60 {
		t.Errorf("the Low power preset changed (%+v): update this test", low)
	}
	// The client applies them, from Cobble.
	boinctest.WaitFor(t, "the client to apply the preferences", 30*time.Second, func() bool {
		return strings.Contains(client.Log(), "General prefs: from "+amURL) &&
			strings.Contains(client.Log(), "don't compute while active")
	})
	login := readFile(t, filepath.Join(client.Dir, "acct_mgr_login.xml"))
	if !strings.Contains(login, "<yes>11</yes>") || !strings.Contains(login, "<no>5</no>") {
		t.Errorf("acct_mgr_login.xml lacks the keywords:\n%s", login)
	}
	// Project A ("never") was sent detach_when_done: the client reports it
	// so on its next request, or has detached it already.
	if block := projectBlock(rec.last(), projA.URL()); block != "" &&
		!strings.Contains(block, "<detach_when_done>1</detach_when_done>") {
		t.Errorf("project A (never) not set to detach when done:\n%s", block)
	}
	if block := projectBlock(rec.last(), projB.URL()); !strings.Contains(block, "<detach_when_done>0</detach_when_done>") {
		t.Errorf("project B should carry on:\n%s", block)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return string(b)
}
