package pgcluster

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// testLog sends the cluster's step lines to the test log.
type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Helper()
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// clusterDir returns a path for a data directory in a fresh temporary
// directory that the postgres user can reach when the test runs as root.
func clusterDir(t *testing.T) string {
	t.Helper()
	if _, err := BinDir(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	tmp := t.TempDir()
	if os.Geteuid() == 0 {
		// t.TempDir makes its parent directory private to root.
		for _, d := range []string{filepath.Dir(tmp), tmp} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return filepath.Join(tmp, "postgres")
}

func startCluster(t *testing.T, dir string) *Cluster {
	t.Helper()
	c, err := Start(t.Context(), dir, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	})
	return c
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func TestStartStopReuse(t *testing.T) {
	dir := clusterDir(t)
	ctx := t.Context()

	began := time.Now()
	c := startCluster(t, dir)
	t.Logf("initdb and start took %v", time.Since(began))

	if c.Dir != dir || c.Port == 0 {
		t.Fatalf("cluster Dir=%q Port=%d, want Dir=%q and a port", c.Dir, c.Port, dir)
	}
	if want := "postgres://postgres@127.0.0.1:" + strconv.Itoa(c.Port) + "/cobble?sslmode=disable"; c.URL("cobble") != want {
		t.Errorf("URL = %q, want %q", c.URL("cobble"), want)
	}
	for range 2 {
		if err := c.CreateDatabase(ctx, "cobble"); err != nil {
			t.Fatal(err)
		}
	}
	conn := connect(t, c.URL("cobble"))
	var encoding, listen, sockets string
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_encoding'), current_setting('listen_addresses'), current_setting('unix_socket_directories')").
		Scan(&encoding, &listen, &sockets); err != nil {
		t.Fatal(err)
	}
	if encoding != "UTF8" || listen != "127.0.0.1" || sockets != "" {
		t.Errorf("server_encoding=%q listen_addresses=%q unix_socket_directories=%q", encoding, listen, sockets)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)

	// A second start of a running cluster is refused.
	if c2, err := Start(ctx, dir, testLog{t}); err == nil {
		c2.Stop()
		t.Fatal("second Start of a running cluster succeeded")
	} else if !strings.Contains(err.Error(), "already running") {
		t.Errorf("second Start: %v, want an error saying the cluster is already running", err)
	} else {
		t.Logf("second Start: %v", err)
	}

	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, pidFileName)); !os.IsNotExist(err) {
		t.Errorf("after Stop, %s: %v", pidFileName, err)
	}

	// The next start reuses the cluster and its data.
	began = time.Now()
	c = startCluster(t, dir)
	t.Logf("restart took %v", time.Since(began))
	var v string
	if err := connect(t, c.URL("cobble")).QueryRow(ctx, "SELECT v FROM kept").Scan(&v); err != nil || v != "still here" {
		t.Fatalf("after restart: %q, %v", v, err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
}

func TestThrowawaySettings(t *testing.T) {
	dir := clusterDir(t)
	c, err := StartWith(t.Context(), dir, Options{Log: testLog{t}, Settings: ThrowawaySettings()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	var fsync, maxConns string
	if err := connect(t, c.URL("postgres")).QueryRow(t.Context(), "SELECT current_setting('fsync'), current_setting('max_connections')").
		Scan(&fsync, &maxConns); err != nil {
		t.Fatal(err)
	}
	if fsync != "off" || maxConns != "200" {
		t.Errorf("fsync=%q max_connections=%q, want off and 200", fsync, maxConns)
	}

	if _, err := StartWith(t.Context(), t.TempDir(), Options{Settings: map[string]string{"port": "5432"}}); err == nil {
		t.Error("StartWith accepted a port setting")
	}
}

func TestStalePidFile(t *testing.T) {
	dir := clusterDir(t)
	c := startCluster(t, dir)

	// A crash: the server and all its processes are killed at once. pg_ctl
	// makes the postmaster lead its own process group.
	pf, ok, err := readPidFile(dir)
	if err != nil || !ok {
		t.Fatalf("reading %s: %v %v", pidFileName, ok, err)
	}
	if err := syscall.Kill(-pf.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for isPostmasterOf(pf.pid, dir) {
		if time.Now().After(deadline) {
			t.Fatal("the killed postmaster is still there")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.stopped = true // Nothing left to stop.
	if _, err := os.Stat(filepath.Join(dir, pidFileName)); err != nil {
		t.Fatalf("the crash left no %s: %v", pidFileName, err)
	}
	c = startCluster(t, dir)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}

	// A pid file naming a live process that is not this cluster's
	// postmaster, as when the PID was reused after a reboot: PID 1.
	stale := "1\n" + dir + "\n0\n5432\n\n127.0.0.1\n0 0\nready\n"
	if err := os.WriteFile(filepath.Join(dir, pidFileName), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	c = startCluster(t, dir)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
}

func TestUnreachableDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root runs PostgreSQL as another user")
	}
	tmp := clusterDir(t)
	private := filepath.Join(filepath.Dir(tmp), "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Start(t.Context(), filepath.Join(private, "postgres"), nil)
	if err == nil || !strings.Contains(err.Error(), "chmod o+x "+private) {
		t.Fatalf("Start in a directory postgres cannot reach: %v", err)
	}
	t.Log(err)
}

func TestNotACluster(t *testing.T) {
	dir := clusterDir(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(t.Context(), dir, nil); err == nil || !strings.Contains(err.Error(), "neither empty nor") {
		t.Fatalf("Start in a non-empty directory: %v", err)
	}
}

func TestParseMajor(t *testing.T) {
	for in, want := range map[string]string{
		"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n": "15",
		"postgres (PostgreSQL) 9.6.24\n":                         "9.6",
		"postgres (PostgreSQL) 17devel\n":                        "17",
		"postgres (PostgreSQL) 18beta1\n":                        "18",
	} {
		if got, ok := parseMajor(in); !ok || got != want {
			t.Errorf("parseMajor(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := parseMajor("something else"); ok {
		t.Error("parseMajor accepted something else")
	}
}

func TestCompareVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"15", "9.6", 1},
		{"9.6", "10", -1},
		{"16", "16", 0},
		{"odd", "9", -1},
	} {
		if got := compareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestBinDir(t *testing.T) {
	dir, err := BinDir()
	if err != nil {
		t.Skip(err)
	}
	if !hasServer(dir) {
		t.Errorf("BinDir() = %q, which lacks a server binary", dir)
	}
}
