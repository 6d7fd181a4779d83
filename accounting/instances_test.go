package accounting_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// newInstances returns n stores on one new database, each on its own
// pool: n instances of Cobble as far as the domain goes, each with its own
// memory.
func newInstances(t *testing.T, n int) (*pgxpool.Pool, []*accounting.Store) {
	t.Helper()
	dbURL := testdb.NewURL(t)
	var pools []*pgxpool.Pool
	var stores []*accounting.Store
	for range n {
		pool, err := pgxpool.New(context.Background(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		pools = append(pools, pool)
		stores = append(stores, accounting.NewStore(pool, accounting.Options{PasswordCost: testOptions.PasswordCost, MaxProjects: 2}))
	}
	return pools[0], stores
}

// A burst of 40 new hosts spread over 3 instances divides fairly between 4
// equal projects (each host gets two): each instance balances with what
// all of them assigned, so the projects' counts of hosts differ by at most
// one. (Balancing on its own expectations only, each instance starts its
// hosts on the same projects, and the counts end 21, 21, 19, 19.)
func TestBurstOverInstancesDividesFairly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, stores := newInstances(t, 3)
	for i := range 4 {
		_, err := stores[0].Catalog.AddProject(ctx, accounting.Project{URL: fmt.Sprintf("https://p%d.example.org/", i),
			Name: fmt.Sprintf("P%d", i), Authenticator: "k"})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		if _, err := stores[0].Accounts.SignUp(ctx, accounting.NewUser{Email: fmt.Sprintf("v%d@example.org", i),
			Name: "v", Password: "first-pass"}); err != nil {
			t.Fatal(err)
		}
	}
	// Round robin, as a balancer would: host i goes to instance i mod 3.
	for i := range 40 {
		email := fmt.Sprintf("v%d@example.org", i)
		if _, err := stores[i%3].Sync.Sync(ctx, joinRequest(email, "first-pass", fmt.Sprintf("cpid-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	counts := hostsPerProject(t, pool)
	t.Logf("hosts per project, sequential: %v", counts)
	if len(counts) != 4 || slices.Max(counts)-slices.Min(counts) > 1 {
		t.Errorf("hosts per project %v: not divided fairly", counts)
	}
}

// The same burst at once, each instance joining its hosts concurrently with
// the others: the shared expectations' upserts neither deadlock nor fail,
// and the division stays close to fair (RPCs in flight together may choose
// alike). Unlike the test above, per-instance balancing passes this too.
func TestConcurrentBurstOverInstances(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, stores := newInstances(t, 3)
	for i := range 4 {
		if _, err := stores[0].Catalog.AddProject(ctx, accounting.Project{URL: fmt.Sprintf("https://p%d.example.org/", i),
			Name: fmt.Sprintf("P%d", i), Authenticator: "k"}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 42 {
		if _, err := stores[0].Accounts.SignUp(ctx, accounting.NewUser{Email: fmt.Sprintf("v%d@example.org", i),
			Name: "v", Password: "first-pass"}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for in := range 3 {
		wg.Go(func() {
			for i := in; i < 42; i += 3 {
				email := fmt.Sprintf("v%d@example.org", i)
				if _, err := stores[in].Sync.Sync(ctx, joinRequest(email, "first-pass", fmt.Sprintf("cpid-%d", i))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	counts := hostsPerProject(t, pool)
	t.Logf("hosts per project, concurrent: %v", counts)
	if len(counts) != 4 || slices.Max(counts)-slices.Min(counts) > 4 {
		t.Errorf("hosts per project %v: not divided fairly", counts)
	}
}

// hostsPerProject counts the hosts assigned to each project, in project
// order.
func hostsPerProject(t *testing.T, pool *pgxpool.Pool) []int {
	t.Helper()
	rows, err := pool.Query(context.Background(),
		`SELECT count(*) FROM host_projects WHERE assigned GROUP BY project_id ORDER BY project_id`)
	if err != nil {
		t.Fatal(err)
	}
	var counts []int
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		counts = append(counts, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return counts
}
