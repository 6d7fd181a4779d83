package accounting_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// fieldOf returns the fields of err's *ValidationError, or "" when err
// is none.
func fieldOf(err error) string {
	var v *accounting.ValidationError
	if !errors.As(err, &v) {
		return ""
	}
	var fields []string
	for f := range v.Fields {
		fields = append(fields, f)
	}
	return strings.Join(fields, ",")
}

// Hostile team texts are refused, naming the field; markup is kept as
// plain text (the pages escape it); names are unique after folding.
func TestTeamValidation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, u := teamsFixture(t, 2)
	long := strings.Repeat("x", 10<<10)
	for _, c := range []struct {
		what  string
		edit  func(*accounting.NewTeam)
		field string
	}{
		{"an empty name", func(nt *accounting.NewTeam) { nt.Name = "  " }, "name"},
		{"a right-to-left override", func(nt *accounting.NewTeam) { nt.Name = "Team\u202etxt.exe" }, "name"},
		{"an isolate", func(nt *accounting.NewTeam) { nt.Name = "Team\u2067x" }, "name"},
		{"a zero-width space", func(nt *accounting.NewTeam) { nt.Name = "Te\u200bam" }, "name"},
		{"a control character", func(nt *accounting.NewTeam) { nt.Name = "Te\x07am" }, "name"},
		{"invalid UTF-8", func(nt *accounting.NewTeam) { nt.Name = "Team \xff" }, "name"},
		{"a 10 KB name", func(nt *accounting.NewTeam) { nt.Name = long }, "name"},
		{"65 characters", func(nt *accounting.NewTeam) { nt.Name = strings.Repeat("é", 65) }, "name"},
		{"type 0", func(nt *accounting.NewTeam) { nt.Type = 0 }, "type"},
		{"type 8", func(nt *accounting.NewTeam) { nt.Type = 8 }, "type"},
		{"a country with a line break", func(nt *accounting.NewTeam) { nt.Country = "Ger\nmany" }, "country"},
		{"a script address", func(nt *accounting.NewTeam) { nt.URL = "javascript:alert(1)" }, "url"},
		{"an ftp address", func(nt *accounting.NewTeam) { nt.URL = "ftp://example.org/" }, "url"},
		{"an address without host", func(nt *accounting.NewTeam) { nt.URL = "https://" }, "url"},
		{"an address with spaces", func(nt *accounting.NewTeam) { nt.URL = "https://example.org/a b" }, "url"},
		{"a 10 KB description", func(nt *accounting.NewTeam) { nt.Description = long }, "description"},
		{"an override in the description", func(nt *accounting.NewTeam) { nt.Description = "ok\n\u202eko" }, "description"},
		{"a NUL in the description", func(nt *accounting.NewTeam) { nt.Description = "a\x00b" }, "description"},
	} {
		nt := newTeam("Crunchers", true)
		c.edit(&nt)
		_, err := s.Teams.CreateTeam(ctx, u[0].ID, nt, teamsNow)
		if got := fieldOf(err); got != c.field {
			t.Errorf("%s: error %v on %q, want one on %q", c.what, err, got, c.field)
		}
	}
	if _, ok, _ := s.Teams.Mine(ctx, u[0].ID); ok {
		t.Fatal("a refused team was created")
	}
	for _, search := range []string{"\xff\x00", long, `%_\`} {
		if list, total, err := s.Teams.Teams(ctx, search, "nonsense", -1, -5); err != nil || len(list) != 0 || total != 0 {
			t.Errorf("searching %.20q: %v, %d, %v", search, list, total, err)
		}
	}

	// Markup is plain text, kept as written; a description keeps its lines.
	nt := newTeam(`<b>Bold</b> & "quoted"`, true)
	nt.Description = "<script>alert(1)</script>\n\tLine two\r\n"
	team, err := s.Teams.CreateTeam(ctx, u[0].ID, nt, teamsNow)
	if err != nil {
		t.Fatal(err)
	}
	if team.Name != nt.Name || team.Description != strings.TrimSpace(nt.Description) {
		t.Errorf("stored %q / %q", team.Name, team.Description)
	}

	// Names that differ only in case, width, compatibility forms or
	// spacing are taken (by another volunteer: founding a team leaves
	// the one the founder was in, which goes when they were its last).
	first, err := s.Teams.CreateTeam(ctx, u[0].ID, newTeam("Straße Crunchers", true), teamsNow.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"STRASSE CRUNCHERS", "straße crunchers", "Ｓｔｒａßｅ Ｃｒｕｎｃｈｅｒｓ", "  Straße   Crunchers "} {
		_, err := s.Teams.CreateTeam(ctx, u[1].ID, newTeam(name, true), teamsNow.Add(2*time.Minute))
		if fieldOf(err) != "name" {
			t.Errorf("%q beside %q: %v, want a taken name", name, first.Name, err)
		}
		if err := s.Teams.EditTeam(ctx, u[0].ID, first.ID, newTeam(name+" 2", true)); err != nil {
			t.Errorf("renaming to %q: %v", name+" 2", err)
		}
		if err := s.Teams.EditTeam(ctx, u[0].ID, first.ID, newTeam("Straße Crunchers", true)); err != nil {
			t.Fatal(err)
		}
	}
}

// Founding needs a confirmed email, and at most MaxTeamsPerDay a day,
// deleted teams counted.
func TestTeamLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, u := teamsFixture(t, 2)
	if _, err := pool.Exec(ctx, `UPDATE users SET email_confirmed_at = NULL WHERE id = $1`, u[1].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Teams.CreateTeam(ctx, u[1].ID, newTeam("Unconfirmed", true), teamsNow); !errors.Is(err, accounting.ErrEmailUnconfirmed) {
		t.Errorf("an unconfirmed address founds: %v", err)
	}
	for i := range accounting.MaxTeamsPerDay {
		team, err := s.Teams.CreateTeam(ctx, u[0].ID, newTeam("Team "+string(rune('A'+i)), true), teamsNow)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Teams.DeleteTeam(ctx, u[0].ID, team.ID); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.Teams.CreateTeam(ctx, u[0].ID, newTeam("One too many", true), teamsNow.Add(23*time.Hour))
	if !errors.Is(err, accounting.ErrTooManyTeams) {
		t.Errorf("team %d in a day: %v", accounting.MaxTeamsPerDay+1, err)
	}
	if _, err := s.Teams.CreateTeam(ctx, u[0].ID, newTeam("A day later", true), teamsNow.Add(25*time.Hour)); err != nil {
		t.Errorf("a day later: %v", err)
	}
}

// A closed team takes members by its invitation only; renewing the
// invitation revokes the old code; only the founder manages the team.
func TestTeamInvitationsAndFounder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, u := teamsFixture(t, 4)
	team, err := s.Teams.CreateTeam(ctx, u[0].ID, newTeam("Closed circle", false), teamsNow)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Teams.Join(ctx, u[1].ID, team.ID, teamsNow); !errors.Is(err, accounting.ErrTeamClosed) {
		t.Errorf("joining a closed team: %v", err)
	}
	if _, err := s.Teams.Invite(ctx, u[1].ID, team.ID); !errors.Is(err, accounting.ErrNotFounder) {
		t.Errorf("a stranger's invitation: %v", err)
	}
	code, err := s.Teams.Invite(ctx, u[0].ID, team.ID)
	if err != nil || len(code) != 26 {
		t.Fatalf("invitation %q, %v", code, err)
	}
	if got, err := s.Teams.TeamByCode(ctx, code); err != nil || got.ID != team.ID {
		t.Errorf("TeamByCode: %+v, %v", got, err)
	}
	if got, err := s.Teams.JoinByCode(ctx, u[1].ID, code, teamsNow); err != nil || got.ID != team.ID || got.Members != 2 {
		t.Errorf("JoinByCode: %+v, %v", got, err)
	}
	renewed, err := s.Teams.RenewInvite(ctx, u[0].ID, team.ID)
	if err != nil || renewed == code {
		t.Fatalf("renewed %q (was %q), %v", renewed, code, err)
	}
	if _, err := s.Teams.JoinByCode(ctx, u[2].ID, code, teamsNow); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("the old code still joins: %v", err)
	}
	if _, err := s.Teams.TeamByCode(ctx, "not-a-code"); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("a malformed code: %v", err)
	}
	if _, err := s.Teams.JoinByCode(ctx, u[2].ID, renewed, teamsNow); err != nil {
		t.Fatal(err)
	}

	// The founder's powers are the founder's.
	if err := s.Teams.EditTeam(ctx, u[1].ID, team.ID, newTeam("Taken over", true)); !errors.Is(err, accounting.ErrNotFounder) {
		t.Errorf("a member edits: %v", err)
	}
	if err := s.Teams.HandOver(ctx, u[1].ID, team.ID, u[1].ID); !errors.Is(err, accounting.ErrNotFounder) {
		t.Errorf("a member takes over: %v", err)
	}
	if err := s.Teams.HandOver(ctx, u[0].ID, team.ID, u[3].ID); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("handing over to a stranger: %v", err)
	}
	list, err := s.Teams.TeamMemberList(ctx, u[0].ID, team.ID)
	if err != nil || len(list) != 2 || list[0].UserID != u[1].ID {
		t.Errorf("member list %+v, %v", list, err)
	}
	if _, err := s.Teams.TeamMemberList(ctx, u[1].ID, team.ID); !errors.Is(err, accounting.ErrNotFounder) {
		t.Errorf("a member's member list: %v", err)
	}
	if err := s.Teams.HandOver(ctx, u[0].ID, team.ID, u[2].ID); err != nil {
		t.Fatal(err)
	}
	if mine, _, _ := s.Teams.Mine(ctx, u[0].ID); mine.Founder {
		t.Error("the old founder is still founder")
	}
	if _, err := s.Teams.Invite(ctx, u[0].ID, team.ID); !errors.Is(err, accounting.ErrNotFounder) {
		t.Errorf("the old founder's invitation: %v", err)
	}
	edited := newTeam("Open circle", true)
	if err := s.Teams.EditTeam(ctx, u[2].ID, team.ID, edited); err != nil {
		t.Fatal(err)
	}
	if err := s.Teams.Join(ctx, u[3].ID, team.ID, teamsNow); err != nil {
		t.Errorf("joining the team opened: %v", err)
	}
	if err := s.Teams.DeleteTeam(ctx, u[0].ID, team.ID); !errors.Is(err, accounting.ErrNotFounder) {
		t.Errorf("a member deletes: %v", err)
	}
	if err := s.Teams.DeleteTeam(ctx, u[2].ID, team.ID); err != nil {
		t.Fatal(err)
	}
	for _, v := range u {
		if _, ok, err := s.Teams.Mine(ctx, v.ID); ok || err != nil {
			t.Errorf("in a deleted team: %v %v", ok, err)
		}
	}
}

// The team page lists members whose profile is public, by handle, and
// counts the others; an admin's hidden team is on no public read, and
// the admin's changes are audited.
func TestTeamMembersAndAdmin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, u := teamsFixture(t, 4)
	team, err := s.Teams.CreateTeam(ctx, u[0].ID, newTeam("Visible", true), teamsNow)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range u[1:] {
		if err := s.Teams.Join(ctx, v.ID, team.ID, teamsNow); err != nil {
			t.Fatal(err)
		}
		p := accounting.PublicProfile{Handle: "member-" + string(rune('a'+i)), Public: i != 1}
		if err := s.Public.SetPublicProfile(ctx, v.ID, p); err != nil {
			t.Fatal(err)
		}
	}
	handles, err := s.Teams.TeamMembers(ctx, team.ID, 10)
	if err != nil || strings.Join(handles, " ") != "member-a member-c" {
		t.Errorf("members %v, %v", handles, err)
	}
	if handles, _ := s.Teams.TeamMembers(ctx, team.ID, 1); len(handles) != 1 {
		t.Errorf("at most 1: %v", handles)
	}

	admin := accounting.OSActor("root")
	if err := s.Admin.AdminRenameTeam(ctx, admin, team.ID, "\u202eevil"); fieldOf(err) != "name" {
		t.Errorf("a hostile rename: %v", err)
	}
	if err := s.Admin.AdminRenameTeam(ctx, admin, team.ID, "Renamed"); err != nil {
		t.Fatal(err)
	}
	if err := s.Admin.AdminHideTeam(ctx, admin, team.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Teams.Team(ctx, team.ID); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("a hidden team's page: %v", err)
	}
	if list, total, _ := s.Teams.Teams(ctx, "", accounting.TeamSortCredit, 10, 0); len(list) != 0 || total != 0 {
		t.Errorf("a hidden team listed: %+v", list)
	}
	if err := s.Teams.Join(ctx, u[1].ID, team.ID, teamsNow); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("joining a hidden team: %v", err)
	}
	if list, err := s.Admin.AdminTeams(ctx, "renamed", 10); err != nil || len(list) != 1 || !list[0].Hidden || list[0].Name != "Renamed" {
		t.Errorf("the admin's list: %+v, %v", list, err)
	}
	if err := s.Admin.AdminDeleteTeam(ctx, admin, team.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Admin.AdminDeleteTeam(ctx, admin, team.ID); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
	entries, err := s.Admin.Audit(ctx, accounting.AuditFilter{Actor: "os:root"})
	var kinds []string
	for _, e := range entries {
		kinds = append(kinds, string(e.Kind))
	}
	if err != nil || strings.Join(kinds, " ") != "team_delete team_hide team_rename" {
		t.Errorf("audited %v, %v", kinds, err)
	}
}
