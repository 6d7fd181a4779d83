package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"strconv"

	"github.com/cobble-am/cobble/accounting"
)

// osActor is who a command-line change is audited as: the operating-system user.
func (env environment) osActor() accounting.Actor {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return accounting.OSActor(u.Username)
	}
	return accounting.OSActor(env.getenv("USER"))
}

// projectEdit changes the catalog entry named by --url; only the flags
// given change.
func (env environment) projectEdit(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("project edit", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	target := fs.String("url", "", "the project's master `URL` as in the catalog (scheme, case and a trailing / do not matter)")
	fs.String("new-url", "", "a new master `URL`")
	fs.String("name", "", "the project's `name`")
	fs.String("description", "", "a `description` for volunteers")
	fs.String("keywords", "", "comma-separated science `keywords`")
	fs.String("resources", "", "comma-separated `resources`: CPU,NVIDIA,ATI,intel_gpu,apple_gpu")
	fs.String("platforms", "", "comma-separated BOINC `platforms` (empty: all)")
	fs.String("share", "", "the project's target `share`")
	fs.String("stats-url", "", "the `URL` of the project's credit exports")
	fs.String("authenticator", "", "the account `key` of Cobble's account on the project")
	fs.String("account-email", "", "the `email` of Cobble's account on the project (verifies export matches)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var badShare error
	change := func(p *accounting.Project) {
		fs.Visit(func(f *flag.Flag) { badShare = errors.Join(badShare, setProjectField(p, f.Name, f.Value.String())) })
	}
	return env.changeProject(ctx, *target, change, func() error { return badShare })
}

// setProjectField sets the field a project edit flag names.
func setProjectField(p *accounting.Project, name, value string) error {
	switch name {
	case "new-url":
		p.URL = value
	case "name":
		p.Name = value
	case "description":
		p.Description = value
	case "keywords":
		ids, err := accounting.ParseKeywords(value)
		if err != nil {
			return fmt.Errorf("%w: --keywords: %s", errUsage, err.(*accounting.ValidationError).Fields["keywords"])
		}
		p.Keywords = ids
	case "resources":
		p.Resources = accounting.ParseList(value)
	case "platforms":
		p.Platforms = accounting.ParseList(value)
	case "stats-url":
		p.StatsURL = value
	case "authenticator":
		p.Authenticator = value
	case "account-email":
		p.AccountEmail = value
	case "share":
		share, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return fmt.Errorf("%w: --share %q is not a number", errUsage, value)
		}
		p.Share = share
	}
	return nil
}

// projectStatus returns the command that sets a project's status.
func (env environment) projectStatus(status accounting.ProjectStatus) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		fs := flag.NewFlagSet("project status", flag.ContinueOnError)
		fs.SetOutput(env.stderr)
		target := fs.String("url", "", "the project's master `URL` as in the catalog")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		return env.changeProject(ctx, *target, func(p *accounting.Project) { p.Status = status }, nil)
	}
}

// changeProject finds the project by URL and applies change, audited as
// the operating-system user. check, if given, runs after change.
func (env environment) changeProject(ctx context.Context, target string, change func(*accounting.Project), check func() error) error {
	if target == "" {
		return fmt.Errorf("%w: --url is required", errUsage)
	}
	store, done, err := env.openStore(ctx)
	if err != nil {
		return err
	}
	defer done()
	p, err := store.Catalog.ProjectByURL(ctx, target)
	if errors.Is(err, accounting.ErrNotFound) {
		return fmt.Errorf("no project in the catalog has the URL %s", target)
	}
	if err != nil {
		return err
	}
	p, err = store.Catalog.EditProject(ctx, env.osActor(), p.ID, change)
	if check != nil && check() != nil {
		return check()
	}
	if err != nil {
		return explain(err, "another project in the catalog has that URL")
	}
	fmt.Fprintf(env.stdout, "project %d %s <%s>: %s\n", p.ID, p.Name, p.URL, p.Status)
	return nil
}

// projectImport adds the projects of a BOINC all_projects_list.xml file, paused.
func (env environment) projectImport(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("project import", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return err
	} else if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: give one all_projects_list.xml FILE", errUsage)
	}
	data, err := readLimited(fs.Arg(0), maxImportFile)
	if err != nil {
		return err
	}
	store, done, err := env.openStore(ctx)
	if err != nil {
		return err
	}
	defer done()
	sum, err := store.Catalog.ImportProjects(ctx, env.osActor(), data)
	if err != nil {
		return explain(err, "")
	}
	for _, line := range sum.Added {
		fmt.Fprintln(env.stdout, "added (paused):", line)
	}
	for _, line := range sum.Malformed {
		fmt.Fprintln(env.stdout, "malformed:", line)
	}
	fmt.Fprintln(env.stdout, sum)
	return nil
}

// maxImportFile bounds a project list; BOINC's own is about 100 kB.
const maxImportFile = 8 << 20

func readLimited(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	return data, err
}

// userAdmin makes an existing account an administrator.
func (env environment) userAdmin(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("user admin", flag.ContinueOnError)
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
	u, err := store.Admin.GrantAdmin(ctx, env.osActor(), *email)
	if errors.Is(err, accounting.ErrNotFound) {
		return fmt.Errorf("no account has the email %s; create it with 'cobble user create --admin'", *email)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "user %d <%s> is an admin\n", u.ID, u.Email)
	return nil
}
