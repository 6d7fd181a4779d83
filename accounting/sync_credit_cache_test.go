package accounting

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/testdb"
)

// creditFarm is a volunteer with several hosts on one project, synced
// through one or more instances (Stores) on one database.
type creditFarm struct {
	t       *testing.T
	ctx     context.Context
	user    User
	project int64
	hosts   []SyncResult // each host's join reply: its tokens
	reports []Counters   // each host's last reported counters
}

func newCreditFarm(t *testing.T, s *Store, hosts int, now time.Time) *creditFarm {
	t.Helper()
	ctx := context.Background()
	u, err := s.Accounts.CreateUser(ctx, NewUser{Email: "farm@example.org", Password: "farm-pass"})
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://proj.example.org/"
	p, err := s.Catalog.AddProject(ctx, Project{URL: url, Name: "P", Authenticator: "k"})
	if err != nil {
		t.Fatal(err)
	}
	f := &creditFarm{t: t, ctx: ctx, user: u, project: p.ID, reports: make([]Counters, hosts)}
	for i := range hosts {
		res, err := s.Sync.Sync(ctx, SyncRequest{Email: u.Email, PasswordHash: boinc.PasswordHash("farm-pass", u.Email),
			Host: f.report(i), Now: now})
		if err != nil {
			t.Fatal(err)
		}
		f.hosts = append(f.hosts, res)
	}
	for i := range hosts {
		f.sync(s, i, 0, now) // the baseline: a host's first report credits nothing
	}
	return f
}

func (f *creditFarm) report(i int) HostReport {
	return HostReport{CPID: fmt.Sprintf("cpid-%d", i), DomainName: fmt.Sprintf("node-%d", i),
		Platforms: []string{"x86_64-pc-linux-gnu"}, NCPUs: 64, PFPOps: 5e9}
}

// sync sends host i's steady-state RPC through s with its counters grown
// by credit, and returns the reply's credit on the project.
func (f *creditFarm) sync(s *Store, i int, credit float64, now time.Time) ProjectCredit {
	f.t.Helper()
	c := &f.reports[i]
	c.CPUEC += credit
	c.CPUTime += credit * 100
	c.JobsSuccess++
	report := *c
	res, err := s.Sync.Sync(f.ctx, SyncRequest{Authenticator: f.hosts[i].Authenticator, HostToken: f.hosts[i].HostToken,
		Host: f.report(i), Now: now, Projects: []ProjectReport{{URL: "https://proj.example.org/",
			AttachedViaAM: true, HostID: int64(100 + i), Counters: &report}}})
	if err != nil {
		f.t.Fatalf("host %d at %s: %v", i, now, err)
	}
	return res.Credit[f.project]
}

// truth is the volunteer's credit on the project over all their hosts, as
// the database holds it, the average decayed to now.
func (f *creditFarm) truth(s *Store, now time.Time) ProjectCredit {
	f.t.Helper()
	var total int64
	var avg float64
	err := s.pool.QueryRow(f.ctx, `SELECT sum(`+CreditSQL("total_")+`)::bigint,
		coalesce(sum(avg_ec * exp(-greatest(extract(epoch FROM $3::timestamptz - avg_time), 0) * ln(2) / $4::float8))
			FILTER (WHERE avg_time IS NOT NULL), 0)
		FROM host_projects WHERE user_id = $1 AND project_id = $2`,
		f.user.ID, f.project, now, avgHalfLife.Seconds()).Scan(&total, &avg)
	if err != nil {
		f.t.Fatal(err)
	}
	return ProjectCredit{Total: fromMicro(total), Avg: avg}
}

func sameCredit(got, want ProjectCredit) bool {
	return got.Total == want.Total && math.Abs(got.Avg-want.Avg) <= 1e-9*math.Max(1, math.Abs(want.Avg))
}

// TestFarmCreditIsExactThroughOneInstance: the credit a reply carries over
// all the volunteer's hosts, which the steady-state RPC takes from memory,
// equals the database's sum after every RPC that went through the same
// instance, in any order of hosts, with the average decayed to the RPC's
// time.
func TestFarmCreditIsExactThroughOneInstance(t *testing.T) {
	t.Parallel()
	pool := testdb.New(t)
	s := NewStore(pool, Options{PasswordCost: bcrypt.MinCost})
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	f := newCreditFarm(t, s, 4, start)
	order := []int{0, 1, 2, 3, 1, 1, 3, 0, 2, 2, 0}
	for n, i := range order {
		now := start.Add(time.Duration(n+1) * 37 * time.Minute)
		got := f.sync(s, i, float64(10*(n+1)), now)
		if want := f.truth(s, now); !sameCredit(got, want) {
			t.Fatalf("RPC %d (host %d): reply's credit %+v, database %+v", n, i, got, want)
		}
	}
	if got := f.truth(s, start).Total; got != 660 { // 10 + 20 + … + 110
		t.Errorf("the hosts were credited %v in all, want 660", got)
	}
}

// TestFarmCreditFromAnotherInstanceArrivesWithinTheTTL: what a host
// reported through another instance is missing from this instance's
// replies for at most creditTTL, after which they are exact again.
func TestFarmCreditFromAnotherInstanceArrivesWithinTheTTL(t *testing.T) {
	t.Parallel()
	pool := testdb.New(t)
	one := NewStore(pool, Options{PasswordCost: bcrypt.MinCost})
	two := NewStore(pool, Options{PasswordCost: bcrypt.MinCost})
	clock := time.Now()
	one.credits.now = func() time.Time { return clock }
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	f := newCreditFarm(t, one, 2, start)

	at := func(h int) time.Time { return start.Add(time.Duration(h) * time.Hour) }
	if got, want := f.sync(one, 0, 5, at(1)), f.truth(one, at(1)); !sameCredit(got, want) {
		t.Fatalf("first RPC: %+v, want %+v", got, want)
	}
	f.sync(two, 1, 1000, at(2)) // through the other instance
	stale := f.sync(one, 0, 5, at(3))
	want := f.truth(one, at(3))
	if sameCredit(stale, want) || want.Total-stale.Total != 1000 {
		t.Fatalf("within the TTL: %+v, database %+v; want exactly the other instance's 1000 missing", stale, want)
	}
	clock = clock.Add(creditTTL)
	if got, want := f.sync(one, 0, 5, at(4)), f.truth(one, at(4)); !sameCredit(got, want) {
		t.Fatalf("after the TTL: %+v, want %+v", got, want)
	}
}

// TestCreditCacheKeepsCommitsNewerThanARead: rows read from the database
// never replace rows an RPC committed after the read began, and a host
// the read no longer finds is dropped unless committed since.
func TestCreditCacheKeepsCommitsNewerThanARead(t *testing.T) {
	c := newCreditCache()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	part := func(micro int64) []creditPart { return []creditPart{{project: 7, totalMicro: micro}} }
	c.stored(1, "token-a", c.beginRead(), map[int64][]creditPart{10: part(1), 11: part(2), 12: part(3)})

	read := c.beginRead() // a slower RPC's read begins
	c.committed(1, 11, map[int64]*hostProject{7: {ProjectID: 7, Total: Usage{CPUEC: 20}}})
	vc := c.stored(1, "token-b", read, map[int64][]creditPart{10: part(4), 11: part(5)}) // host 12 is gone

	got := vc.others(10, now)[7].Total
	if want := fromMicro(20); got != want {
		t.Errorf("others of host 10 = %v, want %v (host 11's commit, host 12 dropped)", got, want)
	}
	if got, want := vc.others(11, now)[7].Total, fromMicro(4); got != want {
		t.Errorf("others of host 11 = %v, want %v (host 10 as read)", got, want)
	}
	if id, _, ok := c.fresh("token-b"); !ok || id != 1 {
		t.Errorf("fresh(token-b) = %d, %v; want volunteer 1", id, ok)
	}
}

// TestCreditCacheConcurrentReadsKeepACommit: two RPCs of one volunteer
// read their rows while memory has none, and a third commits between
// them; the commit is kept whichever read stores last. The second read
// and the commit are forced into the first read's store, so the test does
// not depend on timing.
func TestCreditCacheConcurrentReadsKeepACommit(t *testing.T) {
	c := newCreditCache()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	part := func(micro int64) []creditPart { return []creditPart{{project: 7, totalMicro: micro}} }
	read := map[int64][]creditPart{10: part(1), 11: part(2)}

	first, second := c.beginRead(), c.beginRead()
	c.storing = func() {
		c.storing = nil // the second read stores undisturbed
		c.stored(1, "token-b", second, read)
		c.committed(1, 11, map[int64]*hostProject{7: {ProjectID: 7, Total: Usage{CPUEC: 20}}})
	}
	c.stored(1, "token-a", first, read)

	_, vc, ok := c.fresh("token-a")
	if !ok {
		t.Fatal("fresh(token-a): no rows kept after two reads")
	}
	if got, want := vc.others(10, now)[7].Total, fromMicro(20); got != want {
		t.Errorf("others of host 10 = %v, want %v: host 11's commit was dropped", got, want)
	}
}
