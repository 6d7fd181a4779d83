package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
)

func (env environment) userCreate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("user create", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	var nu accounting.NewUser
	fs.StringVar(&nu.Email, "email", "", "the volunteer's `email` (the login name)")
	fs.StringVar(&nu.Password, "password", "", "the `password`")
	fs.StringVar(&nu.Name, "name", "", "the volunteer's `name` (default: the email's local part)")
	fs.BoolVar(&nu.IsAdmin, "admin", false, "make the account an administrator")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	store, done, err := env.openStore(ctx)
	if err != nil {
		return err
	}
	defer done()
	u, err := store.Accounts.CreateUser(ctx, nu)
	if err != nil {
		return explain(err, fmt.Sprintf("an account with the email %s exists already (emails match in any letter case)",
			strings.TrimSpace(nu.Email)))
	}
	fmt.Fprintf(env.stdout, "created user %d <%s>%s\n", u.ID, u.Email, map[bool]string{true: " (admin)"}[u.IsAdmin])
	return nil
}

func (env environment) projectAdd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("project add", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	var p accounting.Project
	var keywords, resources, platforms string
	fs.StringVar(&p.URL, "url", "", "the project's master `URL`, ending in /")
	fs.StringVar(&p.Name, "name", "", "the project's `name`")
	fs.StringVar(&p.Authenticator, "authenticator", "", "the account key of Cobble's account on the project")
	fs.StringVar(&keywords, "keywords", "", "comma-separated science `keywords`: BOINC keyword ids or names (e.g. 11 or \"Protein research\")")
	fs.StringVar(&resources, "resources", "CPU", "comma-separated `resources`: CPU,NVIDIA,ATI,intel_gpu,apple_gpu")
	fs.StringVar(&platforms, "platforms", "", "comma-separated BOINC `platforms` (default: all)")
	fs.StringVar(&p.StatsURL, "stats-url", "", "the `URL` of the project's credit exports (default: URL + stats/)")
	fs.StringVar(&p.AccountEmail, "account-email", "",
		"the `email` of Cobble's account on the project: reconciliation verifies hosts with it")
	fs.Float64Var(&p.Share, "share", 100, "the project's target `share`")
	err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	p.Resources, p.Platforms = splitList(resources), splitList(platforms)
	if p.Keywords, err = accounting.ParseKeywords(keywords); err != nil {
		return explain(err, "")
	}
	store, done, err := env.openStore(ctx)
	if err != nil {
		return err
	}
	defer done()
	added, err := store.Catalog.AddProjectAs(ctx, env.osActor(), p)
	var invalid *accounting.ValidationError
	if errors.As(err, &invalid) && p.StatsURL == "" && !invalid.Fields["url"].IsZero() {
		// The stats URL is made from the URL, so only the URL is wrong.
		delete(invalid.Fields, "stats_url")
	}
	if err != nil {
		return explain(err, fmt.Sprintf("a project with the URL %s is in the catalog already", strings.TrimSpace(p.URL)))
	}
	p = added
	fmt.Fprintf(env.stdout, "added project %d %s <%s>\n", p.ID, p.Name, p.URL)
	return nil
}

// openStore connects to DATABASE_URL, migrated, and returns the store and
// a function that closes it.
func (env environment) openStore(ctx context.Context) (*accounting.Store, func(), error) {
	pool, err := env.openPool(ctx)
	if err != nil {
		return nil, nil, err
	}
	return accounting.NewStore(pool, accounting.Options{PasswordCost: passwordCost}), pool.Close, nil
}

// passwordCost is the bcrypt cost of the password hashes the commands
// make: 0, bcrypt's default, but in the tests' child processes, which hash
// at bcrypt's lowest cost as every test of Cobble does (exec_test.go).
var passwordCost int

// openPool connects to the database, which must be migrated; the caller
// closes the pool.
func (env environment) openPool(ctx context.Context) (*pgxpool.Pool, error) {
	dbURL, err := env.databaseURL()
	if err != nil {
		return nil, err
	}
	return openDB(ctx, dbURL, true, 0)
}

// explain turns domain errors into a line for a person: invalid fields
// named as the flags that set them, and conflict for accounting.ErrConflict
// (rather than the name of a database constraint).
func explain(err error, conflict string) error {
	var invalid *accounting.ValidationError
	if errors.As(err, &invalid) {
		fields := slices.Sorted(maps.Keys(invalid.Fields))
		parts := make([]string, len(fields))
		for i, f := range fields {
			parts[i] = "--" + strings.ReplaceAll(f, "_", "-") + ": " + invalid.Fields[f].String()
		}
		return fmt.Errorf("%w: %s", errUsage, strings.Join(parts, " "))
	}
	if errors.Is(err, accounting.ErrConflict) {
		return errors.New(conflict)
	}
	return err
}

func splitList(s string) []string { return accounting.ParseList(s) }
