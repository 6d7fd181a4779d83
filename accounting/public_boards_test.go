package accounting_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// A volunteer who leaves the leaderboards is gone from the next answer of
// every instance, although their copies were computed before: here a
// second store, as another instance, takes Ada off.
func TestBoardsLeaveEveryInstanceAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, ada, bob, _, pool := publicFixtureOn(t)
	for id, handle := range map[int64]string{ada.ID: "ada-l", bob.ID: "bob-b"} {
		if err := s.Public.SetPublicProfile(ctx, id, accounting.PublicProfile{Handle: handle, Public: true, ListMe: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Public.RefreshBoards(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := s.Public.Leaderboards(ctx)
	if err != nil || len(b.AllTime.Overall) != 2 || b.AllTime.Overall[0].Handle != "ada-l" {
		t.Fatalf("both listed: %+v, %v; want Ada first", b.AllTime.Overall, err)
	}
	other := accounting.NewStore(pool, testOptions)
	if err := other.Public.SetPublicProfile(ctx, ada.ID, accounting.PublicProfile{Handle: "ada-l", Public: true}); err != nil {
		t.Fatal(err)
	}
	if b, err = s.Public.Leaderboards(ctx); err != nil {
		t.Fatal(err)
	}
	for _, board := range []accounting.Board{b.Last30, b.AllTime} {
		lists := [][]accounting.BoardEntry{board.Overall}
		for _, l := range board.Areas {
			lists = append(lists, l)
		}
		for _, l := range lists {
			for i, e := range l {
				if e.Handle == "ada-l" || e.Rank != i+1 {
					t.Errorf("after Ada left on another instance: %+v", l)
				}
			}
		}
	}
	if len(b.AllTime.Overall) != 1 || b.AllTime.Overall[0].Handle != "bob-b" {
		t.Errorf("all time after Ada left: %+v, want Bob alone, first", b.AllTime.Overall)
	}
}

// An instance's first visitor is not held by a slow first computation:
// after a few seconds the answer is ErrComputing (the page says so), and
// the boards are there once the computation ends. The computation is held
// here by a lock on the profiles.
func TestBoardsFirstComputationDoesNotHoldVisitors(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, ada, _, _, pool := publicFixtureOn(t)
	if err := s.Public.SetPublicProfile(ctx, ada.ID, accounting.PublicProfile{Handle: "ada-l", Public: true, ListMe: true}); err != nil {
		t.Fatal(err)
	}
	lock, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(ctx)
	if _, err := lock.Exec(ctx, `LOCK TABLE public_profiles IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	fresh := accounting.NewStore(pool, testOptions) // an instance just started, without a copy
	visit, stop := context.WithTimeout(ctx, 20*time.Second)
	defer stop()
	if _, err := fresh.Public.Leaderboards(visit); !errors.Is(err, accounting.ErrComputing) {
		t.Fatalf("while the first computation is held: %v, want ErrComputing", err)
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := fresh.Public.Leaderboards(ctx)
		if err == nil {
			if len(b.AllTime.Overall) != 1 || b.AllTime.Overall[0].Handle != "ada-l" {
				t.Errorf("after the computation: %+v, want Ada", b.AllTime.Overall)
			}
			return
		}
		if !errors.Is(err, accounting.ErrComputing) || time.Now().After(deadline) {
			t.Fatalf("after the lock was released: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A handle given up and taken by another volunteer is shown with its new
// owner's credit by every instance at once, although their copies of the
// boards were computed under the old owner: here a second store, as
// another instance, moves Ada to a new handle and gives hers to Bob. The
// old owner's credit is never shown under the handle; Ada is back under
// her new one once the boards are computed again.
func TestHandleTakenByAnotherShowsTheNewOwnerAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, ada, bob, through, pool := publicFixtureOn(t)
	list := func(st *accounting.Store, id int64, handle string) {
		t.Helper()
		if err := st.Public.SetPublicProfile(ctx, id, accounting.PublicProfile{Handle: handle, Public: true, ListMe: true}); err != nil {
			t.Fatal(err)
		}
	}
	list(s, ada.ID, "ada-l")
	list(s, bob.ID, "bob-b")
	if err := s.Public.RefreshBoards(ctx); err != nil {
		t.Fatal(err)
	}
	other := accounting.NewStore(pool, testOptions)
	list(other, ada.ID, "ada-new")
	list(other, bob.ID, "ada-l")
	bobs := map[string]float64{
		"last 30 days": ledgerTotals(t, s, bob.ID, through.AddDate(0, 0, -29), through).Confirmed,
		"all time":     ledgerTotals(t, s, bob.ID, time.Time{}, through).Confirmed,
	}
	b, err := s.Public.Leaderboards(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for span, board := range map[string]accounting.Board{"last 30 days": b.Last30, "all time": b.AllTime} {
		var shown bool
		for _, e := range board.Overall {
			shown = shown || e.Handle == "ada-l" && near(e.Confirmed, bobs[span])
		}
		if !shown {
			t.Errorf("%s, overall: %+v; want ada-l with Bob's %v", span, board.Overall, bobs[span])
		}
		lists := [][]accounting.BoardEntry{board.Overall}
		for _, l := range board.Areas {
			lists = append(lists, l)
		}
		for _, l := range lists {
			for i, e := range l {
				if e.Handle == "bob-b" || e.Handle == "ada-l" && e.Confirmed > bobs[span]*(1+1e-9) || e.Rank > i+1 {
					t.Errorf("%s: %+v shows the handles' old owners", span, l)
				}
			}
		}
	}
	waitFor := 30 * time.Second
	if d, ok := t.Deadline(); ok {
		waitFor = time.Until(d) - 5*time.Second
	}
	for deadline := time.Now().Add(waitFor); ; time.Sleep(20 * time.Millisecond) {
		if b, err = s.Public.Leaderboards(ctx); err != nil {
			t.Fatal(err)
		}
		if len(b.AllTime.Overall) == 2 && b.AllTime.Overall[0].Handle == "ada-new" && b.AllTime.Overall[1].Handle == "ada-l" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Ada never came back under her new handle: %+v", b.AllTime.Overall)
		}
	}
}

// An instance computes the leaderboards again past boardsTTL only when
// what they are computed from changed: the credit in the volunteers'
// rollups (here a reconciliation's credit for a settled day, folded by a
// rollup round) or who is listed (here a volunteer listed on another
// instance). Otherwise it keeps its copy: each computation reads every
// rollup row of every listed volunteer.
func TestBoardsComputedAgainOnlyAfterAChange(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, ada, bob, through, pool := publicFixtureOn(t)
	computed := accounting.CountBoardComputations(s.Public)
	if err := s.Public.SetPublicProfile(ctx, ada.ID, accounting.PublicProfile{Handle: "ada-l", Public: true, ListMe: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.Public.RefreshBoards(ctx); err != nil {
		t.Fatal(err)
	}
	first := computed() // the listing's computation, and perhaps the refresh's
	before, err := s.Public.Leaderboards(ctx)
	if err != nil || len(before.AllTime.Overall) != 1 {
		t.Fatalf("Ada listed: %+v, %v", before.AllTime.Overall, err)
	}
	// after ages the copy past boardsTTL, has a visitor ask, waits for the
	// instance to look, and checks how many computations there were.
	after := func(what string, more int64) accounting.Boards {
		t.Helper()
		accounting.AgeBoards(s.Public)
		if _, err := s.Public.Leaderboards(ctx); err != nil {
			t.Fatal(err)
		}
		if err := accounting.AwaitBoards(ctx, s.Public); err != nil {
			t.Fatal(err)
		}
		if got := computed() - first; got != more {
			t.Errorf("%s: %d computations since the first, want %d", what, got, more)
		}
		b, err := s.Public.Leaderboards(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	after("nothing changed", 0)
	now := time.Now()
	if err := s.Ledger.Rollup(ctx, now, now); err != nil {
		t.Fatal(err)
	}
	after("a rollup round that changed nothing", 0)

	tag, err := pool.Exec(ctx, `UPDATE confirmed_ledger SET granted_micro = granted_micro + 5000000
		WHERE user_id = $1 AND day = $2`, ada.ID, through)
	if err != nil || tag.RowsAffected() == 0 {
		t.Fatalf("confirmed credit for Ada on %v: %v, %v", through, tag, err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO ledger_dirty_days (day) VALUES ($1) ON CONFLICT DO NOTHING`, through); err != nil {
		t.Fatal(err)
	}
	if err := s.Ledger.Rollup(ctx, now, now); err != nil {
		t.Fatal(err)
	}
	b := after("a round folded more confirmed credit", 1)
	if got, want := b.AllTime.Overall[0].Confirmed, before.AllTime.Overall[0].Confirmed+5*float64(tag.RowsAffected()); !near(got, want) {
		t.Errorf("Ada's all-time credit after the round: %v, want %v", got, want)
	}
	after("nothing changed since", 1)

	other := accounting.NewStore(pool, testOptions)
	if err := other.Public.SetPublicProfile(ctx, bob.ID, accounting.PublicProfile{Handle: "bob-b", Public: true, ListMe: true}); err != nil {
		t.Fatal(err)
	}
	if b = after("Bob listed on another instance", 2); len(b.AllTime.Overall) != 2 {
		t.Errorf("after Bob was listed: %+v, want Ada and Bob", b.AllTime.Overall)
	}
}
