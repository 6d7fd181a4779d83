package web_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/boinctest"
)

// TestRealClientLocations follows a volunteer's locations to two real
// clients: the computer moved to a custom location whose preset is Low
// power works under that venue's values (global_prefs.xml and the
// client's preferences in force, GUI RPC get_global_prefs_working), its
// move back to Default restores Default's values at the next sync, and
// "never on this computer" makes that computer alone finish and detach
// while the volunteer's other computer keeps the project.
func TestRealClientLocations(t *testing.T) {
	if testing.Short() {
		t.Skip("real BOINC clients")
	}
	t.Parallel()
	ctx := context.Background()
	amURL, store, rec := startCobble(t)
	projA, projB := boinctest.NewProject(t), boinctest.NewProject(t)
	u, err := store.Accounts.CreateUser(ctx, accounting.NewUser{Email: "vol@example.org", Password: "secret-pass"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := store.Catalog.AddProject(ctx, accounting.Project{URL: projA.URL(), Name: "A", Authenticator: "key-a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Catalog.AddProject(ctx, accounting.Project{URL: projB.URL(), Name: "B", Authenticator: "key-b"}); err != nil {
		t.Fatal(err)
	}
	const laptop = "Laptop café 2" // a custom name, with a space and non-ASCII
	for _, err := range []error{
		store.Computers.SetComputePrefs(ctx, u.ID, accounting.PresetStandard, accounting.ComputePrefs{}),
		store.Computers.SaveLocation(ctx, u.ID, "home", ""),
		store.Computers.SaveLocation(ctx, u.ID, laptop, ""),
		store.Computers.SetLocationPrefs(ctx, u.ID, laptop, accounting.PresetLowPower, accounting.ComputePrefs{}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	one, two := boinctest.Start(t), boinctest.Start(t)
	for _, c := range []*boinctest.Client{one, two} {
		if out, err := c.JoinAcctMgr(ctx, amURL, "vol@example.org", "secret-pass"); err != nil || !boinctest.ParseAMOutput(out).OK() {
			t.Fatalf("join failed: %v\n%s\n%s", err, out, c.Log())
		}
	}
	cs, err := store.Computers.Computers(ctx, u.ID, store.Ledger.Today(time.Now(), "UTC"))
	if err != nil || len(cs) != 2 {
		t.Fatalf("computers: %v %v", cs, err)
	}
	hostOne := min(cs[0].ID, cs[1].ID) // the first to join
	sync := func(c *boinctest.Client) {
		t.Helper()
		if out, err := c.SyncAcctMgr(ctx); err != nil || !boinctest.ParseAMOutput(out).OK() {
			t.Fatalf("sync failed: %v\n%s", err, out)
		}
	}
	working := func(c *boinctest.Client, cpus, cpuTime string) {
		t.Helper()
		boinctest.WaitFor(t, "the preferences in force to be "+cpus+" % of the CPUs, "+cpuTime+" % of the time",
			30*time.Second, func() bool {
				w, err := c.GUIRPC(ctx, "<get_global_prefs_working/>")
				return err == nil && prefValue(w, "max_ncpus_pct") == cpus && prefValue(w, "cpu_usage_limit") == cpuTime
			})
	}

	// Computer one moves to the laptop location.
	if err := store.Computers.SetComputerLocation(ctx, u.ID, hostOne, laptop); err != nil {
		t.Fatal(err)
	}
	sync(one)
	sync(two)
	prefs := readFile(t, filepath.Join(one.Dir, "global_prefs.xml"))
	for _, want := range []string{`<venue name="` + laptop + `">`, "<max_ncpus_pct>50</max_ncpus_pct>"} {
		if !strings.Contains(prefs, want) {
			t.Errorf("global_prefs.xml lacks %s:\n%s", want, prefs)
		}
	}
	if strings.Contains(prefs, `<venue name="home">`) { // another location's: never sent
		t.Errorf("global_prefs.xml has the home venue:\n%s", prefs)
	}
	boinctest.WaitFor(t, "client one to use the laptop venue", 30*time.Second, func() bool {
		return strings.Contains(one.Log(), "Computer location: "+laptop) &&
			strings.Contains(one.Log(), "using separate prefs for "+laptop)
	})
	working(one, "50", "60")
	working(two, "100", "100")

	// Back to Default: Default's values at the next sync.
	if err := store.Computers.SetComputerLocation(ctx, u.ID, hostOne, accounting.DefaultLocation); err != nil {
		t.Fatal(err)
	}
	sync(one)
	boinctest.WaitFor(t, "client one to leave the venue", 30*time.Second, func() bool {
		return strings.Contains(one.Log(), "Computer location: "+accounting.DefaultVenue)
	})
	working(one, "100", "100")

	// Never project A on computer one: it alone finishes and detaches.
	if err := store.Computers.SetComputerChoices(ctx, u.ID, hostOne, map[int64]string{a.ID: "never"}); err != nil {
		t.Fatal(err)
	}
	sync(one)
	sync(one)
	if block := projectBlock(rec.last(), projA.URL()); block != "" &&
		!strings.Contains(block, "<detach_when_done>1</detach_when_done>") {
		t.Errorf("computer one: project A (never there) not set to detach when done:\n%s", block)
	}
	sync(two)
	sync(two)
	if block := projectBlock(rec.last(), projA.URL()); !strings.Contains(block, "<detach_when_done>0</detach_when_done>") {
		t.Errorf("computer two should keep project A:\n%s", block)
	}
	stopsA := func(c *boinctest.Client) (attached, stops bool) {
		ps, err := c.Projects(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if strings.EqualFold(strings.TrimSuffix(p.MasterURL, "/"), strings.TrimSuffix(projA.URL(), "/")) {
				return true, p.Fields["don't request more work"] == "yes"
			}
		}
		return false, false
	}
	if attached, stops := stopsA(one); attached && !stops {
		t.Error("computer one still asks project A for work")
	}
	if attached, stops := stopsA(two); !attached || stops {
		t.Errorf("computer two: project A attached %v, no more work %v", attached, stops)
	}
}

// prefValue is the number in <tag> of a preferences text, without
// trailing zeros ("50.000000" is "50"); "" when absent.
func prefValue(prefs, tag string) string {
	m := regexp.MustCompile(`<` + tag + `>\s*([0-9.]+)\s*</` + tag + `>`).FindStringSubmatch(prefs)
	if m == nil {
		return ""
	}
	v := m[1]
	if strings.Contains(v, ".") {
		v = strings.TrimRight(strings.TrimRight(v, "0"), ".")
	}
	return v
}
