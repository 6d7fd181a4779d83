package accounting_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// The steady-state RPC keeps its two round trips with the shared balancing
// in place; a new host's first RPC costs one more for reading the expected
// work of every instance.
func TestSteadyStateRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	trips := &tripCounter{}
	cfg.ConnConfig.Tracer = trips
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s := accounting.NewStore(pool, testOptions)
	if _, err := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://one.example.org/", Name: "One", Authenticator: "k"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Accounts.SignUp(ctx, accounting.NewUser{Email: "vol@example.org", Name: "Vol", Password: "first-pass"}); err != nil {
		t.Fatal(err)
	}
	trips.n.Store(0)
	join, err := s.Sync.Sync(ctx, joinRequest("vol@example.org", "first-pass", "cpid-1"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a new host's join: %d round trips", trips.n.Load())
	req := joinRequest("", "", "cpid-1")
	req.Authenticator, req.HostToken = join.Authenticator, join.HostToken
	for i := range 3 {
		req.Now = time.Now()
		trips.n.Store(0)
		if _, err := s.Sync.Sync(ctx, req); err != nil {
			t.Fatal(err)
		}
		got := trips.n.Load()
		t.Logf("steady-state RPC %d: %d round trips", i+1, got)
		if i > 0 && got != 2 {
			t.Errorf("steady-state RPC %d took %d round trips, want 2", i+1, got)
		}
	}
}
