package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

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
	u, err := store.CreateUser(ctx, nu)
	if err != nil {
		return explain(err)
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
	fs.StringVar(&keywords, "keywords", "", "comma-separated science `keywords`")
	fs.StringVar(&resources, "resources", "CPU", "comma-separated `resources`: CPU,NVIDIA,ATI,intel_gpu,apple_gpu")
	fs.StringVar(&platforms, "platforms", "", "comma-separated BOINC `platforms` (default: all)")
	fs.StringVar(&p.StatsURL, "stats-url", "", "the `URL` of the project's credit exports (default: URL + stats/)")
	fs.Float64Var(&p.Share, "share", 100, "the project's target `share`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	p.Keywords, p.Resources, p.Platforms = splitList(keywords), splitList(resources), splitList(platforms)
	store, done, err := env.openStore(ctx)
	if err != nil {
		return err
	}
	defer done()
	p, err = store.AddProject(ctx, p)
	if err != nil {
		return explain(err)
	}
	fmt.Fprintf(env.stdout, "added project %d %s <%s>\n", p.ID, p.Name, p.URL)
	return nil
}

// openStore connects to DATABASE_URL, migrated, and returns the store and
// a function that closes it.
func (env environment) openStore(ctx context.Context) (*accounting.Store, func(), error) {
	dbURL, err := env.databaseURL()
	if err != nil {
		return nil, nil, err
	}
	pool, err := openDB(ctx, dbURL, true)
	if err != nil {
		return nil, nil, err
	}
	return accounting.NewStore(pool, accounting.Options{}), pool.Close, nil
}

// explain turns domain errors into a line for a person.
func explain(err error) error {
	var invalid *accounting.ValidationError
	if errors.As(err, &invalid) {
		return fmt.Errorf("%w: %s", errUsage, strings.TrimPrefix(invalid.Error(), "invalid input: "))
	}
	return err
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
