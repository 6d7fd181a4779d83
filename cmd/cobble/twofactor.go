package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/cobble-am/cobble/accounting"
)

// userResetTwoFactor removes an account's second factor and its recovery
// codes, for an operator recovering a volunteer (or admin) who lost the
// device; audited as the operating-system user.
func (env environment) userResetTwoFactor(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("user reset-two-factor", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	email := fs.String("email", "", "the account's `email`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *email == "" {
		return fmt.Errorf("%w: --email is required", errUsage)
	}
	store, done, err := env.openStore(ctx)
	if err != nil {
		return err
	}
	defer done()
	u, removed, err := store.Access.ResetTwoFactor(ctx, env.osActor(), *email)
	if errors.Is(err, accounting.ErrNotFound) {
		return fmt.Errorf("no account has the email %s", *email)
	}
	if err != nil {
		return err
	}
	if !removed {
		fmt.Fprintf(env.stdout, "user %d <%s> has no two-factor sign-in; nothing changed\n", u.ID, u.Email)
		return nil
	}
	fmt.Fprintf(env.stdout, "removed two-factor sign-in and its recovery codes from user %d <%s> (audited); "+
		"they log in with the password alone and can enrol again at /settings/two-factor\n", u.ID, u.Email)
	return nil
}
