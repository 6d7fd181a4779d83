package accounting_test

import (
	"context"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// The admin lookup finds a host by its CPID, its domain name's start or a
// project's host id, each through its index: under the mixed load at 50 M
// rows the three joined by OR read every host, 10,359 buffers and 488 ms
// a lookup. Counted in buffers, not in time: finding one host among
// 60,000 must not read a buffer per hundred hosts.
func TestAdminLookupUsesTheHostIndexes(t *testing.T) {
	const hosts = 60_000
	ctx := context.Background()
	pool := oneBackend(t)
	for _, q := range []string{
		`INSERT INTO users (email, name, password_hash) VALUES ('owner@example.org', 'Owner', 'x')`,
		`INSERT INTO hosts (user_id, opaque_token, host_cpid, domain_name)
		SELECT (SELECT id FROM users), 't' || i, md5(i::text), 'box-' || i FROM generate_series(1, 60000) AS i`,
		`VACUUM ANALYZE`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	s := accounting.NewStore(pool, testOptions)
	for i, q := range []string{"8d5e957f297893487bd98fa830fa6413" /* md5('42') */, "box-47111", "BOX-59999"} {
		before := buffersTouched(t, pool)
		res, err := s.Admin.Lookup(ctx, q)
		if err != nil || len(res.Hosts) != 1 {
			t.Fatalf("lookup %q: %d hosts, %v", q, len(res.Hosts), err)
		}
		if touched := buffersTouched(t, pool) - before; touched >= hosts/100 {
			t.Errorf("lookup %d (%q) touched %d buffers for %d hosts: it read them all", i+1, q, touched, hosts)
		}
	}
}
