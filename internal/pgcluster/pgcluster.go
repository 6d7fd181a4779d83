// Package pgcluster runs a private PostgreSQL cluster made from the server
// binaries installed on the machine. `cobble dev` keeps one in .data/postgres
// and reuses it from run to run; `make test` runs the tests against a
// throwaway one through the withpg command.
//
// The cluster listens on 127.0.0.1 only, on a port chosen at each start, and
// has no Unix socket. It trusts every connection, so it is for development
// and tests, not production. When Cobble runs as root, the PostgreSQL
// programs run as the postgres system user, since PostgreSQL refuses to run
// as root.
package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Superuser is the role the cluster is made with; it needs no password.
const Superuser = "postgres"

// startTimeout bounds how long pg_ctl waits for the server to start or stop.
const startTimeout = 60 * time.Second

// Cluster is a running PostgreSQL cluster started by Start.
type Cluster struct {
	// Dir is the data directory (absolute).
	Dir string
	// Port is the TCP port the server listens on, on 127.0.0.1 only.
	Port int
	// LogFile is where the server writes its log, beside Dir.
	LogFile string

	bin     string
	account *account
	log     io.Writer

	mu      sync.Mutex
	stopped bool
}

// Options adjusts how StartWith starts a cluster.
type Options struct {
	// Log receives a line about each step (initdb, start, stop); nil
	// discards them. The server's own log goes to Cluster.LogFile.
	Log io.Writer
	// Settings are extra server settings, each given to the server as
	// -c name=value. They cannot change where the server listens.
	Settings map[string]string
}

// ThrowawaySettings returns settings for a cluster whose data does not need
// to survive a crash, such as one for tests: no fsync, asynchronous commit,
// no full-page writes, and room for 200 connections.
func ThrowawaySettings() map[string]string {
	return map[string]string{
		"fsync":              "off",
		"synchronous_commit": "off",
		"full_page_writes":   "off",
		"max_connections":    "200",
	}
}

// Start initialises dir with initdb unless it already holds a cluster, then
// starts the cluster listening only on 127.0.0.1, on a port free now, and
// waits until it accepts connections. The server logs to dir + ".log".
//
// The cluster in dir must not be running already: if it is, for example
// under another `cobble dev`, Start returns an error saying so. A stale
// postmaster.pid left by a crash does not keep it from starting.
//
// log receives a line about each step; nil discards them.
func Start(ctx context.Context, dir string, log io.Writer) (*Cluster, error) {
	return StartWith(ctx, dir, Options{Log: log})
}

// StartWith is Start with more options.
func StartWith(ctx context.Context, dir string, opts Options) (*Cluster, error) {
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	for name := range opts.Settings {
		if !validSettingName(name) {
			return nil, fmt.Errorf("pgcluster: %q is not a server setting name", name)
		}
		switch name {
		case "listen_addresses", "port", "unix_socket_directories":
			return nil, fmt.Errorf("pgcluster: the setting %s is Cobble's to choose", name)
		}
	}

	// Say what to install before touching dir.
	if _, err := BinDir(); err != nil {
		return nil, err
	}
	acct, err := serverAccount()
	if err != nil {
		return nil, err
	}
	if err := prepareDir(dir, acct); err != nil {
		return nil, err
	}

	c := &Cluster{
		Dir:     dir,
		LogFile: filepath.Join(filepath.Dir(dir), filepath.Base(dir)+".log"),
		account: acct,
		log:     logw,
	}

	existing, err := clusterVersion(dir)
	if err != nil {
		return nil, err
	}
	if acct != nil {
		if err := acct.chownTree(dir); err != nil {
			return nil, err
		}
	}
	if existing == "" {
		if c.bin, err = BinDir(); err != nil {
			return nil, err
		}
		if err := c.initdb(ctx); err != nil {
			return nil, err
		}
	} else {
		if c.bin, err = binDirFor(ctx, existing, dir); err != nil {
			return nil, err
		}
		if err := checkNotRunning(dir, c.bin, logw); err != nil {
			return nil, err
		}
	}

	if err := c.start(ctx, opts.Settings); err != nil {
		return nil, err
	}
	return c, nil
}

// URL returns the URL of database on the cluster, as the superuser.
func (c *Cluster) URL(database string) string {
	return urlFor(c.Port, database)
}

func urlFor(port int, database string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(Superuser),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// CreateDatabase creates the database name unless it exists already.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	err = conn.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database: created meanwhile
		return nil
	}
	if err != nil {
		return fmt.Errorf("pgcluster: creating database %s: %w", name, err)
	}
	return nil
}

// Stop stops the server with a fast shutdown (open sessions are ended) and
// waits until it has stopped. Stopping a stopped cluster does nothing.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout+10*time.Second)
	defer cancel()
	began := time.Now()
	out, err := c.run(ctx, "pg_ctl", "stop", "-D", c.Dir, "-m", "fast", "-w",
		"-t", strconv.Itoa(int(startTimeout/time.Second)), "-s")
	if err != nil {
		// pg_ctl status exits with 3 when the server is not running, as
		// when something else stopped it first.
		if _, statusErr := c.run(ctx, "pg_ctl", "status", "-D", c.Dir); exitCode(statusErr) != 3 {
			return fmt.Errorf("pgcluster: stopping the cluster in %s: %w\n%s", c.Dir, err, out)
		}
	}
	c.stopped = true
	fmt.Fprintf(c.log, "pgcluster: stopped the cluster in %s in %v\n", c.Dir, time.Since(began).Round(time.Millisecond))
	return nil
}

// command prepares the server program name from c.bin, run as the server's
// user, in /, which that user can always enter, with the PG* variables of
// the environment left out so that they cannot redirect it.
func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Dir = "/"
	cmd.Env = serverEnv()
	cmd.SysProcAttr = c.account.sysProcAttr()
	// When ctx ends, end the program's whole process group, such as the
	// single-user server that initdb runs.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

// run runs a server program and returns its combined output.
func (c *Cluster) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := c.command(ctx, name, args...)
	cmd.WaitDelay = 5 * time.Second
	return cmd.CombinedOutput()
}

// serverEnv is the environment without PG* variables.
func serverEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "PG")
	})
}

func exitCode(err error) int {
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode()
	}
	return -1
}

// freePort returns a TCP port on 127.0.0.1 that is free now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgcluster: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// portTaken reports whether something listens on port of 127.0.0.1.
func portTaken(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return true
	}
	l.Close()
	return false
}

func validSettingName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r != '_' && r != '.' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PID returns the process id of the cluster's postmaster, which leads the
// process group of the cluster's processes.
func (c *Cluster) PID() (int, error) {
	pf, ok, err := readPidFile(c.Dir)
	switch {
	case err != nil:
		return 0, err
	case !ok || pf.pid <= 0:
		return 0, fmt.Errorf("pgcluster: %s has no postmaster.pid", c.Dir)
	}
	return pf.pid, nil
}
