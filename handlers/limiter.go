package handlers

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Limits on wrong passwords, for the AM RPC and the web log-in alike.
// Checking a password costs a bcrypt, and guessing must stay slow; but
// failures from elsewhere must never keep a volunteer out.
const (
	failureWindow = 15 * time.Minute
	// maxAddrFailures refuses an address after this many failures over
	// all accounts in a window.
	maxAddrFailures = 30
	// maxPairFailures refuses an account to an address after this many
	// failures of that address on it in a window.
	maxPairFailures = 10
	// freeAccountFailures are an account's failures (from any address) in
	// a window before each further try from an address that has been
	// failing must wait: 1 s, 2 s, 4 s, ... at most maxAccountDelay.
	freeAccountFailures = 10
	maxAccountDelay     = time.Minute
	// signupWindow is the window of the per-address sign-up limit.
	signupWindow = time.Hour
	// maxTracked bounds each table's memory; past it, new keys are not
	// tracked until the window ends.
	maxTracked = 100_000
)

// guard limits password guessing and sign-ups per client address. It
// lives in one process: with several instances, each allows its limits
// (a shared table would put a database write on every failed log-in,
// and the limits only need to keep guessing slow).
type guard struct {
	mu          sync.Mutex
	start       time.Time // of the failure window
	addr        map[netip.Prefix]int
	pair        map[pairKey]int
	account     map[string]accountFailures
	signupStart time.Time
	signups     map[netip.Prefix]int
	maxSignups  int
	// mailed counts, per address, the requests in the sign-up window that
	// can send mail to an address the asker names (password resets).
	mailed map[netip.Prefix]int
}

// maxMailRequests is how many password resets one client address may ask
// for in an hour, whichever accounts they name.
const maxMailRequests = 10

type pairKey struct {
	addr    netip.Prefix
	account string
}

type accountFailures struct {
	n    int
	last time.Time
}

func newGuard(signupsPerHour int) *guard {
	if signupsPerHour <= 0 {
		signupsPerHour = 20
	}
	g := &guard{maxSignups: signupsPerHour}
	g.rollFailures(time.Time{}.Add(failureWindow))
	g.rollSignups(time.Time{}.Add(signupWindow))
	return g
}

// refusal says why a try is refused, and for how long.
type refusal struct {
	msg string
}

// check returns a refusal when addr may not try a password for email
// now, or nil.
func (g *guard) check(addr netip.Prefix, email string, now time.Time) *refusal {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rollFailures(now)
	left := minutesLeft(g.start.Add(failureWindow), now)
	switch {
	case g.addr[addr] >= maxAddrFailures:
		return &refusal{fmt.Sprintf("Too many wrong passwords from your address. Wait %s, then try again.", left)}
	case g.pair[pairKey{addr, key(email)}] >= maxPairFailures:
		return &refusal{fmt.Sprintf("Too many wrong passwords for this account. Wait %s, then try again.", left)}
	}
	acct := g.account[key(email)]
	if acct.n < freeAccountFailures || g.addr[addr] == 0 {
		return nil // an address that has not been failing is never slowed
	}
	delay := min(time.Second<<min(acct.n-freeAccountFailures, 6), maxAccountDelay)
	if wait := acct.last.Add(delay).Sub(now); wait > 0 {
		secs := int(wait.Round(time.Second) / time.Second)
		return &refusal{fmt.Sprintf("Too many wrong passwords for this account. Wait %d seconds, then try again.", max(secs, 1))}
	}
	return nil
}

// fail records a failed password check of addr on email.
func (g *guard) fail(addr netip.Prefix, email string, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rollFailures(now)
	count(g.addr, addr)
	count(g.pair, pairKey{addr, key(email)})
	k := key(email)
	if a, ok := g.account[k]; ok || len(g.account) < maxTracked {
		g.account[k] = accountFailures{n: a.n + 1, last: now}
	}
}

// signupAllowed says whether addr may create another account now.
func (g *guard) signupAllowed(addr netip.Prefix, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rollSignups(now)
	return g.signups[addr] < g.maxSignups
}

// signedUp records an account created (or attempted with a taken email)
// from addr.
func (g *guard) signedUp(addr netip.Prefix, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rollSignups(now)
	count(g.signups, addr)
}

// mailAllowed counts a request for a password reset from addr and says
// whether it is within the address's hourly limit.
func (g *guard) mailAllowed(addr netip.Prefix, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rollSignups(now)
	count(g.mailed, addr)
	return g.mailed[addr] <= maxMailRequests
}

func (g *guard) rollFailures(now time.Time) {
	if now.Sub(g.start) >= failureWindow {
		g.start, g.addr, g.pair, g.account = now, map[netip.Prefix]int{}, map[pairKey]int{}, map[string]accountFailures{}
	}
}

func (g *guard) rollSignups(now time.Time) {
	if now.Sub(g.signupStart) >= signupWindow {
		g.signupStart, g.signups, g.mailed = now, map[netip.Prefix]int{}, map[netip.Prefix]int{}
	}
}

// count adds one to m[k], unless m is full and k new.
func count[K comparable](m map[K]int, k K) {
	if _, ok := m[k]; ok || len(m) < maxTracked {
		m[k]++
	}
}

func minutesLeft(end, now time.Time) string {
	m := int(end.Sub(now).Round(time.Minute) / time.Minute)
	if m <= 1 {
		return "a minute"
	}
	return fmt.Sprintf("%d minutes", m)
}

func key(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
