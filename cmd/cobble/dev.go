package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/pgcluster"
	"github.com/cobble-am/cobble/web"
)

// dev runs Cobble on a private PostgreSQL cluster kept in the data folder,
// seeded with demo data, and stops the cluster on exit.
func (env environment) dev(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("dev", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	var sf serverFlags
	if err := sf.register(fs, env); err != nil {
		return err
	}
	autoMigrate, err := registerAutoMigrate(fs, env, true)
	if err != nil {
		return err
	}
	var dataDir string
	b := &binder{fs: fs, env: env}
	optData.to(b, &dataDir)
	if err := b.err; err != nil {
		return err
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := sf.config()
	if err != nil {
		return err
	}
	devDefaults(fs, env, &cfg)
	dir, err := filepath.Abs(filepath.Join(dataDir, "postgres"))
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "starting PostgreSQL in %s ...\n", dir)
	cluster, err := pgcluster.Start(ctx, dir, env.stderr)
	if err != nil {
		return fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	defer func() {
		if err := cluster.Stop(); err != nil {
			fmt.Fprintf(env.stderr, "cobble: stopping PostgreSQL: %v\n", err)
		}
	}()
	if err := cluster.CreateDatabase(ctx, "cobble"); err != nil {
		return fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	pool, err := openToServe(ctx, cluster.URL("cobble"), *autoMigrate, cfg.RequestTimeout)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := seed(ctx, accounting.NewStore(pool, accounting.Options{PasswordCost: passwordCost}), pool); err != nil {
		return fmt.Errorf("seeding demo data: %w", err)
	}
	fmt.Fprintf(env.stdout, `
Cobble is running (stop with Ctrl-C).
  pages:          %s
  AM URL:         %s   (boinccmd --join_acct_mgr %s EMAIL PASSWORD)
  admin:          %s / %s
  demo volunteer: %s / %s
  mail:           %s
  database:       %s

A real BOINC client joined here attaches to the demo catalog's projects,
which are real BOINC projects, with placeholder account keys: each project
refuses them, so the client gets no work. The demo is for Cobble's pages
and its account-manager replies, not for computing.
`, cfg.BaseURL, cfg.BaseURL, cfg.BaseURL, demoAdmin, demoAdminPassword,
		demoVolunteer, demoVolunteerPassword, devMailWhere(cfg), cluster.URL("cobble"))
	return env.listenAndServe(ctx, cfg, sf.addr, pool)
}

// devMailWhere says where a development instance's mail goes.
func devMailWhere(cfg web.Config) string {
	if u, err := url.Parse(cfg.Mail.SMTPURL); cfg.Mail.SMTPURL != "" && err == nil {
		return "sent through " + u.Redacted()
	}
	return cfg.BaseURL + "dev/mail (a local mailbox: no mail leaves this machine)"
}

// Demo accounts of a development instance; never used by 'cobble serve'.
const (
	demoAdmin             = "admin@cobble.example"
	demoAdminPassword     = "cobble-admin"
	demoVolunteer         = "volunteer@cobble.example"
	demoVolunteerPassword = "cobble-volunteer"
)

// demoProjects are real BOINC projects. The authenticators are placeholders:
// a development instance has no accounts on them, so clients attached to
// them get no work.
var demoProjects = []accounting.Project{
	{URL: "https://einsteinathome.org/", Name: "Einstein@Home", Keywords: []int{1, 4, 3},
		Resources: []string{"CPU", "NVIDIA", "ATI", "intel_gpu"}},
	{URL: "https://boinc.bakerlab.org/rosetta/", Name: "Rosetta@home", Keywords: []int{9, 11, 13},
		Resources: []string{"CPU"}},
	{URL: "https://www.worldcommunitygrid.org/", Name: "World Community Grid", Keywords: []int{9, 13, 14, 35},
		Resources: []string{"CPU"}},
	{URL: "https://asteroidsathome.net/boinc/", Name: "Asteroids@home", Keywords: []int{1},
		Resources: []string{"CPU", "NVIDIA"}},
	{URL: "https://milkyway.cs.rpi.edu/milkyway/", Name: "MilkyWay@home", Keywords: []int{1},
		Resources: []string{"CPU"}},
	{URL: "https://www.primegrid.com/", Name: "PrimeGrid", Keywords: []int{15, 32},
		Resources: []string{"CPU", "NVIDIA", "ATI"}},
}

// seed creates the demo accounts and catalog unless they exist.
func seed(ctx context.Context, store *accounting.Store, pool *pgxpool.Pool) error {
	users := []accounting.NewUser{
		{Email: demoAdmin, Name: "Admin", Password: demoAdminPassword, IsAdmin: true},
		{Email: demoVolunteer, Name: "Demo Volunteer", Password: demoVolunteerPassword},
	}
	for _, u := range users {
		if _, err := store.Accounts.CreateUser(ctx, u); err != nil && !errors.Is(err, accounting.ErrConflict) {
			return err
		}
	}
	for _, p := range demoProjects {
		p.Authenticator = "demo-placeholder-not-a-real-account-key"
		if _, err := store.Catalog.AddProject(ctx, p); err != nil && !errors.Is(err, accounting.ErrConflict) {
			return err
		}
	}
	return seedHistory(ctx, store, pool)
}

// flagSet reports whether the command line set the named flag.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// devDefaults sets what cobble dev does otherwise than serve, unless the
// flags or the environment say otherwise.
func devDefaults(fs *flag.FlagSet, env environment, cfg *web.Config) {
	// The demo catalog names real projects with placeholder accounts: a
	// development instance reconciles only when asked to.
	if !flagSet(fs, "reconcile-every") && env.getenv("COBBLE_RECONCILE_EVERY") == "" {
		cfg.Reconcile.Every = 0
	}
	// Its demo projects may be pointed at exports served on this machine.
	cfg.Reconcile.AllowPrivate = true
	// The demo admin logs in with the password alone, so that make run
	// stays one command.
	if !flagSet(fs, "admin-two-factor") && env.getenv("COBBLE_ADMIN_TWO_FACTOR") == "" {
		cfg.AdminTwoFactor = web.AdminTwoFactorOptional
	}
	// Without an SMTP server, mail lands in the mailbox at /dev/mail.
	cfg.Mail.DevMailbox = true
}
