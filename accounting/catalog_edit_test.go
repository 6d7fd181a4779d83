package accounting_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

func TestProjectURLRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, canonical string
		valid         bool
	}{
		{"https://einsteinathome.org/", "https://einsteinathome.org/", true},
		{"  HTTPS://EinsteinAtHome.ORG/Path//To  ", "https://einsteinathome.org/Path/To/", true},
		{"http://boinc.bakerlab.org/rosetta", "http://boinc.bakerlab.org/rosetta/", true},
		{"https://x.example.org:8443/p/", "https://x.example.org:8443/p/", true},
		{"einstein.phys.uwm.edu", "einstein.phys.uwm.edu", false},
		{"ftp://x.example.org/", "ftp://x.example.org/", false},
		{"http://localhost/p/", "http://localhost/p/", false},
		{"http://.example.org/", "http://.example.org/", false},
		{"http://example./", "http://example./", false},
		{"https://u:p@x.example.org/", "https://u:p@x.example.org/", false},
		{"https://x.example.org/a&b/", "https://x.example.org/a&b/", false},
		{"https://x.example.org/a b/", "https://x.example.org/a b/", false},
		{"https://x.example.org/\x01/", "https://x.example.org/\x01/", false},
		{"https://x.exa\xffmple.org/", "https://x.exa\xffmple.org/", false},
	} {
		got := accounting.CanonicalProjectURL(c.in)
		if got != c.canonical {
			t.Errorf("CanonicalProjectURL(%q) = %q, want %q", c.in, got, c.canonical)
		}
		if v := accounting.ValidProjectURL(got); v != c.valid {
			t.Errorf("ValidProjectURL(%q) = %v, want %v", got, v, c.valid)
		}
	}
}

func TestEditProjectIsAudited(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	admin := accounting.Actor{Name: "os:alice"}
	_, err := s.Catalog.AddProjectAs(ctx, admin, accounting.Project{URL: "HTTPS://E.example.org", Name: "E", Authenticator: "secret-1"})
	var invalid *accounting.ValidationError
	if !errors.As(err, &invalid) || !strings.Contains(invalid.Fields["url"].String(), "https://e.example.org/ perhaps?") {
		t.Errorf("URL not canonical: %v", err)
	}
	p, err := s.Catalog.AddProjectAs(ctx, admin, accounting.Project{URL: " https://e.example.org/ ", Name: "E", Authenticator: "secret-1"})
	if err != nil {
		t.Fatal(err)
	}
	p, err = s.Catalog.EditProject(ctx, admin, p.ID, func(p *accounting.Project) {
		p.Name, p.Authenticator, p.Keywords = "Einstein", "secret-2", []int{6, 1}
	})
	if err != nil || p.Name != "Einstein" || p.Authenticator != "secret-2" {
		t.Fatalf("edit: %+v %v", p, err)
	}
	if _, err := s.Catalog.SetProjectStatusAs(ctx, admin, p.ID, accounting.StatusRetired); err != nil {
		t.Fatal(err)
	}
	_, err = s.Catalog.EditProject(ctx, admin, p.ID, func(p *accounting.Project) { p.Name = "bad\x00name" })
	if !errors.As(err, &invalid) || invalid.Fields["name"].IsZero() {
		t.Errorf("control character in name: %v", err)
	}
	if _, err := s.Catalog.EditProject(ctx, admin, p.ID+99, func(*accounting.Project) {}); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("missing project: %v", err)
	}
	log, err := s.Admin.Audit(ctx, accounting.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []accounting.AuditKind
	for _, e := range log {
		kinds = append(kinds, e.Kind)
		if e.Actor != "os:alice" || !strings.HasPrefix(e.Subject, "project ") {
			t.Errorf("entry %+v", e)
		}
		for _, m := range []map[string]any{e.Before, e.After} {
			for k, v := range m {
				if s, _ := v.(string); strings.Contains(s, "secret") {
					t.Errorf("audit shows the authenticator: %s=%v", k, v)
				}
			}
		}
	}
	want := []accounting.AuditKind{accounting.AuditProjectStatus, accounting.AuditProjectEdit, accounting.AuditProjectAdd}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("audit kinds (-want +got):\n%s", diff)
	}
	edit := log[1]
	if diff := cmp.Diff(map[string]any{"name": "Einstein", "keywords": "Physics, Astronomy", "authenticator": "(replaced)"}, edit.After); diff != "" {
		t.Errorf("edit after (-want +got):\n%s", diff)
	}
	if edit.Before["name"] != "E" || log[0].After["status"] != "retired" || log[0].Before["status"] != "active" {
		t.Errorf("before/after: %+v / %+v", edit.Before, log[0])
	}
	only, err := s.Admin.Audit(ctx, accounting.AuditFilter{Kind: accounting.AuditProjectAdd, Actor: "os:alice"})
	if err != nil || len(only) != 1 {
		t.Errorf("filtered by kind: %d entries, %v", len(only), err)
	}
}

func TestImportProjects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	if _, err := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://einsteinathome.org/", Name: "Einstein", Authenticator: "k"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/all_projects_list.xml")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := s.Catalog.ImportProjects(ctx, accounting.OSActor("bob"), data)
	if err != nil {
		t.Fatal(err)
	}
	want := accounting.ImportSummary{
		Added: []string{"Rosetta@home <https://boinc.bakerlab.org/rosetta/>",
			"Café Größe <https://cafe.example.org/boinc/>"},
		Existing: []string{"Einstein@Home <https://einsteinathome.org/>", "Einstein again <http://EinsteinAtHome.org/>"},
		Malformed: []string{"#3 No URL Project: no master URL",
			`#4 Bare Host: "einstein.phys.uwm.edu" is not a master URL BOINC clients accept`,
			"#5: no name",
			`#6 Local Only: "http://localhost/project/" is not a master URL BOINC clients accept`},
	}
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if got := sum.String(); got != "2 projects added (paused), 2 projects already in the catalog, 4 malformed entries" {
		t.Errorf("summary line %q", got)
	}
	r, err := s.Catalog.ProjectByURL(ctx, "https://boinc.bakerlab.org/rosetta/")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != accounting.StatusPaused || r.Area != "Biology (Biology and Medicine)" || r.Authenticator != "" ||
		!slices.Equal(r.Platforms, []string{"windows_x86_64", "x86_64-pc-linux-gnu"}) ||
		!slices.Equal(r.Keywords, []int{2, 10}) || !strings.HasPrefix(r.Description, "Determine the 3-dimensional") {
		t.Errorf("imported %+v", r)
	}
	c, _ := s.Catalog.ProjectByURL(ctx, "https://cafe.example.org/boinc/")
	if c.Description != "Latin-1 text: naïve" {
		t.Errorf("latin-1 description %q", c.Description)
	}
	_, err = s.Catalog.SetProjectStatusAs(ctx, accounting.OSActor("bob"), r.ID, accounting.StatusActive)
	var invalid *accounting.ValidationError
	if !errors.As(err, &invalid) || invalid.Fields["authenticator"].IsZero() {
		t.Errorf("activating a project without an account: %v", err)
	}
	if _, err := s.Catalog.ImportProjects(ctx, accounting.OSActor("bob"), []byte("not xml at all")); !errors.As(err, &invalid) {
		t.Errorf("not a project list: %v", err)
	}
	log, _ := s.Admin.Audit(ctx, accounting.AuditFilter{Kind: accounting.AuditProjectImport})
	if len(log) != 1 || log[0].Actor != "os:bob" || len(log[0].After["added"].([]any)) != 2 {
		t.Errorf("import audit: %+v", log)
	}
}

func TestDisableAndAdminGrant(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	u, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "vol@example.org", Password: "long-enough"})
	if err != nil {
		t.Fatal(err)
	}
	who := accounting.OSActor("root")
	if err := s.Admin.SetUserDisabled(ctx, who, u.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Accounts.Login(ctx, "vol@example.org", "long-enough"); !errors.Is(err, accounting.ErrDisabled) {
		t.Errorf("disabled log-in: %v", err)
	}
	if _, err := s.Accounts.Login(ctx, "vol@example.org", "wrong-pass"); !errors.Is(err, accounting.ErrBadPassword) {
		t.Errorf("disabled log-in, wrong password: %v", err)
	}
	if err := s.Admin.SetUserDisabled(ctx, who, u.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Accounts.Login(ctx, "vol@example.org", "long-enough"); err != nil {
		t.Errorf("enabled log-in: %v", err)
	}
	if g, err := s.Admin.GrantAdmin(ctx, who, "VOL@example.org"); err != nil || !g.IsAdmin {
		t.Errorf("grant: %+v %v", g, err)
	}
	if _, err := s.Admin.GrantAdmin(ctx, who, "nobody@example.org"); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("grant to nobody: %v", err)
	}
	log, _ := s.Admin.Audit(ctx, accounting.AuditFilter{Actor: "os:root"})
	var kinds []accounting.AuditKind
	for _, e := range log {
		kinds = append(kinds, e.Kind)
	}
	if diff := cmp.Diff([]accounting.AuditKind{accounting.AuditAdminGrant, accounting.AuditUserEnable, accounting.AuditUserDisable}, kinds); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
}

// The last enabled admin cannot be disabled, by anyone; of two admins
// disabling each other at the same moment, one is refused, every time.
func TestLastAdminStaysEnabled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	s := accounting.NewStore(pool, testOptions)
	var invalid *accounting.ValidationError
	only, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "only@example.org", Password: "long-enough", IsAdmin: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Admin.SetUserDisabled(ctx, accounting.OSActor("root"), only.ID, true); !errors.As(err, &invalid) ||
		!strings.Contains(invalid.Fields["account"].String(), "last enabled administrator") {
		t.Fatalf("disabling the only admin: %v", err)
	}
	if err := s.Admin.SetUserDisabled(ctx, accounting.AdminActor(only), only.ID, true); !errors.As(err, &invalid) ||
		!strings.Contains(invalid.Fields["account"].String(), "your own account") {
		t.Errorf("an admin disabling themselves: %v", err)
	}
	for round := range 15 {
		a, err1 := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: fmt.Sprintf("a%d@example.org", round), Password: "long-enough", IsAdmin: true})
		b, err2 := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: fmt.Sprintf("b%d@example.org", round), Password: "long-enough", IsAdmin: true})
		if err := errors.Join(err1, err2, s.Admin.SetUserDisabled(ctx, accounting.OSActor("root"), only.ID, false)); err != nil {
			t.Fatal(err)
		}
		// only is disabled for the round: a and b are the enabled admins.
		if _, err := pool.Exec(ctx, `UPDATE users SET disabled_at = now() WHERE is_admin AND id NOT IN ($1, $2)`, a.ID, b.ID); err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 2)
		go func() { errs <- s.Admin.SetUserDisabled(ctx, accounting.AdminActor(a), b.ID, true) }()
		go func() { errs <- s.Admin.SetUserDisabled(ctx, accounting.AdminActor(b), a.ID, true) }()
		e1, e2 := <-errs, <-errs
		if (e1 == nil) == (e2 == nil) {
			t.Fatalf("round %d: two admins disabling each other: %v and %v, want one refused", round, e1, e2)
		}
	}
}
