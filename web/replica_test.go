package web_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/pgcluster"
	"github.com/cobble-am/cobble/migrations"
	"github.com/cobble-am/cobble/web"
)

// replicaPair starts a primary cluster with Cobble's schema in database
// "cobble" and a streaming standby of it (pg_basebackup), both on loopback,
// and returns pools on each and the standby, stopped when t ends.
func replicaPair(t *testing.T) (primary, replica *pgxpool.Pool, standby *pgcluster.Cluster) {
	t.Helper()
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
	settings := pgcluster.ThrowawaySettings()
	pc, err := pgcluster.StartWith(ctx, filepath.Join(tmp, "primary"), pgcluster.Options{Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Stop() })
	if err := pc.CreateDatabase(ctx, "cobble"); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, pc.URL("cobble"))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrations.Migrate(ctx, conn); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	standby, err = pc.StartStandby(ctx, filepath.Join(tmp, "standby"), settings, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = standby.Stop() }) // runs before the primary's
	if primary, err = pgxpool.New(ctx, pc.URL("cobble")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(primary.Close)
	if replica, err = pgxpool.New(ctx, standby.URL("cobble")+"&connect_timeout=2"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(replica.Close)
	return primary, replica, standby
}

// A streaming replica takes the admin lookups (and says its lag on the
// overview), a browser that just posted reads the primary, and a replica
// that stops answering leaves its reads to the primary.
func TestReadReplica(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts two PostgreSQL clusters")
	}
	primary, replicaPool, standby := replicaPair(t)
	e := newEnvOnWith(t, primary, func(cfg *web.Config) { cfg.Replica = replicaPool })
	ctx, cancel := context.WithCancel(context.Background())
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		e.store.ReplicaLoop(ctx, 50*time.Millisecond, quietLog())
	}()
	t.Cleanup(func() { cancel(); <-loopDone })
	admin := e.login("admin@example.org", true)
	page := func(c *http.Client, path string, header ...string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", e.http.URL+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", path, resp.StatusCode, b.String())
		}
		return b.String()
	}
	// found says whether the lookup lists the volunteer (the page repeats
	// the query itself in its search box).
	found := func(c *http.Client, email string, header ...string) bool {
		return strings.Contains(page(c, "/admin/lookup?q="+url.QueryEscape(email), header...), ">"+email+"</a>")
	}
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("waited 15 s for %s; replica status %+v", what, e.store.ReplicaStatus())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	waitUntil("the replica to be in use", func() bool { return e.store.ReplicaStatus().InUse })
	if p := page(admin, "/admin/overview"); !strings.Contains(p, "Read replica: in use") {
		t.Errorf("the overview does not say the replica is in use:\n%s", p)
	}
	e.user("first@example.org", "long-enough")
	waitUntil("the replica to show a new volunteer", func() bool { return found(admin, "first@example.org") })

	// With its replay paused, the replica misses a new volunteer: the
	// lookup reads it, and the overview shows it behind.
	standbyConn, err := pgx.Connect(t.Context(), standby.URL("cobble"))
	if err != nil {
		t.Fatal(err)
	}
	defer standbyConn.Close(context.Background())
	if _, err := standbyConn.Exec(t.Context(), `SELECT pg_wal_replay_pause()`); err != nil {
		t.Fatal(err)
	}
	waitUntil("the replay to pause", func() bool {
		var state string
		err := standbyConn.QueryRow(t.Context(), `SELECT pg_get_wal_replay_pause_state()`).Scan(&state)
		return err == nil && state == "paused"
	})
	e.user("hidden@example.org", "long-enough")
	if found(admin, "hidden@example.org") {
		t.Error("the lookup found a volunteer the paused replica has not replayed: it did not read the replica")
	}
	waitUntil("a lag to show", func() bool { st := e.store.ReplicaStatus(); return st.InUse && st.Lag > 0 })
	if p := page(admin, "/admin/overview"); !strings.Contains(p, "behind the primary") {
		t.Errorf("the overview does not show the replica's lag:\n%s", p)
	}
	// A browser that posted a change reads the primary.
	if !found(admin, "hidden@example.org", "Cookie", "cobble_wrote=1") {
		t.Error("a browser that wrote lately did not read the primary")
	}
	if _, err := standbyConn.Exec(t.Context(), `SELECT pg_wal_replay_resume()`); err != nil {
		t.Fatal(err)
	}
	waitUntil("the resumed replica to show the volunteer", func() bool { return found(admin, "hidden@example.org") })

	// A replica that stops answering: the primary serves its reads, and
	// the overview says so.
	standbyConn.Close(context.Background())
	if err := standby.Stop(); err != nil {
		t.Fatal(err)
	}
	waitUntil("the replica to go out of use", func() bool { return !e.store.ReplicaStatus().InUse })
	if p := page(admin, "/admin/overview"); !strings.Contains(p, "Read replica: not in use, the primary serves its reads") {
		t.Errorf("the overview does not say the replica is out of use:\n%s", p)
	}
	e.user("later@example.org", "long-enough")
	if !found(admin, "later@example.org") {
		t.Error("without the replica, the lookup did not read the primary")
	}
	var st accounting.ReplicaStatus = e.store.ReplicaStatus()
	t.Logf("replica status at the end: %+v", st)
}
