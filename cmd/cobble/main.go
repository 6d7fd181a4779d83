// Command cobble is the Cobble account manager: one binary whose subcommands
// serve, migrate the database, run a self-contained development instance, and
// manage volunteers and the project catalog.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/cobble-am/cobble/accounting"
)

const usage = `Usage: cobble COMMAND [flags]

Commands:
  serve            serve BOINC clients and volunteers (needs DATABASE_URL)
  migrate          apply pending database migrations and exit (needs DATABASE_URL);
                   --status lists the applied and pending ones and changes nothing
  dev              run on a private PostgreSQL in .data/postgres, with demo data
  user create      create a volunteer or admin account
  user admin       make an existing account an administrator
  user reset-two-factor
                   remove an account's second factor (a lost device); audited
  project add      add a BOINC project to the catalog
  project edit     change a catalog entry (only the flags given)
  project pause|retire|activate
                   change a project's status
  project import   add the projects of a BOINC all_projects_list.xml file, paused
  reconcile        reconcile projects with their credit exports now
  ledger check     compare the totals derived from the credit ledger with it; change nothing
  ledger rebuild   recompute the totals derived from the credit ledger and report differences
  stats export     build the statistics export (/stats/) now, as the daily round does
  version          print Cobble's version, the commit it was built from and the Go release

Run 'cobble COMMAND -h' for a command's flags.
`

// errUsage marks errors in how cobble was called; they exit with status 2.
var errUsage = errors.New("usage")

func main() {
	tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		// One line, whatever a library put in its error.
		fmt.Fprintf(os.Stderr, "cobble: %s\n", oneLine(err.Error()))
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// run executes one cobble command. getenv stands in for os.Getenv.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: no command given", errUsage)
	}
	env := environment{getenv: getenv, stdout: stdout, stderr: stderr}
	cmd, rest := args[0], args[1:]
	if (cmd == "user" || cmd == "project" || cmd == "ledger" || cmd == "stats") && len(rest) > 0 {
		cmd, rest = cmd+" "+rest[0], rest[1:]
	}
	err := env.dispatch(ctx, cmd, rest)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

func (env environment) dispatch(ctx context.Context, cmd string, rest []string) error {
	switch cmd {
	case "serve":
		return env.serve(ctx, rest)
	case "migrate":
		return env.migrate(ctx, rest)
	case "dev":
		return env.dev(ctx, rest)
	case "user create":
		return env.userCreate(ctx, rest)
	case "user admin":
		return env.userAdmin(ctx, rest)
	case "user reset-two-factor":
		return env.userResetTwoFactor(ctx, rest)
	case "project add":
		return env.projectAdd(ctx, rest)
	case "project edit":
		return env.projectEdit(ctx, rest)
	case "project pause":
		return env.projectStatus(accounting.StatusPaused)(ctx, rest)
	case "project retire":
		return env.projectStatus(accounting.StatusRetired)(ctx, rest)
	case "project activate":
		return env.projectStatus(accounting.StatusActive)(ctx, rest)
	case "project import":
		return env.projectImport(ctx, rest)
	case "reconcile":
		return env.reconcile(ctx, rest)
	case "ledger check":
		return env.ledgerCheck(ctx, rest)
	case "ledger rebuild":
		return env.ledgerRebuild(ctx, rest)
	case "stats export":
		return env.statsExport(ctx, rest)
	case "version":
		return env.version(ctx, rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(env.stdout, usage)
		return nil
	}
	fmt.Fprint(env.stderr, usage)
	return fmt.Errorf("%w: unknown command %q", errUsage, cmd)
}

// environment is what every command gets from the process.
type environment struct {
	getenv         func(string) string
	stdout, stderr io.Writer
}

// tuneGC lets the heap grow to five times what is live before collecting,
// unless GOGC says otherwise: Cobble's live heap is a few megabytes, and
// under RPC load the default (twice) spends a tenth of the CPU on GC.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}
