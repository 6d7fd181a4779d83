package handlers

import (
	"net/netip"
	"testing"
	"time"
)

var (
	addrA = netip.MustParsePrefix("203.0.113.9/32")
	addrB = netip.MustParsePrefix("198.51.100.7/32")
	t0    = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

func TestGuardPerAddressAndAccount(t *testing.T) {
	t.Parallel()
	g := newGuard(0)
	for i := range maxPairFailures {
		if r := g.check(addrA, "Ada@example.org", t0); r != nil {
			t.Fatalf("refused after %d failures: %s", i, r.msg)
		}
		g.fail(addrA, "ada@EXAMPLE.org", t0)
	}
	if g.check(addrA, "ada@example.org", t0.Add(time.Minute)) == nil {
		t.Error("the failing address is not refused after the limit")
	}
	if r := g.check(addrB, "ada@example.org", t0); r != nil {
		t.Errorf("an address that has not been failing is refused: %s", r.msg)
	}
	if g.check(addrA, "ada@example.org", t0.Add(failureWindow)) != nil {
		t.Error("still refused after the window")
	}
}

func TestGuardAddressOverManyAccounts(t *testing.T) {
	t.Parallel()
	g := newGuard(0)
	for i := range maxAddrFailures {
		g.fail(addrA, string(rune('a'+i%26))+"@example.org", t0)
	}
	if g.check(addrA, "fresh@example.org", t0) == nil {
		t.Error("an address that failed on many accounts may go on")
	}
}

// Failures spread over many addresses only slow the account down for the
// failing addresses, by a growing delay of at most a minute.
func TestGuardAccountDelay(t *testing.T) {
	t.Parallel()
	g := newGuard(0)
	now := t0
	for i := range 40 {
		addr := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(i / 200), byte(i)}), 32)
		g.fail(addr, "ada@example.org", now)
		now = now.Add(time.Second)
	}
	failing := netip.MustParsePrefix("10.0.0.3/32")
	if g.check(failing, "ada@example.org", now) == nil {
		t.Error("a failing address is not slowed down")
	}
	if r := g.check(failing, "ada@example.org", now.Add(maxAccountDelay)); r != nil {
		t.Errorf("the delay is longer than %v: %s", maxAccountDelay, r.msg)
	}
	if r := g.check(addrB, "ada@example.org", now); r != nil {
		t.Errorf("an address that has not been failing is slowed down: %s", r.msg)
	}
}

func TestGuardSignups(t *testing.T) {
	t.Parallel()
	g := newGuard(3)
	for range 3 {
		if !g.signupAllowed(addrA, t0) {
			t.Fatal("refused under the limit")
		}
		g.signedUp(addrA, t0)
	}
	if g.signupAllowed(addrA, t0) || !g.signupAllowed(addrB, t0) || !g.signupAllowed(addrA, t0.Add(signupWindow)) {
		t.Error("the sign-up limit is not per address and per hour")
	}
}
