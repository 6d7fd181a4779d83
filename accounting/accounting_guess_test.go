package accounting

import (
	"fmt"
	"testing"

	"github.com/cobble-am/cobble/internal/locale"
)

// A wrong current password in a form is a guess; other field errors on
// the same field are not.
func TestWrongGuess(t *testing.T) {
	t.Parallel()
	wrongCurrent := &ValidationError{Fields: map[string]locale.Msg{"password": locale.M("errors.field.not_current_password")},
		wrongSecret: true}
	missing := &ValidationError{Fields: map[string]locale.Msg{"password": locale.M("errors.field.enter_password")}}
	for err, want := range map[error]bool{
		nil: false, ErrBadPassword: true, fmt.Errorf("x: %w", ErrUnknownAccount): true, ErrBadCode: true,
		ErrCodeUsed: false, ErrDisabled: false, ErrNotFound: false, fmt.Errorf("disable: %w", wrongCurrent): true,
		missing: false,
	} {
		if got := WrongGuess(err); got != want {
			t.Errorf("WrongGuess(%v) = %v, want %v", err, got, want)
		}
	}
}
