package accounting_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// tripCounter counts the round trips to PostgreSQL: one per query or
// statement sent alone, one per batch.
type tripCounter struct{ n atomic.Int64 }

func (c *tripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *tripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *tripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *tripCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *tripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// A steady-state RPC of a computer at a named location with choices of
// its own still costs two round trips; a change of the volunteer's
// preferences, a third once.
func TestSteadyStateRPCRoundTripsWithLocations(t *testing.T) {
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
	t.Cleanup(pool.Close)
	s := accounting.NewStore(pool, testOptions)
	u, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "long-enough"})
	a, _ := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://a.example.org/", Name: "A", Authenticator: "k"})
	b, _ := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://b.example.org/", Name: "B", Authenticator: "k"})
	joined, sync := joinedHost(t, s, "ada@example.org", "long-enough", "cpid-1", a, b)
	for _, err := range []error{s.Computers.SaveLocation(ctx, u.ID, "home", ""), s.Computers.SaveLocation(ctx, u.ID, "Laptop", ""),
		s.Computers.SetComputerLocation(ctx, u.ID, joined.HostID, "Laptop"),
		s.Computers.SetComputerChoices(ctx, u.ID, joined.HostID, map[int64]string{b.ID: "never"})} {
		if err != nil {
			t.Fatal(err)
		}
	}
	count := func(what string, want int64) {
		t.Helper()
		before := trips.n.Load()
		res := sync()
		if got := trips.n.Load() - before; got != want {
			t.Errorf("%s: %d round trips, want %d", what, got, want)
		}
		if res.HostVenue != "Laptop" || len(res.Venues) != 1 {
			t.Errorf("%s: venue %q, venues %+v", what, res.HostVenue, res.Venues)
		}
	}
	count("after the changes", 3)
	count("steady state", 2)
	count("steady state again", 2)
	if err := s.Computers.SetLocationPrefs(ctx, u.ID, "home", accounting.PresetMaximum, accounting.ComputePrefs{}); err != nil {
		t.Fatal(err)
	}
	count("after a location's values changed", 3)
	count("steady state after that", 2)
	if err := s.Computers.SetComputerChoices(ctx, u.ID, joined.HostID, map[int64]string{b.ID: "always"}); err != nil {
		t.Fatal(err)
	}
	count("after the computer's own choice changed", 2)
}
