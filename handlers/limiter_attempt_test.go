package handlers

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// attempt counts exactly the errors that say a secret was guessed wrong,
// passes every error of try on, and runs no try once the limits refuse.
func TestGuardAttemptCountsWrongGuesses(t *testing.T) {
	t.Parallel()
	g := newTestGuard(t, 0)
	other := errors.New("a failure of the server's own")
	for _, c := range []struct {
		err   error
		guess bool
	}{
		{nil, false},
		{fmt.Errorf("login: %w", accounting.ErrBadPassword), true},
		{fmt.Errorf("sync: %w", accounting.ErrUnknownAccount), true},
		{fmt.Errorf("check code: %w", accounting.ErrBadCode), true},
		{fmt.Errorf("use recovery code: %w", accounting.ErrCodeUsed), false},
		{accounting.ErrDisabled, false},
		{&accounting.ValidationError{Fields: map[string]locale.Msg{"code": locale.M("two_factor.enter_code")}}, false},
		{other, false},
	} {
		email := fmt.Sprintf("%v@example.org", c.err)
		refused, err := g.attempt(t.Context(), addrA, email, t0, func() error { return c.err })
		if refused != nil || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%v: refusal %v, error %v; want try's error back", c.err, refused, err)
		}
		counts, err := g.counts.Failures(t.Context(), addrA.String(), key(email), t0.Truncate(failureWindow))
		if err != nil {
			t.Fatal(err)
		}
		if got := counts.Pair == 1; got != c.guess || counts.Pair > 1 {
			t.Errorf("%v: counted %d wrong guesses, want a guess: %v", c.err, counts.Pair, c.guess)
		}
	}
	const victim = "victim@example.org"
	for range maxPairFailures {
		if _, err := g.attempt(t.Context(), addrB, victim, t0, func() error { return accounting.ErrBadPassword }); !errors.Is(err, accounting.ErrBadPassword) {
			t.Fatal(err)
		}
	}
	ran := false
	refused, err := g.attempt(t.Context(), addrB, victim, t0, func() error { ran = true; return nil })
	if refused == nil || err != nil || ran {
		t.Errorf("over the limit: refusal %v, error %v, try ran %v; want a refusal and no try", refused, err, ran)
	}
}
