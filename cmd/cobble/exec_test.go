package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/internal/loopback"
	"github.com/cobble-am/cobble/internal/testport"
)

// runMainEnv, set in a child process's environment, makes the test binary
// act as cobble itself: TestMain calls main with the child's arguments, so
// the tests see real exit statuses and what main prints.
const runMainEnv = "COBBLE_CMD_TEST_RUN_MAIN"

// TestMain keeps the tests, and cobble in their child processes, on
// loopback: no name is looked up through DNS (internal/loopback). Both
// hash passwords at bcrypt's lowest cost, as every test of Cobble does: at
// the default cost, a race build takes over a second of CPU a hash, which
// on a busy machine ran password changes and log-ins past the request's
// deadline and the test client's timeout.
func TestMain(m *testing.M) {
	passwordCost = bcrypt.MinCost
	if os.Getenv(runMainEnv) == "1" {
		loopback.Guard()
		main()
		os.Exit(0)
	}
	loopback.Main(m)
}

// cobbleCommand returns a command running cobble's main with args and
// exactly the environment env (plus what finds the test binary's needs).
func cobbleCommand(t *testing.T, env map[string]string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = []string{runMainEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
		loopback.LogEnv + "=" + os.Getenv(loopback.LogEnv)}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = t.TempDir() // should anything write to the working directory
	// Wait returns this long after the process ended even if something
	// still holds its output open: a cleanup that waits for it ends.
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// runProcess runs cobble as a process of its own with env as its
// environment and returns its exit status and output.
func runProcess(t *testing.T, env map[string]string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	cmd := cobbleCommand(t, env, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		status = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return status, out.String(), errOut.String()
}

// lastLine returns the last line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestExitStatus(t *testing.T) {
	t.Parallel()
	unreachable := fmt.Sprintf("postgres://u:SECRETPW@127.0.0.1:%d/db", closedPort(t))
	cases := []struct {
		name     string
		args     []string
		env      map[string]string
		status   int
		lastLine string // the last line on stderr, for a failure
		stdout   string // a substring of stdout
		stderr   string // a substring of stderr
	}{
		{name: "no command", status: 2, lastLine: "cobble: usage: no command given", stderr: "Commands:"},
		{name: "unknown command", args: []string{"fly"}, status: 2, lastLine: `cobble: usage: unknown command "fly"`},
		{name: "help", args: []string{"help"}, status: 0, stdout: "Usage: cobble COMMAND"},
		{name: "serve -h", args: []string{"serve", "-h"}, status: 0, stderr: "-base-url"},
		{name: "user create -h", args: []string{"user", "create", "-h"}, status: 0, stderr: "-email"},
		{name: "unknown flag", args: []string{"migrate", "--now"}, status: 2,
			lastLine: "cobble: usage: flag provided but not defined: -now"},
		{name: "stray argument", args: []string{"migrate", "now"}, status: 2, lastLine: `cobble: usage: unexpected argument "now"`},
		{name: "no DATABASE_URL", args: []string{"migrate"}, status: 2, lastLine: "cobble: usage: DATABASE_URL is not set"},
		{name: "bad DATABASE_URL", args: []string{"migrate"}, env: map[string]string{"DATABASE_URL": "mysql://db"}, status: 2,
			lastLine: "cobble: usage: DATABASE_URL is not a PostgreSQL URL"},
		{name: "unreachable database", args: []string{"migrate"}, env: map[string]string{"DATABASE_URL": unreachable}, status: 1,
			lastLine: "cobble: cannot reach the database at 127.0.0.1:"},
		{name: "unreachable database, user create",
			args: []string{"user", "create", "--email", "a@example.org", "--password", "long enough"},
			env:  map[string]string{"DATABASE_URL": unreachable}, status: 1, lastLine: "cobble: cannot reach the database"},
		{name: "bad server flag", args: []string{"serve", "--repeat-sec", "5"}, status: 2,
			lastLine: "cobble: usage: --repeat-sec must be between 60 and 604800"},
		{name: "dev bad flag", args: []string{"dev", "--addr", "nonsense"}, status: 2, lastLine: `cobble: usage: --addr "nonsense"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cmd := cobbleCommand(t, c.env, c.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			status := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				status = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if status != c.status {
				t.Errorf("exit status %d, want %d; stderr:\n%s", status, c.status, &stderr)
			}
			if !strings.Contains(stdout.String(), c.stdout) {
				t.Errorf("stdout does not contain %q:\n%s", c.stdout, &stdout)
			}
			if !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", c.stderr, &stderr)
			}
			if c.lastLine != "" {
				lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
				if last := lines[len(lines)-1]; !strings.HasPrefix(last, c.lastLine) {
					t.Errorf("last line of stderr %q, want it to begin %q", last, c.lastLine)
				}
				if !strings.HasSuffix(stderr.String(), "\n") {
					t.Errorf("stderr does not end in a newline: %q", &stderr)
				}
				if strings.Contains(stderr.String(), "SECRETPW") {
					t.Errorf("stderr shows the password:\n%s", &stderr)
				}
			}
			if c.status != 0 && strings.Contains(stdout.String(), "cobble:") {
				t.Errorf("the error went to stdout:\n%s", &stdout)
			}
		})
	}
}

// TestServeSignal checks that cobble serve stops cleanly, with status 0,
// on SIGTERM and on SIGINT.
func TestServeSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			addr := testport.FreeAddr(t)
			cmd := cobbleCommand(t, dbEnv(t), "serve", "--addr", addr)
			stderr := &syncBuffer{}
			cmd.Stdout, cmd.Stderr = stderr, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() {
				select {
				case <-exited:
				default:
					_ = cmd.Process.Kill()
					<-exited
				}
			})
			waitHealthy(t, "http://"+addr+"/", exited, stderr)

			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				exited <- err // for the cleanup
				if err != nil {
					t.Errorf("cobble serve ended with %v after %v, want status 0; output:\n%s", err, sig, stderr)
				}
			case <-time.After(time.Minute):
				t.Fatalf("cobble serve did not stop within a minute of %v; output:\n%s", sig, stderr)
			}
			if !strings.Contains(stderr.String(), "shutting down") {
				t.Errorf("the log does not say it is shutting down:\n%s", stderr)
			}
		})
	}
}
