package accounting_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// joinedHost joins a host of the volunteer and returns a function that
// makes its steady-state RPC, reporting the projects given.
func joinedHost(t *testing.T, s *accounting.Store, email, password, cpid string, report ...accounting.Project) (
	accounting.SyncResult, func() accounting.SyncResult) {
	t.Helper()
	joined, err := s.Sync.Sync(context.Background(), joinRequest(email, password, cpid))
	if err != nil {
		t.Fatal(err)
	}
	return joined, func() accounting.SyncResult {
		t.Helper()
		req := joinRequest("", "", cpid)
		req.Authenticator, req.HostToken = joined.Authenticator, joined.HostToken
		for _, p := range report {
			req.Projects = append(req.Projects, accounting.ProjectReport{URL: p.URL, AttachedViaAM: true})
		}
		res, err := s.Sync.Sync(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
}

func venueNames(res accounting.SyncResult) string {
	var names []string
	for _, v := range res.Venues {
		names = append(names, v.Name)
	}
	return strings.Join(names, ",")
}

// A computer's location reaches the reply as its venue, the only one it
// is sent; the modification time changes when what the computer is sent
// does (its location's values or name, Default's values, a move to a
// location changed since), and only then. Nothing done to another
// location reaches it.
func TestLocationsReachTheReply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	u, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "long-enough"})
	joined, sync := joinedHost(t, s, "ada@example.org", "long-enough", "cpid-1")
	if res := sync(); res.Prefs != nil || res.HostVenue != "" || len(res.Venues) != 0 {
		t.Fatalf("before any choice: %+v, venue %q, venues %v", res.Prefs, res.HostVenue, res.Venues)
	}
	if err := s.Computers.SaveLocation(ctx, u.ID, "home", ""); err != nil {
		t.Fatal(err)
	}
	// Adding a location leaves Default unchosen: its computer keeps its own.
	if res := sync(); res.Prefs != nil || res.HostVenue != "" || len(res.Venues) != 0 {
		t.Fatalf("after adding home: prefs %+v, venue %q, venues %q", res.Prefs, res.HostVenue, venueNames(res))
	}
	if err := s.Computers.SetLocationPrefs(ctx, u.ID, "", accounting.PresetStandard, accounting.ComputePrefs{}); err != nil {
		t.Fatal(err)
	}
	first := sync()
	if first.Prefs == nil || first.HostVenue != accounting.DefaultVenue || venueNames(first) != "" {
		t.Fatalf("Default standard: prefs %+v, venue %q, venues %q", first.Prefs, first.HostVenue, venueNames(first))
	}
	modTimes := []time.Time{first.Prefs.ModTime}
	step := func(what string, change func() error, wantChange bool, check func(accounting.SyncResult) bool) {
		t.Helper()
		time.Sleep(5 * time.Millisecond) // now() moves on
		if err := change(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		res := sync()
		last := modTimes[len(modTimes)-1]
		if changed := !res.Prefs.ModTime.Equal(last); changed != wantChange || res.Prefs.ModTime.Before(last) {
			t.Errorf("%s: mod_time %v after %v, want a change: %v", what, res.Prefs.ModTime, last, wantChange)
		}
		if !check(res) {
			t.Errorf("%s: venue %q, venues %+v", what, res.HostVenue, res.Venues)
		}
		modTimes = append(modTimes, res.Prefs.ModTime)
	}
	low, _ := accounting.Preset(accounting.PresetLowPower)
	atDefault := func(r accounting.SyncResult) bool {
		return r.HostVenue == accounting.DefaultVenue && venueNames(r) == ""
	}
	// What happens to another location never reaches the computer at Default.
	step("add Laptop café", func() error { return s.Computers.SaveLocation(ctx, u.ID, "Laptop café", "") }, false, atDefault)
	step("Laptop café low power", func() error {
		return s.Computers.SetLocationPrefs(ctx, u.ID, "LAPTOP café", accounting.PresetLowPower, accounting.ComputePrefs{})
	}, false, atDefault)
	// At Laptop café, the computer gets that venue alone.
	step("move the computer", func() error {
		return s.Computers.SetComputerLocation(ctx, u.ID, joined.HostID, "Laptop café")
	}, true, func(r accounting.SyncResult) bool {
		return r.HostVenue == "Laptop café" && venueNames(r) == "Laptop café" && r.Venues[0].Compute.MaxCPUsPct == low.MaxCPUsPct
	})
	step("the same again", func() error {
		return s.Computers.SetLocationPrefs(ctx, u.ID, "Laptop café", accounting.PresetLowPower, accounting.ComputePrefs{})
	}, false, func(r accounting.SyncResult) bool { return true })
	step("nickname", func() error { return s.Computers.SetComputerName(ctx, u.ID, joined.HostID, "Ada's laptop") }, false,
		func(r accounting.SyncResult) bool { return r.HostVenue == "Laptop café" })
	step("rename home", func() error { return s.Computers.SaveLocation(ctx, u.ID, "house", "home") }, false,
		func(r accounting.SyncResult) bool { return venueNames(r) == "Laptop café" })
	step("rename", func() error { return s.Computers.SaveLocation(ctx, u.ID, "Laptop", "Laptop café") }, true,
		func(r accounting.SyncResult) bool {
			return r.HostVenue == "Laptop" && venueNames(r) == "Laptop" && r.Venues[0].Compute.MaxCPUsPct == low.MaxCPUsPct
		})
	step("Default maximum", func() error {
		return s.Computers.SetLocationPrefs(ctx, u.ID, "", accounting.PresetMaximum, accounting.ComputePrefs{})
	}, true, func(r accounting.SyncResult) bool { return r.Prefs.MaxCPUsPct == 100 && r.HostVenue == "Laptop" })
	step("back to Default", func() error { return s.Computers.SetComputerLocation(ctx, u.ID, joined.HostID, "Default") }, false,
		atDefault)
	step("to Laptop again", func() error { return s.Computers.SetComputerLocation(ctx, u.ID, joined.HostID, "Laptop") }, false,
		func(r accounting.SyncResult) bool { return r.HostVenue == "Laptop" })
	step("delete Laptop", func() error { return s.Computers.DeleteLocation(ctx, u.ID, "Laptop") }, false, atDefault)
	if err := s.Computers.SaveLocation(ctx, u.ID, "home", "house"); err != nil {
		t.Fatal(err)
	}

	locs, err := s.Computers.Locations(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(locs) != 2 || locs[0].Name != "Default" || len(locs[0].Computers) != 1 ||
		locs[0].Computers[0].Label != "Ada's laptop" || locs[1].Name != "home" {
		t.Errorf("locations: %+v", locs)
	}
}

// Bad input changes nothing and says which field is wrong; another
// volunteer's computer is not found.
func TestLocationBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	s := accounting.NewStore(pool, testOptions)
	u, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "long-enough"})
	other, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "bob@example.org", Password: "long-enough"})
	p, _ := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://a.example.org/", Name: "A", Authenticator: "k"})
	mine, _ := joinedHost(t, s, "ada@example.org", "long-enough", "cpid-1")
	theirs, _ := joinedHost(t, s, "bob@example.org", "long-enough", "cpid-2")
	for _, n := range []string{"home", "work", "school", "a", "b", "c", "d", "e"} {
		if err := s.Computers.SaveLocation(ctx, u.ID, n, ""); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, pool)
	invalid := func(what, field string, err error) {
		t.Helper()
		var v *accounting.ValidationError
		if !errors.As(err, &v) || v.Fields[field].IsZero() {
			t.Errorf("%s: %v, want a message on %q", what, err, field)
		}
	}
	invalid("9th", "name", s.Computers.SaveLocation(ctx, u.ID, "ninth", ""))
	for _, name := range []string{"<b>x</b>", "a&b", `say "hi"`, "tab\there", "bell\a", "bad\xffutf8",
		strings.Repeat("x", 33), "", "  ", "Default", "DEFAULT", "default", "Allgemein", "allgemein"} {
		invalid("rename to "+name, "name", s.Computers.SaveLocation(ctx, u.ID, name, "home"))
	}
	invalid("rename to a taken name", "name", s.Computers.SaveLocation(ctx, u.ID, "WORK", "home"))
	invalid("rename an unknown one", "rename_from", s.Computers.SaveLocation(ctx, u.ID, "office", "nowhere"))
	invalid("delete an unknown one", "name", s.Computers.DeleteLocation(ctx, u.ID, "nowhere"))
	invalid("prefs of an unknown one", "location", s.Computers.SetLocationPrefs(ctx, u.ID, "nowhere", accounting.PresetMaximum, accounting.ComputePrefs{}))
	invalid("bad preset", "preset", s.Computers.SetLocationPrefs(ctx, u.ID, "home", "turbo", accounting.ComputePrefs{}))
	invalid("move to an unknown one", "location", s.Computers.SetComputerLocation(ctx, u.ID, mine.HostID, "nowhere"))
	invalid("move to another's", "location", s.Computers.SetComputerLocation(ctx, other.ID, theirs.HostID, "home"))
	invalid("long nickname", "name", s.Computers.SetComputerName(ctx, u.ID, mine.HostID, strings.Repeat("é", 65)))
	invalid("markup nickname", "name", s.Computers.SetComputerName(ctx, u.ID, mine.HostID, "<script>"))
	invalid("control nickname", "name", s.Computers.SetComputerName(ctx, u.ID, mine.HostID, "a\x00b"))
	invalid("unknown project", "project", s.Computers.SetComputerChoices(ctx, u.ID, mine.HostID, map[int64]string{p.ID + 99: "never"}))
	invalid("unknown word", "project", s.Computers.SetComputerChoices(ctx, u.ID, mine.HostID, map[int64]string{p.ID: "sometimes"}))
	for what, err := range map[string]error{
		"move":     s.Computers.SetComputerLocation(ctx, u.ID, theirs.HostID, "home"),
		"name":     s.Computers.SetComputerName(ctx, u.ID, theirs.HostID, "mine now"),
		"projects": s.Computers.SetComputerChoices(ctx, u.ID, theirs.HostID, map[int64]string{p.ID: "never"}),
	} {
		if !errors.Is(err, accounting.ErrNotFound) {
			t.Errorf("%s on another volunteer's computer: %v, want ErrNotFound", what, err)
		}
	}
	if _, err := s.Computers.ComputerSettings(ctx, u.ID, theirs.HostID); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("settings of another volunteer's computer: %v", err)
	}
	if after := snapshot(t, pool); after != before {
		t.Errorf("bad input changed the database:\nbefore %s\nafter  %s", before, after)
	}
	// A 64-character nickname is fine.
	if err := s.Computers.SetComputerName(ctx, u.ID, mine.HostID, strings.Repeat("é", 64)); err != nil {
		t.Error(err)
	}
	// A volunteer with locations, a computer at one and its own choices
	// can still delete their account.
	if err := s.Computers.SetComputerLocation(ctx, u.ID, mine.HostID, "home"); err != nil {
		t.Fatal(err)
	}
	if err := s.Computers.SetComputerChoices(ctx, u.ID, mine.HostID, map[int64]string{p.ID: "always"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Accounts.DeleteUser(ctx, u.ID, "long-enough"); err != nil {
		t.Errorf("delete a volunteer with locations: %v", err)
	}
}

// snapshot is what bad input must not change.
func snapshot(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var out string
	err := pool.QueryRow(context.Background(), `SELECT concat_ws(' | ',
		(SELECT string_agg(concat_ws(',', user_id, name, preset, prefs::text, mod_time), ';' ORDER BY id) FROM locations),
		(SELECT string_agg(concat_ws(',', id, location_id, nickname), ';' ORDER BY id) FROM hosts),
		(SELECT string_agg(concat_ws(',', host_id, project_id, choice), ';') FROM host_project_choices),
		(SELECT string_agg(concat_ws(',', user_id, prefs::text, mod_time), ';') FROM compute_prefs),
		(SELECT string_agg(prefs_version::text, ',' ORDER BY id) FROM users))`).Scan(&out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A computer's own choices come before the volunteer's: "never" detaches
// the project from that computer only, "always" runs it there even when
// the volunteer said never for all their computers.
func TestComputerProjectChoices(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	u, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "long-enough"})
	a, _ := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://a.example.org/", Name: "A", Authenticator: "k"})
	b, _ := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://b.example.org/", Name: "B", Authenticator: "k"})
	c, _ := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://c.example.org/", Name: "C", Authenticator: "k"})
	if err := s.Computers.SetProjectChoices(ctx, u.ID, map[int64]string{c.ID: "never"}); err != nil {
		t.Fatal(err)
	}
	one, syncOne := joinedHost(t, s, "ada@example.org", "long-enough", "cpid-1", a, b)
	_, syncTwo := joinedHost(t, s, "ada@example.org", "long-enough", "cpid-2", a, b)
	action := func(res accounting.SyncResult, id int64) (accounting.Action, accounting.Reason) {
		for _, as := range res.Assignments {
			if as.Project.ID == id {
				return as.Action, as.Reason
			}
		}
		return 0, ""
	}
	if act, _ := action(syncOne(), a.ID); act != accounting.Work {
		t.Fatalf("A on host one before any choice: %v", act)
	}
	if err := s.Computers.SetComputerChoices(ctx, u.ID, one.HostID, map[int64]string{a.ID: "never", c.ID: "always", b.ID: "automatic"}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // the second from the same memory
		r1, r2 := syncOne(), syncTwo()
		if act, _ := action(r1, a.ID); act != accounting.Detach {
			t.Errorf("A on host one (never there): %v, want Detach", act)
		}
		if act, why := action(r1, c.ID); act != accounting.Work || (i == 0 && why != accounting.ReasonHostAlways) {
			t.Errorf("C on host one (always there): %v %q", act, why)
		}
		if act, _ := action(r2, a.ID); act != accounting.Work {
			t.Errorf("A on host two: %v, want Work", act)
		}
		if act, _ := action(r2, c.ID); act != 0 {
			t.Errorf("C on host two (never for all): %v", act)
		}
	}
	st, err := s.Computers.ComputerSettings(ctx, u.ID, one.HostID)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Choices) != 2 || st.Choices[a.ID] != accounting.ChoiceNever || st.Choices[c.ID] != accounting.ChoiceAlways {
		t.Errorf("stored choices %v", st.Choices)
	}
	reasons, _ := s.Computers.HostProjectReasons(ctx, one.HostID)
	if reasons[c.ID] != accounting.ReasonHostAlways {
		t.Errorf("reason for C: %q", reasons[c.ID])
	}
}

// A location whose stored values cannot be used never fails an RPC: its
// computers get Default's values (and no other location's), and the
// problem is logged once.
func TestOddLocationFallsBackToDefault(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	var logs bytes.Buffer
	opts := testOptions
	opts.Log = slog.New(slog.NewTextHandler(&logs, nil))
	s := accounting.NewStore(pool, opts)
	u, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "long-enough"})
	joined, sync := joinedHost(t, s, "ada@example.org", "long-enough", "cpid-1")
	if err := s.Computers.SetComputePrefs(ctx, u.ID, accounting.PresetStandard, accounting.ComputePrefs{}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"home", "work"} {
		if err := s.Computers.SaveLocation(ctx, u.ID, n, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Computers.SetComputerLocation(ctx, u.ID, joined.HostID, "work"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`UPDATE locations SET prefs = '{"max_ncpus_pct": 900}' WHERE name = 'work'`,
		`UPDATE locations SET prefs = '"text"' WHERE name = 'work'`,
		`UPDATE locations SET name = 'wo<rk', prefs = (SELECT prefs FROM compute_prefs) WHERE name = 'work'`} {
		if _, err := pool.Exec(ctx, bad); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			res := sync()
			if res.HostVenue != accounting.DefaultVenue || venueNames(res) != "" || res.Prefs == nil {
				t.Errorf("after %s: venue %q, venues %q", bad, res.HostVenue, venueNames(res))
			}
		}
	}
	if n := strings.Count(logs.String(), "stored preferences unusable"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, logs.String())
	}
}
