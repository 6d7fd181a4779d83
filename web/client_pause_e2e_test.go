package web_test

import (
	"context"
	"net"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/boinctest"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/web"
)

// startCobblePool serves Cobble on a loopback port like startCobble, and
// also returns its database.
func startCobblePool(t *testing.T) (string, *accounting.Store, *pgxpool.Pool) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	amURL := "http://" + l.Addr().String() + "/"
	pool := testdb.New(t)
	srv, err := web.New(context.Background(), web.Config{Site: web.Site{Name: "Cobble E2E", BaseURL: amURL,
		RepeatSec: 3600}, MaxProjects: 4, PasswordCost: bcrypt.MinCost}, pool, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Listener.Close()
	hs.Listener = l
	hs.Start()
	t.Cleanup(hs.Close)
	return amURL, srv.Store(), pool
}

// projectFlags returns, per project URL, boinccmd's "don't request more
// work" and "suspended via GUI" of the client.
func projectFlags(t *testing.T, c *boinctest.Client) map[string][2]string {
	t.Helper()
	ps, err := c.Projects(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]string{}
	for _, p := range ps {
		out[p.MasterURL] = [2]string{p.Fields["don't request more work"], p.Fields["suspended via GUI"]}
	}
	return out
}

// syncAndCheck syncs the client and wants every project's flags as want.
func syncAndCheck(t *testing.T, c *boinctest.Client, what string, want [2]string, urls ...string) {
	t.Helper()
	if out, err := c.SyncAcctMgr(context.Background()); err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Fatalf("%s: sync failed: %v\n%s", what, err, out)
	}
	flags := projectFlags(t, c)
	for _, u := range urls {
		if flags[u] != want {
			t.Errorf("%s: %s has (no more work, suspended) %q, want %q", what, u, flags[u], want)
		}
	}
}

// The real 7.20 client winds down, pauses and resumes the projects of the
// computer it is asked to, and only that computer's; a pause whose until
// date passed ends at the next RPC.
func TestRealClientPause(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	amURL, store, pool := startCobblePool(t)
	projA, projB := boinctest.NewProject(t), boinctest.NewProject(t)
	u, err := store.Accounts.CreateUser(ctx, accounting.NewUser{Email: "vol@example.org", Password: "secret-pass"})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []*boinctest.Project{projA, projB} {
		if _, err := store.Catalog.AddProject(ctx, accounting.Project{URL: p.URL(), Name: p.Name(), Authenticator: "key-" + string(rune('a'+i))}); err != nil {
			t.Fatal(err)
		}
	}
	one, two := boinctest.Start(t), boinctest.Start(t)
	for _, c := range []*boinctest.Client{one, two} {
		if out, err := c.JoinAcctMgr(ctx, amURL, "vol@example.org", "secret-pass"); err != nil || !boinctest.ParseAMOutput(out).OK() {
			t.Fatalf("join failed: %v\n%s", err, out)
		}
		if out, err := c.SyncAcctMgr(ctx); err != nil || !boinctest.ParseAMOutput(out).OK() {
			t.Fatalf("sync failed: %v\n%s", err, out)
		}
	}
	cs, err := store.Computers.Computers(ctx, u.ID, time.Now())
	if err != nil || len(cs) != 2 {
		t.Fatalf("computers: %v, %v", cs, err)
	}
	slices.SortFunc(cs, func(a, b accounting.Computer) int { return int(a.ID - b.ID) })
	first := cs[0].ID // the computer of client one, which joined first
	urls := []string{projA.URL(), projB.URL()}
	set := func(mode, until string) {
		t.Helper()
		if err := store.Computers.SetPause(ctx, u.ID, first, accounting.PauseForm{Mode: mode, Until: until}, time.Now(), "UTC"); err != nil {
			t.Fatal(err)
		}
	}
	working, windingDown, paused := [2]string{"no", "no"}, [2]string{"yes", "no"}, [2]string{"no", "yes"}
	syncAndCheck(t, one, "before", working, urls...)

	set("wind_down", "")
	syncAndCheck(t, one, "wind down", windingDown, urls...)
	syncAndCheck(t, two, "the other computer", working, urls...)

	set("pause", "")
	syncAndCheck(t, one, "pause", paused, urls...)
	syncAndCheck(t, two, "the other computer", working, urls...)

	set("resume", "")
	syncAndCheck(t, one, "resume", working, urls...)

	// A pause until today, whose end then passes: the next RPC resumes.
	set("pause", time.Now().UTC().Format(time.DateOnly))
	syncAndCheck(t, one, "pause until today", paused, urls...)
	if _, err := pool.Exec(ctx, `UPDATE hosts SET pause_until = now() - interval '1 minute' WHERE id = $1`, first); err != nil {
		t.Fatal(err)
	}
	syncAndCheck(t, one, "the until date passed", working, urls...)
	if c, err := store.Computers.Computer(ctx, u.ID, first, time.Now()); err != nil || c.PauseMode != accounting.PauseNone || c.PauseUntil != nil {
		t.Errorf("after the until date: %q until %v (%v)", c.PauseMode, c.PauseUntil, err)
	}
	if n := one.LogCount("the pause you set has ended"); n != 1 {
		t.Errorf("the client's log has the end of the pause %d times, want once", n)
	}
}
