package web_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/pgcluster"
	"github.com/cobble-am/cobble/migrations"
	"github.com/cobble-am/cobble/web"
)

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// ownCluster starts a PostgreSQL cluster of the test's own (one the test
// may freeze) with a migrated database, and returns a pool on it.
func ownCluster(t *testing.T) (*pgcluster.Cluster, *pgxpool.Pool) {
	t.Helper()
	if _, err := pgcluster.BinDir(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	tmp := t.TempDir()
	if os.Geteuid() == 0 { // the postgres user must reach the data folder
		for _, d := range []string{filepath.Dir(tmp), tmp} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx := t.Context()
	c, err := pgcluster.StartWith(ctx, filepath.Join(tmp, "pg"), pgcluster.Options{Settings: pgcluster.ThrowawaySettings()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	})
	if err := c.CreateDatabase(ctx, "cobble"); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, c.URL("cobble"))
	if err != nil {
		t.Fatal(err)
	}
	err = migrations.Migrate(ctx, conn)
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, c.URL("cobble"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return c, pool
}

// freeze stops every process of the cluster with SIGSTOP (first the
// postmaster, so that it forks no more, then its children, which each
// lead a session of their own) and resumes them when the test ends.
func freeze(t *testing.T, c *pgcluster.Cluster) {
	t.Helper()
	pid, err := c.PID()
	if err != nil {
		t.Fatal(err)
	}
	procs := []int{pid}
	t.Cleanup(func() {
		for _, p := range procs {
			syscall.Kill(p, syscall.SIGCONT)
		}
	})
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc to find the cluster's processes in:", err)
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil || parentPID(child) != pid {
			continue
		}
		if err := syscall.Kill(child, syscall.SIGSTOP); err == nil {
			procs = append(procs, child)
		}
	}
	if len(procs) < 2 {
		t.Fatalf("found no processes of the cluster beside its postmaster %d", pid)
	}
}

// parentPID returns the parent of process pid, or 0.
func parentPID(pid int) int {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(st)) {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// With PostgreSQL frozen, requests answer 503 once their deadline passes,
// with the usual error replies, and the log shows the status sent.
func TestStalledDatabaseAnswers503(t *testing.T) {
	t.Parallel()
	cluster, pool := ownCluster(t)
	// The session is made on a server with the default deadline (bcrypt
	// can take seconds on a busy machine); the server under test, on the
	// same database, has a short one.
	setup := newEnvOn(t, pool)
	setup.user("vol@example.org", "secret-pass")
	admin := setup.login("admin@example.org", true)
	logs := &syncBuffer{}
	cfg := web.Config{Site: web.Site{Name: "Cobble Test", BaseURL: "http://127.0.0.1:1/", RepeatSec: 3600},
		MaxProjects: 4, RequestTimeout: time.Second}
	srv, err := web.New(t.Context(), cfg, pool, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	admin.Timeout = 30 * time.Second // far beyond the deadline: a hang fails the test
	freeze(t, cluster)

	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Post(hs.URL+"/rpc.php", "application/x-www-form-urlencoded",
		bytes.NewReader(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass")))
	if err != nil {
		t.Fatalf("RPC with the database frozen: %v", err)
	}
	body := new(bytes.Buffer)
	body.ReadFrom(resp.Body)
	resp.Body.Close()
	if r := parseReply(t, body.String()); resp.StatusCode != http.StatusServiceUnavailable || r.ErrorNum != boinc.CodeProjectDown {
		t.Errorf("RPC: status %d error %d, want 503 with %d", resp.StatusCode, r.ErrorNum, boinc.CodeProjectDown)
	}
	resp, err = client.Post(hs.URL+"/login", "application/x-www-form-urlencoded",
		strings.NewReader("email=vol%40example.org&password=secret-pass"))
	if err != nil {
		t.Fatalf("log-in with the database frozen: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("log-in: status %d, want 503", resp.StatusCode)
	}
	resp, err = admin.Get(hs.URL + "/admin/reconciliation")
	if err != nil {
		t.Fatalf("admin page with the database frozen: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("admin page: status %d, want 503", resp.StatusCode)
	}
	for _, path := range []string{"path=/rpc.php", "path=/login", "path=/admin/reconciliation"} {
		if !logged(logs.String(), "msg=request", path+" ", "status=503") {
			t.Errorf("no request line with %s and status=503 in the log:\n%s", path, logs)
		}
	}
}

// logged says whether one line of log holds all of parts.
func logged(log string, parts ...string) bool {
	for line := range strings.Lines(log) {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}
