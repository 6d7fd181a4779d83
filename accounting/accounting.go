// Package accounting is Cobble's domain: volunteers, their hosts, the project
// catalog, project assignment and the credit ledger, with the PostgreSQL store
// that keeps them.
//
// It knows nothing of HTTP. Errors it returns belong to a closed vocabulary
// (ErrNotFound, ErrConflict, ErrBadPassword, ErrUnknownAccount, ErrDisabled,
// ErrUnavailable, ErrLinkInvalid, ErrLimited, ErrBadCode, ErrCodeUsed,
// ErrUnreadablePrefs, the teams' ErrTeamClosed, ErrNotFounder,
// ErrTooManyTeams and ErrEmailUnconfirmed, *ValidationError), wrapped with
// the operation's name; anything else is a failure of the server's own.
package accounting

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cobble-am/cobble/internal/locale"
)

// CobblestoneScale is the credit one FLOP earns: a Cobblestone is 1/200 of a
// day on a 1 GFLOPS machine.
const CobblestoneScale = 200 / 86400e9

var (
	// ErrNotFound means the thing asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict means the change clashes with what exists (a taken email, a known URL).
	ErrConflict = errors.New("already exists")
	// ErrUnknownAccount means no volunteer has the email given.
	ErrUnknownAccount = errors.New("no account with that email")
	// ErrBadPassword means the password or the authenticator did not match.
	ErrBadPassword = errors.New("wrong password")
	// ErrDisabled means the credentials match an account an admin disabled.
	ErrDisabled = errors.New("account disabled")
	// ErrUnavailable means the database could not be reached or did not
	// answer in time: nothing was changed, and the same call may succeed
	// later.
	ErrUnavailable = errors.New("database unavailable")
	// ErrLinkInvalid means a mailed link's token is unknown, used, expired,
	// or belongs to an account that can no longer use it.
	ErrLinkInvalid = errors.New("link expired, used or unknown")
	// ErrWithdrawn means a certificate exists but its volunteer withdrew
	// it: a verifier can tell it from a code that was never issued.
	ErrWithdrawn = errors.New("certificate withdrawn")
	// ErrLimited means the account asked for too many of these messages
	// lately; nothing was sent.
	ErrLimited = errors.New("too many requests for this account")
	// ErrUnreadablePrefs means a volunteer's stored compute preferences
	// (Default's or a named location's) cannot be read or are out of
	// range: the settings pages show no stand-in values for them, and no
	// save writes over them. (The RPC sends the standard preset instead,
	// and logs it.)
	ErrUnreadablePrefs = errors.New("stored preferences unreadable")
	// ErrComputing means what was asked for is being computed in the
	// background and is not ready yet; the same call succeeds later.
	ErrComputing = errors.New("being computed")
)

// unreadablePrefs is ErrUnreadablePrefs, saying why, when odd (from
// decodeCompute) is not empty; else nil.
func unreadablePrefs(odd string) error {
	if odd == "" {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrUnreadablePrefs, odd)
}

// ValidationError lists what is wrong with input, field by field.
type ValidationError struct {
	Fields map[string]locale.Msg // field name → message for a person
	// wrongSecret marks the error of a secret typed wrong (the account's
	// current password, checked with a form): a guess, for WrongGuess.
	wrongSecret bool
}

// WrongGuess reports whether err says that a secret of an account was
// guessed wrong: an unknown account or a wrong password, authenticator,
// two-factor code or recovery code, or a form's current password that is
// not the account's. Only these count towards the limits on guessing; a
// missing or malformed secret, a code used already or a failure of the
// server's own is no guess.
func WrongGuess(err error) bool {
	var v *ValidationError
	return errors.Is(err, ErrBadPassword) || errors.Is(err, ErrUnknownAccount) || errors.Is(err, ErrBadCode) ||
		(errors.As(err, &v) && v.wrongSecret)
}

func (e *ValidationError) Error() string {
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + e.Fields[k].String()
	}
	return "invalid input: " + strings.Join(parts, "; ")
}

// validation collects field errors; err returns nil when there are none.
type validation map[string]locale.Msg

func (v validation) check(ok bool, field string, msg locale.Msg) {
	if !ok {
		if _, seen := v[field]; !seen {
			v[field] = msg
		}
	}
}

func (v validation) err() error {
	if len(v) == 0 {
		return nil
	}
	return &ValidationError{Fields: v}
}

// op wraps err with the operation's name, keeping it matchable with
// errors.Is, and marks it ErrUnavailable when the database did not answer.
func op(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", name, unavailable(err))
}
