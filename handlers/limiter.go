package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
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
)

// maxMailRequests is how many password resets one client address may ask
// for in an hour, whichever accounts they name.
const maxMailRequests = 10

// attemptCounter keeps the guard's counts (accounting.Store in PostgreSQL).
type attemptCounter interface {
	Failures(ctx context.Context, addr, account string, window time.Time) (accounting.FailureCounts, error)
	CountFailure(ctx context.Context, addr, account string, window, now time.Time) error
	CountAttempt(ctx context.Context, kind accounting.AttemptKind, key string, window, now time.Time) (int, error)
	Attempts(ctx context.Context, kind accounting.AttemptKind, key string, window time.Time) (int, error)
}

// guard limits password guessing and sign-ups per client address. Its
// counts live in the database, in fixed windows, so that every instance
// on it counts against the same limits: a guesser cannot multiply them by
// spreading tries over instances. When the counts cannot be read or
// written the guard refuses (its methods return the error, which is
// ErrUnavailable for a database that does not answer): it fails closed.
type guard struct {
	counts     attemptCounter
	maxSignups int
}

// DefaultSignupsPerHour is how many accounts one client address may
// create in an hour when Config.SignupsPerHour does not say.
const DefaultSignupsPerHour = 20

func newGuard(counts attemptCounter, signupsPerHour int) *guard {
	if signupsPerHour <= 0 {
		signupsPerHour = DefaultSignupsPerHour
	}
	return &guard{counts: counts, maxSignups: signupsPerHour}
}

// refusal says why a try is refused, and for how long.
type refusal struct {
	// why is the message, written in the reader's language (English for
	// the AM RPC).
	why locale.Msg
}

// refuse makes the refusal that says why.
func refuse(why locale.Msg) *refusal { return &refusal{why: why} }

// attempt is the one way a guess at a secret of the account email names
// (a password, a two-factor or recovery code) goes ahead: it checks the
// limits of addr on email now, runs try unless they refuse, and counts a
// wrong guess (accounting.WrongGuess) against them. It returns a refusal
// without running try, or try's error; or the error of reading or
// writing the counts, and then the guess must be treated as a failure of
// the server's own (the guard fails closed).
func (g *guard) attempt(ctx context.Context, addr netip.Prefix, email string, now time.Time, try func() error) (*refusal, error) {
	refused, err := g.check(ctx, addr, email, now)
	if err != nil || refused != nil {
		return refused, err
	}
	err = try()
	if accounting.WrongGuess(err) {
		if ferr := g.fail(ctx, addr, email, now); ferr != nil {
			return nil, ferr
		}
	}
	return nil, err
}

// check returns a refusal when addr may not try a password for email
// now, or nil; or an error when the counts cannot be read, and then the
// try must not go ahead.
func (g *guard) check(ctx context.Context, addr netip.Prefix, email string, now time.Time) (*refusal, error) {
	window := now.Truncate(failureWindow)
	c, err := g.counts.Failures(ctx, addr.String(), key(email), window)
	if err != nil {
		return nil, err
	}
	left := minutesLeft(window.Add(failureWindow), now)
	switch {
	case c.Addr >= maxAddrFailures:
		return refuse(locale.M("login.too_many_from_address", "Count", left)), nil
	case c.Pair >= maxPairFailures:
		return refuse(locale.M("login.too_many_for_account", "Count", left)), nil
	}
	if c.Account < freeAccountFailures || c.Addr == 0 {
		return nil, nil // an address that has not been failing is never slowed
	}
	delay := min(time.Second<<min(c.Account-freeAccountFailures, 6), maxAccountDelay)
	if wait := c.AccountLast.Add(delay).Sub(now); wait > 0 {
		secs := int(wait.Round(time.Second) / time.Second)
		return refuse(locale.M("login.wait_seconds", "Count", max(secs, 1))), nil
	}
	return nil, nil
}

// fail records a failed password check of addr on email.
func (g *guard) fail(ctx context.Context, addr netip.Prefix, email string, now time.Time) error {
	return g.counts.CountFailure(ctx, addr.String(), key(email), now.Truncate(failureWindow), now)
}

// signupAllowed says whether addr may create another account now.
func (g *guard) signupAllowed(ctx context.Context, addr netip.Prefix, now time.Time) (bool, error) {
	n, err := g.counts.Attempts(ctx, accounting.AttemptSignup, addr.String(), now.Truncate(signupWindow))
	return err == nil && n < g.maxSignups, err
}

// signedUp records an account created (or attempted with a taken email)
// from addr.
func (g *guard) signedUp(ctx context.Context, addr netip.Prefix, now time.Time) error {
	_, err := g.counts.CountAttempt(ctx, accounting.AttemptSignup, addr.String(), now.Truncate(signupWindow), now)
	return err
}

// mailAllowed counts a request for a password reset from addr and says
// whether it is within the address's hourly limit.
func (g *guard) mailAllowed(ctx context.Context, addr netip.Prefix, now time.Time) (bool, error) {
	n, err := g.counts.CountAttempt(ctx, accounting.AttemptMail, addr.String(), now.Truncate(signupWindow), now)
	return err == nil && n <= maxMailRequests, err
}

// minutesLeft is how many whole minutes are left until end, at least 1.
func minutesLeft(end, now time.Time) int {
	return max(int(end.Sub(now).Round(time.Minute)/time.Minute), 1)
}

// maxKeyLen is the longest account key stored as it is; a longer one, or
// one that is not accounting.Storable, is stored as its SHA-256.
const maxKeyLen = 254

// key is the account an email names, as the limits count it: trimmed and
// in lower case.
func key(email string) string {
	k := strings.ToLower(strings.TrimSpace(email))
	if len(k) > maxKeyLen || !accounting.Storable(k) {
		sum := sha256.Sum256([]byte(k))
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	return k
}

// guessRefused is a settings form's check of the signed-in volunteer's
// password that the guard refused: too many wrong ones lately.
type guessRefused struct {
	field string // the form's password field, as the store names it
	why   locale.Msg
}

func (e *guessRefused) Error() string { return "password check refused: " + e.field }

// guessing runs try, a form's action that checks the signed-in volunteer's
// password first (a change of password or email, deleting the account),
// within the same limits on wrong guesses as logging in (guard.attempt):
// a session alone must not buy unlimited guesses. A refusal, which does
// not run try, is a *guessRefused on field.
func (a *base) guessing(r *http.Request, field string, try func() error) error {
	refused, err := a.guard.attempt(r.Context(), a.clientAddr(r), currentUser(r).Email, a.now(), try)
	if refused != nil {
		return &guessRefused{field: field, why: refused.why}
	}
	return err
}

// refusedAsField turns a *guessRefused into the form's error on its field,
// with 429; any other error comes back as it is, with 422 for a form's.
func refusedAsField(err error) (int, error) {
	var refused *guessRefused
	if errors.As(err, &refused) {
		return http.StatusTooManyRequests,
			&accounting.ValidationError{Fields: map[string]locale.Msg{refused.field: refused.why}}
	}
	return http.StatusUnprocessableEntity, err
}
