package accounting_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// teamsFixture is a Store with n volunteers whose email is confirmed.
func teamsFixture(t *testing.T, n int) (*accounting.Store, *pgxpool.Pool, []accounting.User) {
	t.Helper()
	ctx := context.Background()
	pool := testdb.New(t)
	s := accounting.NewStore(pool, testOptions)
	var users []accounting.User
	for i := range n {
		u, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: fmt.Sprintf("v%d@example.org", i),
			Name: fmt.Sprintf("Volunteer %d", i), Password: "first-pass"})
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u)
	}
	if _, err := pool.Exec(ctx, `UPDATE users SET email_confirmed_at = now()`); err != nil {
		t.Fatal(err)
	}
	return s, pool, users
}

// teamsNow is the tests' clock.
var teamsNow = time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)

func newTeam(name string, open bool) accounting.NewTeam {
	return accounting.NewTeam{Name: name, Type: 1, Country: "Germany", URL: "https://example.org/",
		Description: "We crunch.\nTogether.", Open: open}
}

func TestTeamFoundJoinLeave(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, u := teamsFixture(t, 3)
	team, err := s.Teams.CreateTeam(ctx, u[0].ID, newTeam("Crunchers", true), teamsNow)
	if err != nil {
		t.Fatal(err)
	}
	if team.Members != 1 || team.Name != "Crunchers" || !team.Open {
		t.Errorf("new team: %+v", team)
	}
	if err := s.Teams.Join(ctx, u[1].ID, team.ID, teamsNow); err != nil {
		t.Fatal(err)
	}
	mine, ok, err := s.Teams.Mine(ctx, u[1].ID)
	if err != nil || !ok || mine.Team.ID != team.ID || mine.Founder || !mine.Since.Equal(time.Date(2026, 6, 10, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Mine: %+v %v %v", mine, ok, err)
	}
	if mine, _, _ := s.Teams.Mine(ctx, u[0].ID); !mine.Founder || mine.Team.Members != 2 {
		t.Errorf("the founder's: %+v", mine)
	}
	list, total, err := s.Teams.Teams(ctx, "CRUNCH", accounting.TeamSortName, 10, 0)
	if err != nil || total != 1 || len(list) != 1 || list[0].ID != team.ID {
		t.Errorf("Teams: %+v %d %v", list, total, err)
	}
	if err := s.Teams.Leave(ctx, u[2].ID, team.ID, teamsNow); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("a stranger leaves: %v", err)
	}
	// The founder leaves: the team is handed to the other member.
	if err := s.Teams.Leave(ctx, u[0].ID, team.ID, teamsNow); err != nil {
		t.Fatal(err)
	}
	if mine, _, _ := s.Teams.Mine(ctx, u[1].ID); !mine.Founder || mine.Team.Members != 1 {
		t.Errorf("after the founder left: %+v", mine)
	}
	// The last member leaves: the team is gone.
	if err := s.Teams.Leave(ctx, u[1].ID, team.ID, teamsNow.Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Teams.Team(ctx, team.ID); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("an empty team: %v", err)
	}
}

// Memberships are in the volunteer's days, and never overlap, even when
// the volunteer moves to a time zone whose today is before the day their
// last membership ended.
func TestTeamMembershipDays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, u := teamsFixture(t, 2)
	setZone := func(z string) {
		t.Helper()
		if _, err := pool.Exec(ctx, `UPDATE users SET time_zone = $2 WHERE id = $1`, u[1].ID, z); err != nil {
			t.Fatal(err)
		}
	}
	a, err := s.Teams.CreateTeam(ctx, u[0].ID, newTeam("Alpha", true), teamsNow)
	if err != nil {
		t.Fatal(err)
	}
	setZone("Pacific/Kiritimati") // UTC+14: 10 June, noon UTC, is 11 June there
	if err := s.Teams.Join(ctx, u[1].ID, a.ID, teamsNow); err != nil {
		t.Fatal(err)
	}
	if err := s.Teams.Leave(ctx, u[1].ID, a.ID, teamsNow.Add(24*time.Hour)); err != nil { // 12 June there
		t.Fatal(err)
	}
	setZone("Pacific/Pago_Pago") // UTC−11: 11 June, noon UTC, is 11 June, 1 a.m.
	b, err := s.Teams.CreateTeam(ctx, u[1].ID, newTeam("Beta", true), teamsNow.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT first_day::text, coalesce(until_day::text, '') FROM team_members
		WHERE user_id = $1 ORDER BY first_day`, u[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var first, until string
		if err := rows.Scan(&first, &until); err != nil {
			t.Fatal(err)
		}
		got = append(got, first+".."+until)
	}
	if want := "2026-06-11..2026-06-12 2026-06-12.."; strings.Join(got, " ") != want {
		t.Errorf("memberships %v, want %s", got, want)
	}
	if mine, _, _ := s.Teams.Mine(ctx, u[1].ID); mine.Team.ID != b.ID || !mine.Founder {
		t.Errorf("Mine: %+v", mine)
	}
}

// The last members leaving at once remove the team, and a founder's
// deleted account hands the team over, or removes it when no one is left.
func TestTeamEndsWithItsLastMember(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, u := teamsFixture(t, 13)
	for round := range 10 {
		team, err := s.Teams.CreateTeam(ctx, u[0].ID, newTeam(fmt.Sprint("Pair ", round), true), teamsNow.Add(time.Duration(round)*25*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Teams.Join(ctx, u[1].ID, team.ID, teamsNow); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range 2 {
			wg.Go(func() { errs[i] = s.Teams.Leave(ctx, u[i].ID, team.ID, teamsNow) })
		}
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("leaving at once: %v", errs)
		}
		if _, err := s.Teams.Team(ctx, team.ID); !errors.Is(err, accounting.ErrNotFound) {
			t.Fatalf("round %d: the team without members remains: %v", round, err)
		}
	}

	// A deleted account and a leave at once.
	for round := range 5 {
		pair := u[3+2*round : 5+2*round]
		team, err := s.Teams.CreateTeam(ctx, pair[0].ID, newTeam(fmt.Sprint("Gone ", round), true), teamsNow)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Teams.Join(ctx, pair[1].ID, team.ID, teamsNow); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		wg.Go(func() { errs[0] = s.Accounts.DeleteUser(ctx, pair[0].ID, "first-pass") })
		wg.Go(func() { errs[1] = s.Teams.Leave(ctx, pair[1].ID, team.ID, teamsNow) })
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("deleting and leaving at once: %v", errs)
		}
		if _, err := s.Teams.Team(ctx, team.ID); !errors.Is(err, accounting.ErrNotFound) {
			t.Fatalf("round %d: the team without members remains: %v", round, err)
		}
	}

	team, err := s.Teams.CreateTeam(ctx, u[1].ID, newTeam("Heirs", true), teamsNow)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Teams.Join(ctx, u[2].ID, team.ID, teamsNow); err != nil {
		t.Fatal(err)
	}
	if err := s.Accounts.DeleteUser(ctx, u[1].ID, "first-pass"); err != nil {
		t.Fatal(err)
	}
	if mine, _, _ := s.Teams.Mine(ctx, u[2].ID); !mine.Founder || mine.Team.Members != 1 {
		t.Errorf("after the founder's account went: %+v", mine)
	}
	if err := s.Accounts.DeleteUser(ctx, u[2].ID, "first-pass"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Teams.Team(ctx, team.ID); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("the team of deleted accounts remains: %v", err)
	}
}
