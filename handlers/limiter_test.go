package handlers

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

var (
	addrA = netip.MustParsePrefix("203.0.113.9/32")
	addrB = netip.MustParsePrefix("198.51.100.7/32")
	t0    = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

// newTestGuard returns a guard counting in a fresh database.
func newTestGuard(t *testing.T, signupsPerHour int) *guard {
	t.Helper()
	return newGuard(accounting.NewStore(testdb.New(t), accounting.Options{}).Access, signupsPerHour)
}

// mustCheck is check for a database that answers.
func mustCheck(t *testing.T, g *guard, addr netip.Prefix, email string, now time.Time) *refusal {
	t.Helper()
	r, err := g.check(t.Context(), addr, email, now)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustFail(t *testing.T, g *guard, addr netip.Prefix, email string, now time.Time) {
	t.Helper()
	if err := g.fail(t.Context(), addr, email, now); err != nil {
		t.Fatal(err)
	}
}

func TestGuardPerAddressAndAccount(t *testing.T) {
	t.Parallel()
	g := newTestGuard(t, 0)
	for i := range maxPairFailures {
		if r := mustCheck(t, g, addrA, "Ada@example.org", t0); r != nil {
			t.Fatalf("refused after %d failures: %s", i, r.why)
		}
		mustFail(t, g, addrA, "ada@EXAMPLE.org", t0)
	}
	if mustCheck(t, g, addrA, "ada@example.org", t0.Add(time.Minute)) == nil {
		t.Error("the failing address is not refused after the limit")
	}
	if r := mustCheck(t, g, addrB, "ada@example.org", t0); r != nil {
		t.Errorf("an address that has not been failing is refused: %s", r.why)
	}
	if mustCheck(t, g, addrA, "ada@example.org", t0.Add(failureWindow)) != nil {
		t.Error("still refused after the window")
	}
}

func TestGuardAddressOverManyAccounts(t *testing.T) {
	t.Parallel()
	g := newTestGuard(t, 0)
	for i := range maxAddrFailures {
		mustFail(t, g, addrA, string(rune('a'+i%26))+"@example.org", t0)
	}
	if mustCheck(t, g, addrA, "fresh@example.org", t0) == nil {
		t.Error("an address that failed on many accounts may go on")
	}
}

// Failures spread over many addresses only slow the account down for the
// failing addresses, by a growing delay of at most a minute.
func TestGuardAccountDelay(t *testing.T) {
	t.Parallel()
	g := newTestGuard(t, 0)
	now := t0
	for i := range 40 {
		addr := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(i / 200), byte(i)}), 32)
		mustFail(t, g, addr, "ada@example.org", now)
		now = now.Add(time.Second)
	}
	failing := netip.MustParsePrefix("10.0.0.3/32")
	if mustCheck(t, g, failing, "ada@example.org", now) == nil {
		t.Error("a failing address is not slowed down")
	}
	if r := mustCheck(t, g, failing, "ada@example.org", now.Add(maxAccountDelay)); r != nil {
		t.Errorf("the delay is longer than %v: %s", maxAccountDelay, r.why)
	}
	if r := mustCheck(t, g, addrB, "ada@example.org", now); r != nil {
		t.Errorf("an address that has not been failing is slowed down: %s", r.why)
	}
}

func TestGuardSignups(t *testing.T) {
	t.Parallel()
	g := newTestGuard(t, 3)
	allowed := func(addr netip.Prefix, now time.Time) bool {
		ok, err := g.signupAllowed(t.Context(), addr, now)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for range 3 {
		if !allowed(addrA, t0) {
			t.Fatal("refused under the limit")
		}
		if err := g.signedUp(t.Context(), addrA, t0); err != nil {
			t.Fatal(err)
		}
	}
	if allowed(addrA, t0) || !allowed(addrB, t0) || !allowed(addrA, t0.Add(signupWindow)) {
		t.Error("the sign-up limit is not per address and per hour")
	}
	for i := range maxMailRequests + 1 {
		ok, err := g.mailAllowed(t.Context(), addrA, t0)
		if err != nil {
			t.Fatal(err)
		}
		if ok != (i < maxMailRequests) {
			t.Errorf("reset request %d: allowed %v", i+1, ok)
		}
	}
}

// Two instances on one database (two stores, each on its own pool) count
// against the same limits: a guesser alternating between them is refused
// after the limit, not after twice the limit.
func TestGuardSharedByInstances(t *testing.T) {
	t.Parallel()
	dbURL := testdb.NewURL(t)
	var gs [2]*guard
	for i := range gs {
		pool, err := pgxpool.New(t.Context(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		gs[i] = newGuard(accounting.NewStore(pool, accounting.Options{}).Access, 4)
	}
	tries := 0
	for ; tries < 2*maxPairFailures; tries++ {
		g := gs[tries%2]
		if mustCheck(t, g, addrA, "ada@example.org", t0) != nil {
			break
		}
		mustFail(t, g, addrA, "ada@example.org", t0)
	}
	if tries != maxPairFailures {
		t.Errorf("two instances let %d wrong passwords through, want %d", tries, maxPairFailures)
	}
	signups := 0
	for ; signups < 8; signups++ {
		g := gs[signups%2]
		if ok, err := g.signupAllowed(t.Context(), addrB, t0); err != nil || !ok {
			break
		}
		if err := g.signedUp(t.Context(), addrB, t0); err != nil {
			t.Fatal(err)
		}
	}
	if signups != 4 {
		t.Errorf("two instances allowed %d sign-ups, want 4", signups)
	}
}

// A guard whose database does not answer refuses with ErrUnavailable: it
// never lets a try through.
func TestGuardFailsClosed(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "postgres://cobble@" + l.Addr().String() + "/cobble?connect_timeout=2"
	l.Close() // nothing listens there now
	pool, err := pgxpool.New(t.Context(), dead)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	g := newGuard(accounting.NewStore(pool, accounting.Options{}).Access, 0)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := g.check(ctx, addrA, "ada@example.org", t0); !errors.Is(err, accounting.ErrUnavailable) {
		t.Errorf("check: %v, want ErrUnavailable", err)
	}
	if err := g.fail(ctx, addrA, "ada@example.org", t0); !errors.Is(err, accounting.ErrUnavailable) {
		t.Errorf("fail: %v, want ErrUnavailable", err)
	}
	if ok, err := g.signupAllowed(ctx, addrA, t0); ok || !errors.Is(err, accounting.ErrUnavailable) {
		t.Errorf("signupAllowed: %v, %v; want false, ErrUnavailable", ok, err)
	}
	if ok, err := g.mailAllowed(ctx, addrA, t0); ok || !errors.Is(err, accounting.ErrUnavailable) {
		t.Errorf("mailAllowed: %v, %v; want false, ErrUnavailable", ok, err)
	}
}

// Any name a client sends is a key the database takes: long names and
// bytes that are not UTF-8 are counted by their hash.
func TestGuardOddNames(t *testing.T) {
	t.Parallel()
	g := newTestGuard(t, 0)
	for _, name := range []string{strings.Repeat("x", 5000), "bad\xff\xfe", "nul\x00@example.org"} {
		mustFail(t, g, addrA, name, t0)
		mustCheck(t, g, addrA, name, t0)
	}
	if k := key(" Ada@Example.ORG "); k != "ada@example.org" {
		t.Errorf("key = %q", k)
	}
}
