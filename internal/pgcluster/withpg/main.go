// Command withpg runs a command against a throwaway PostgreSQL cluster:
//
//	go run ./internal/pgcluster/withpg -- go test -race ./...
//
// It starts a cluster in a fresh temporary directory, tuned for tests
// rather than durability, gives the command the URL of the cluster's
// postgres database in COBBLE_TEST_DATABASE_URL, runs it with this process's
// standard input, output and error, then stops the cluster and removes the
// directory, also when interrupted (SIGINT, SIGTERM, SIGHUP, which it passes
// on to the command). It exits with the command's exit code, or 128 plus
// the signal number when a signal ended the command.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/cobble-am/cobble/internal/pgcluster"
)

// envURL is the variable that tells tests where their server is.
const envURL = "COBBLE_TEST_DATABASE_URL"

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: withpg -- COMMAND [ARG...]\n\n"+
			"Runs COMMAND with %s set to a throwaway PostgreSQL cluster's postgres database.\n", envURL)
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	os.Exit(run(flag.Args()))
}

func run(args []string) int {
	// Signals are caught from the start, so that the cluster is cleaned up
	// whenever one comes.
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)

	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	starting := make(chan struct{})
	go func() {
		select {
		case sig := <-signals:
			cancel(interrupted{sig.(syscall.Signal)})
		case <-starting:
		}
	}()

	// A missing command is found out before the cluster is made for it.
	if _, err := exec.LookPath(args[0]); err != nil {
		fmt.Fprintln(os.Stderr, "withpg:", err)
		return 127
	}

	tmp, err := os.MkdirTemp("", "cobble-withpg-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "withpg:", err)
		return 1
	}
	defer func() {
		if err := os.RemoveAll(tmp); err != nil {
			fmt.Fprintln(os.Stderr, "withpg:", err)
		}
	}()
	if os.Geteuid() == 0 {
		// PostgreSQL then runs as the postgres user, which must get through.
		if err := os.Chmod(tmp, 0o711); err != nil {
			fmt.Fprintln(os.Stderr, "withpg:", err)
			return 1
		}
	}

	cluster, err := pgcluster.StartWith(ctx, filepath.Join(tmp, "data"), pgcluster.Options{
		Log:      os.Stderr,
		Settings: pgcluster.ThrowawaySettings(),
	})
	close(starting)
	if err != nil {
		fmt.Fprintln(os.Stderr, "withpg:", err)
		return interruptedStatus(ctx, 1)
	}
	defer func() {
		if err := cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "withpg:", err)
		}
	}()
	if ctx.Err() != nil {
		// Interrupted just as the cluster came up.
		return interruptedStatus(ctx, 1)
	}

	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), envURL+"="+cluster.URL("postgres"))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "withpg:", err)
		if errors.Is(err, exec.ErrNotFound) {
			return 127
		}
		return 126
	}

	done := make(chan struct{})
	go func() {
		// Pass signals on; the third one ends a command that ignores them.
		count := 0
		for {
			select {
			case sig := <-signals:
				count++
				if count >= 3 {
					fmt.Fprintln(os.Stderr, "withpg: killing", args[0])
					_ = cmd.Process.Kill()
				} else {
					_ = cmd.Process.Signal(sig)
				}
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	return exitStatus(err)
}

// exitStatus turns the command's end into an exit code the way a shell
// does.
func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		fmt.Fprintln(os.Stderr, "withpg:", err)
		return 1
	}
	if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return exitErr.ExitCode()
}

// interrupted is the cause of a start cut short by a signal.
type interrupted struct{ sig syscall.Signal }

func (i interrupted) Error() string { return "interrupted by " + i.sig.String() }

// interruptedStatus is 128 plus the number of the signal that ended ctx, if
// one did, else otherwise.
func interruptedStatus(ctx context.Context, otherwise int) int {
	var i interrupted
	if errors.As(context.Cause(ctx), &i) {
		return 128 + int(i.sig)
	}
	return otherwise
}
