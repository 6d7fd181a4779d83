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
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
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

// prepareDir makes dir if need be and checks that the server's user can
// reach it (when Cobble runs as root) or owns it (otherwise).
func prepareDir(dir string, acct *account) error {
	// Parents get the usual mode, so that the postgres user can reach dir
	// when Cobble runs as root; dir itself must be private to the server.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("pgcluster: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("pgcluster: %s is not a directory", dir)
	}
	if acct == nil {
		return checkOwnedByMe(dir)
	}
	return acct.checkReachable(dir)
}

// clusterVersion returns the major version recorded in dir/PG_VERSION, or ""
// when dir is empty and so ready for initdb.
func clusterVersion(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "PG_VERSION"))
	if err == nil {
		return strings.TrimSpace(string(data)), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("pgcluster: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("pgcluster: %w", err)
	}
	if len(entries) > 0 {
		return "", fmt.Errorf("pgcluster: %s is neither empty nor a PostgreSQL cluster (it has no PG_VERSION); "+
			"remove it, or choose another directory", dir)
	}
	return "", nil
}

// binDirFor finds the server binaries of major version want, the version of
// the existing cluster in dir, preferring them in BinDir's order.
func binDirFor(ctx context.Context, want, dir string) (string, error) {
	candidates := binDirCandidates()
	if len(candidates) == 0 {
		return "", errNoServer
	}
	var found []string
	for _, bin := range candidates {
		major, err := serverMajor(ctx, bin)
		if err != nil {
			return "", err
		}
		if major == want {
			return bin, nil
		}
		found = append(found, major+" in "+bin)
	}
	return "", fmt.Errorf("pgcluster: the cluster in %s was made by PostgreSQL %s, but the server binaries found are "+
		"for another version (%s); install PostgreSQL %s (on Debian the package postgresql-%s), "+
		"or remove %s to start afresh (its data is then lost)",
		dir, want, strings.Join(found, ", "), want, want, dir)
}

// checkNotRunning returns an error if a postmaster serves dir, and removes a
// stale postmaster.pid whose process is gone or is not that postmaster.
func checkNotRunning(dir, bin string, logw io.Writer) error {
	pf, ok, err := readPidFile(dir)
	if err != nil || !ok {
		return err
	}
	if isPostmasterOf(pf.pid, dir) {
		return alreadyRunning(dir, bin, pf)
	}
	if err := os.Remove(filepath.Join(dir, pidFileName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pgcluster: removing a stale %s: %w", pidFileName, err)
	}
	fmt.Fprintf(logw, "pgcluster: removed a stale %s (PID %d is not running this cluster)\n", pidFileName, pf.pid)
	return nil
}

func alreadyRunning(dir, bin string, pf pidFile) error {
	return fmt.Errorf("pgcluster: the cluster in %s is already running (postmaster PID %d, port %d), "+
		"perhaps under another `cobble dev`; stop that first, or stop the server with `%s stop -D %s`",
		dir, pf.pid, pf.port, filepath.Join(bin, "pg_ctl"), dir)
}

// initdb makes a new cluster in the empty c.Dir.
func (c *Cluster) initdb(ctx context.Context) error {
	began := time.Now()
	out, err := c.run(ctx, "initdb",
		"-D", c.Dir,
		"-U", Superuser,
		"--auth=trust",
		"--encoding=UTF8",
		"--no-locale",
		"--no-sync",
	)
	if err != nil {
		// Leave dir empty, as it was, so that the next start runs initdb
		// again rather than taking a half-made cluster for a cluster.
		if entries, readErr := os.ReadDir(c.Dir); readErr == nil {
			for _, e := range entries {
				_ = os.RemoveAll(filepath.Join(c.Dir, e.Name()))
			}
		}
		if ctx.Err() != nil {
			return fmt.Errorf("pgcluster: initdb in %s: %w", c.Dir, context.Cause(ctx))
		}
		return fmt.Errorf("pgcluster: initdb in %s: %w\n%s", c.Dir, err, out)
	}
	fmt.Fprintf(c.log, "pgcluster: initialised a cluster in %s in %v\n", c.Dir, time.Since(began).Round(time.Millisecond))
	return nil
}

// start starts the server on a free port, trying again with another port if
// something else took the chosen one meanwhile.
func (c *Cluster) start(ctx context.Context, settings map[string]string) error {
	logFile, err := os.OpenFile(c.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("pgcluster: server log: %w", err)
	}
	defer logFile.Close() // The server keeps its own copy of the descriptor.

	const tries = 3
	for try := 1; ; try++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		err = c.startOn(ctx, port, settings, logFile)
		if err == nil {
			c.Port = port
			return nil
		}
		if try == tries || ctx.Err() != nil || !portTaken(port) {
			return err
		}
		fmt.Fprintf(c.log, "pgcluster: port %d was taken meanwhile; trying another\n", port)
	}
}

// startOn runs pg_ctl start for port and waits until the server accepts
// connections.
func (c *Cluster) startOn(ctx context.Context, port int, settings map[string]string, logFile *os.File) error {
	began := time.Now()
	logStart, _ := logFile.Seek(0, io.SeekEnd)

	// pg_ctl hands -o to the server through /bin/sh, hence the quoting.
	opts := []string{
		"-c " + shellQuote("listen_addresses=127.0.0.1"),
		"-c " + shellQuote("port="+strconv.Itoa(port)),
		"-c " + shellQuote("unix_socket_directories="),
	}
	for _, name := range slices.Sorted(maps.Keys(settings)) {
		opts = append(opts, "-c "+shellQuote(name+"="+settings[name]))
	}
	cmd := c.command(ctx, "pg_ctl", "start",
		"-D", c.Dir,
		"-w", "-t", strconv.Itoa(int(startTimeout/time.Second)),
		"-s",
		"-o", strings.Join(opts, " "),
	)
	// Without -l, pg_ctl leaves the server's output on its own standard
	// output: the log file, opened here so that the server's user needs no
	// right to write beside the data directory.
	cmd.Stdout = logFile
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second

	err := cmd.Run()
	if err == nil {
		err = c.waitReady(ctx, port)
	}
	if err != nil {
		c.abandon(port)
		if ctx.Err() != nil {
			return fmt.Errorf("pgcluster: starting the cluster in %s: %w", c.Dir, context.Cause(ctx))
		}
		// Another Start of the same cluster may have won the race.
		if pf, ok, _ := readPidFile(c.Dir); ok && pf.port != port && isPostmasterOf(pf.pid, c.Dir) {
			return alreadyRunning(c.Dir, c.bin, pf)
		}
		return fmt.Errorf("pgcluster: starting the cluster in %s on port %d: %w\n%s%s",
			c.Dir, port, err, stderr.Bytes(), c.logSince(logStart))
	}
	fmt.Fprintf(c.log, "pgcluster: started the cluster in %s on 127.0.0.1:%d in %v (log: %s)\n",
		c.Dir, port, time.Since(began).Round(time.Millisecond), c.LogFile)
	return nil
}

// waitReady connects until the server answers, for at most startTimeout.
func (c *Cluster) waitReady(ctx context.Context, port int) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	u := urlFor(port, "postgres")
	for {
		conn, err := pgx.Connect(ctx, u)
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("server does not accept connections: %w", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// abandon stops a server that Start began but could not finish starting,
// such as when ctx ended meanwhile. A server that is not the one started on
// port (another cobble dev's, say) is left alone.
func (c *Cluster) abandon(port int) {
	pf, ok, err := readPidFile(c.Dir)
	if err != nil || !ok || pf.port != port {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	_, _ = c.run(ctx, "pg_ctl", "stop", "-D", c.Dir, "-m", "immediate", "-w", "-s")
}

// logSince returns what the server logged from offset on, at most its last
// 4 KiB, to explain a failed start.
func (c *Cluster) logSince(offset int64) string {
	data, err := os.ReadFile(c.LogFile)
	if err != nil || int64(len(data)) <= offset {
		return ""
	}
	data = data[offset:]
	if len(data) > 4096 {
		data = data[len(data)-4096:]
	}
	return "server log (" + c.LogFile + "):\n" + string(data)
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
