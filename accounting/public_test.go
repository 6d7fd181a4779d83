package accounting_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
	"github.com/cobble-am/cobble/internal/testdb"
)

// Handles are 3–32 of a-z, 0-9 and '-', and not a reserved word.
func TestPublicHandles(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		handle string
		public bool
		ok     bool
	}{
		{"ada", true, true}, {"ada-99", true, true}, {"a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-pq", true, true},
		{" ada ", true, true}, // trimmed
		{"ab", true, false}, {"a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-pqr", true, false},
		{"Ada", true, false}, {"ada_1", true, false}, {"adä", true, false}, {"ada.", true, false},
		{"admin", true, false}, {"api", true, false}, {"settings", true, false}, {"login", true, false},
		{"leaderboards", true, false}, {"certificates", true, false},
		{"", true, false}, // public needs a handle
		{"", false, true}, // off without one is all off
	} {
		p := accounting.PublicProfile{Handle: tt.handle, Public: tt.public}
		err := p.Validate()
		var invalid *accounting.ValidationError
		if got := err == nil; got != tt.ok {
			t.Errorf("handle %q (public %v): valid %v, want %v (%v)", tt.handle, tt.public, got, tt.ok, err)
		}
		if err != nil && (!errors.As(err, &invalid) || invalid.Fields["handle"].IsZero()) {
			t.Errorf("handle %q: %v is not a message on the handle", tt.handle, err)
		}
	}
}

// publicFixture makes Ada (40 days on a biology and an astronomy project)
// and Bob (5 days on the astronomy one), and folds the rollups.
func publicFixture(t *testing.T) (s *accounting.Store, ada, bob accounting.User, through time.Time) {
	t.Helper()
	s, ada, bob, through, _ = publicFixtureOn(t)
	return s, ada, bob, through
}

// publicFixtureOn is publicFixture, also returning the database.
func publicFixtureOn(t *testing.T) (s *accounting.Store, ada, bob accounting.User, through time.Time, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	pool = testdb.New(t)
	s = accounting.NewStore(pool, testOptions)
	ada, _ = s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Name: "Ada", Password: "first-pass"})
	bob, _ = s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "bob@example.org", Name: "Bob", Password: "bobs-pass"})
	var ids []int64
	for i, kw := range [][]int{{11}, {1, 5}} {
		p, err := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://" + string(rune('a'+i)) + ".example.org/",
			Name: string(rune('A' + i)), Authenticator: "k", Keywords: kw})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	now := time.Now()
	end := s.Ledger.Today(now, "UTC")
	for _, spec := range []demodata.Spec{
		{UserID: ada.ID, Projects: ids, Days: 40, End: end, ConfirmedLag: 1,
			Computers: []demodata.Computer{{Name: "alpha", NCPUs: 4, PFPOps: 3e9, ClientVersion: "7.20.5"}}},
		{UserID: bob.ID, Projects: ids[1:], Days: 5, End: end, ConfirmedLag: 1,
			Computers: []demodata.Computer{{Name: "bobs", NCPUs: 2, PFPOps: 1e9, ClientVersion: "7.20.5"}}},
	} {
		if _, err := demodata.Seed(ctx, pool, spec); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Ledger.RebuildRollups(ctx, now); err != nil {
		t.Fatal(err)
	}
	through, err := s.Ledger.RolledThrough(ctx)
	if err != nil || through.IsZero() {
		t.Fatalf("rolled through %v, %v", through, err)
	}
	return s, ada, bob, through, pool
}

// ledgerTotals sums a volunteer's history from the ledger up to through.
func ledgerTotals(t *testing.T, s *accounting.Store, userID int64, from, through time.Time) accounting.CreditPair {
	t.Helper()
	hist, err := s.Ledger.History(context.Background(), userID, 0, from, through)
	if err != nil {
		t.Fatal(err)
	}
	var c accounting.CreditPair
	for _, d := range hist {
		c.Estimated += d.Estimated()
		c.Confirmed += d.Confirmed
	}
	return c
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*max(1, math.Abs(a)) }

// A public page shows the rollups' figures, which equal the ledger's for
// the settled days, and only the parts ticked; off or unknown is
// ErrNotFound.
func TestPublicPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, ada, _, through := publicFixture(t)
	if _, err := s.Public.PublicPage(ctx, "ada-l"); !errors.Is(err, accounting.ErrNotFound) {
		t.Fatalf("unknown handle: %v", err)
	}
	p := accounting.PublicProfile{Handle: "ada-l", ShowTotals: true, ShowAreas: true}
	if err := s.Public.SetPublicProfile(ctx, ada.ID, p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Public.PublicPage(ctx, "ada-l"); !errors.Is(err, accounting.ErrNotFound) {
		t.Fatalf("handle of a profile that is off: %v", err)
	}
	p.Public = true
	if err := s.Public.SetPublicProfile(ctx, ada.ID, p); err != nil {
		t.Fatal(err)
	}
	pg, err := s.Public.PublicPage(ctx, "ada-l")
	if err != nil {
		t.Fatal(err)
	}
	want := ledgerTotals(t, s, ada.ID, time.Time{}, through)
	if !near(pg.Totals.Estimated, want.Estimated) || !near(pg.Totals.Confirmed, want.Confirmed) || want.Confirmed == 0 {
		t.Errorf("totals %+v, the ledger's %+v", pg.Totals, want)
	}
	if pg.Projects != nil || pg.Days != nil {
		t.Errorf("projects and chart not ticked, yet shown: %v %v", pg.Projects, pg.Days)
	}
	areas := make([]int, len(pg.Areas))
	for i, a := range pg.Areas {
		areas[i] = a.Area
	}
	slices.Sort(areas)
	if !slices.Equal(areas, []int{1, 9}) {
		t.Errorf("areas %v, want Astronomy (1) and Biology and Medicine (9)", areas)
	}
}

// A handle another volunteer has is a message on the handle, and saves
// nothing.
func TestPublicHandleTaken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, ada, bob, _ := publicFixture(t)
	if err := s.Public.SetPublicProfile(ctx, ada.ID, accounting.PublicProfile{Handle: "stars", Public: true}); err != nil {
		t.Fatal(err)
	}
	err := s.Public.SetPublicProfile(ctx, bob.ID, accounting.PublicProfile{Handle: "stars", Public: true})
	var invalid *accounting.ValidationError
	if !errors.As(err, &invalid) || invalid.Fields["handle"].ID != "public.handle_taken" {
		t.Fatalf("taken handle: %v", err)
	}
	if got, err := s.Public.PublicProfile(ctx, bob.ID); err != nil || got.Handle != "" {
		t.Errorf("Bob's profile after the refusal: %+v, %v", got, err)
	}
}
