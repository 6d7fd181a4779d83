package primary

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/internal/pgcluster"
	"github.com/cobble-am/cobble/internal/testport"
)

// A Watcher on a URL naming a primary and its standby names the primary;
// once the primary is stopped and the standby promoted, it names the
// standby and counts one failover, its timeline having gone up.
func TestWatcherSeesAPromotion(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts two PostgreSQL clusters")
	}
	if _, err := pgcluster.BinDir(); err != nil {
		t.Skip(err)
	}
	tmp := t.TempDir()
	if os.Geteuid() == 0 { // the postgres user must reach the data directories
		for _, d := range []string{filepath.Dir(tmp), tmp} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx := t.Context()
	first, err := pgcluster.StartWith(ctx, filepath.Join(tmp, "first"), pgcluster.Options{Settings: pgcluster.ThrowawaySettings()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.Stop() })
	second, err := first.StartStandby(ctx, filepath.Join(tmp, "second"), pgcluster.ThrowawaySettings(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = second.Stop() })
	a, b := testport.Addr(first.Port), testport.Addr(second.Port)
	pool, err := pgxpool.New(ctx, "postgres://"+pgcluster.Superuser+"@"+a+","+b+
		"/postgres?sslmode=disable&target_session_attrs=read-write&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	w := New(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if w.Hosts() != 2 {
		t.Errorf("Hosts() = %d, want 2", w.Hosts())
	}
	w.Check(ctx)
	if s := w.Status(); s.Addr != a || s.Timeline != 1 || s.Failovers != 0 || s.Problem != "" || !strings.Contains(a, ":") {
		t.Fatalf("before: %+v, want %s on timeline 1, no failover", s, a)
	}
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	w.Check(ctx)
	if s := w.Status(); s.Problem == "" || s.Addr != a {
		t.Errorf("with the primary stopped and the standby not promoted: %+v, want a problem and the last primary", s)
	}
	promote(t, second.URL("postgres"))
	deadline := time.Now().Add(30 * time.Second)
	for w.Check(ctx); w.Status().Problem != "" && time.Now().Before(deadline); w.Check(ctx) {
		time.Sleep(100 * time.Millisecond)
	}
	if s := w.Status(); s.Addr != b || s.Timeline != 2 || s.Failovers != 1 || s.Problem != "" {
		t.Errorf("after the promotion: %+v, want %s on timeline 2, one failover", s, b)
	}
	w.Check(ctx)
	if s := w.Status(); s.Failovers != 1 {
		t.Errorf("a second check of the same primary counts %d failovers, want 1", s.Failovers)
	}
}

// promote promotes the standby at url and waits until it takes writes.
func promote(t *testing.T, url string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var ok bool
	if err := conn.QueryRow(t.Context(), `SELECT pg_promote(true, 30)`).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_promote: %v, %v", ok, err)
	}
}
