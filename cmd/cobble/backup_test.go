package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/pgcluster"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/web"
)

// A backup made with pg_dump -Fc restores with pg_restore into a new
// database that cobble ledger check finds clean, that holds the same rows in
// every table, gives every volunteer the same totals, and serves the same
// pages.
func TestBackupRestores(t *testing.T) {
	t.Parallel()
	src := testdb.NewURL(t)
	fillWithTraffic(t, src)
	dump := filepath.Join(t.TempDir(), "cobble.dump")
	pgTool(t, "pg_dump", "--format=custom", "--file="+dump, "--dbname="+src)
	dst := testdb.NewEmptyURL(t)
	pgTool(t, "pg_restore", "--exit-on-error", "--no-owner", "--dbname="+dst, dump)

	today := time.Now()
	want, got := facts(t, src, today), facts(t, dst, today)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the restored database differs (-backed up +restored):\n%s", diff)
	}
	if ada := want.Summaries["ada@example.org"].AllTime; ada.Estimated == 0 || ada.Confirmed == 0 || want.Tables["hosts"].Rows != 3 {
		t.Errorf("the backed-up database lacks the traffic: Ada's totals %+v, tables %v", ada, want.Tables)
	}
	status, stdout, stderr := runProcess(t, map[string]string{"DATABASE_URL": dst}, "ledger", "check")
	t.Logf("cobble ledger check on the restored database (exit %d):\n%s", status, stdout)
	clean := fmt.Sprintf("checked %d host-project totals; 0 differences\nchecked the rollups; 0 differences\n",
		want.Tables["host_projects"].Rows)
	if status != 0 || stdout != clean {
		t.Errorf("ledger check on the restored database: exit %d\n%s%s", status, stdout, stderr)
	}
	comparePages(t, src, dst)
}

// pgTool runs one of PostgreSQL's programs from the test server's binaries.
func pgTool(t *testing.T, name string, args ...string) {
	t.Helper()
	dir, err := pgcluster.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), filepath.Join(dir, name), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
}

// tableFacts are a table's row count and a digest of all its rows.
type tableFacts struct {
	Rows   int64
	Digest string
}

// dbFacts is what must be the same in a database and its restored copy.
type dbFacts struct {
	Tables    map[string]tableFacts
	Summaries map[string]accounting.Summary // by email
}

// facts reads every table of the public schema, and each account's totals
// as of now.
func facts(t *testing.T, dbURL string, now time.Time) dbFacts {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	f := dbFacts{Tables: map[string]tableFacts{}, Summaries: map[string]accounting.Summary{}}
	rows, _ := pool.Query(t.Context(), `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		var tf tableFacts
		err := pool.QueryRow(t.Context(), fmt.Sprintf(`SELECT count(*), coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '')
			FROM %s t`, pgx.Identifier{table}.Sanitize())).Scan(&tf.Rows, &tf.Digest)
		if err != nil {
			t.Fatal(err)
		}
		f.Tables[table] = tf
	}
	store := accounting.NewStore(pool, accounting.Options{})
	for _, email := range []string{"admin@example.org", "ada@example.org", "bob@example.org"} {
		var id int64
		var zone string
		if err := pool.QueryRow(t.Context(), `SELECT id, time_zone FROM users WHERE email = $1`, email).Scan(&id, &zone); err != nil {
			t.Fatal(err)
		}
		if f.Summaries[email], err = store.Ledger.Summary(t.Context(), id, store.Ledger.Today(now, zone)); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// comparePages serves the backed-up and the restored database side by side
// and compares the HTML of a volunteer's and an admin's pages, byte for
// byte.
func comparePages(t *testing.T, src, dst string) {
	t.Helper()
	a, b := pageServer(t, src), pageServer(t, dst)
	pages := []struct{ who, path, want string }{
		{"ada@example.org", "/", "Ada"},
		{"ada@example.org", "/computers", "ada-laptop"},
		{"ada@example.org", "/export/history.csv", "ada-desktop"},
		{"bob@example.org", "/", "Bob"},
		{"admin@example.org", "/admin/reconciliation", "Proj"},
		{"admin@example.org", "/admin/reconciliation/runs", "Proj"},
		{"admin@example.org", "/admin/projects/1/reconciliation", "Orphans"},
		{"admin@example.org", "/admin/hosts/3", "bob-pc"},
	}
	clients := map[string][2]*http.Client{}
	for _, p := range pages {
		c, ok := clients[p.who]
		if !ok {
			c = [2]*http.Client{login(t, a, p.who, trafficPassword), login(t, b, p.who, trafficPassword)}
			clients[p.who] = c
		}
		before, after := fetch(t, c[0], a+p.path), fetch(t, c[1], b+p.path)
		if !strings.Contains(before, p.want) {
			t.Errorf("%s for %s lacks %q:\n%s", p.path, p.who, p.want, before)
		}
		if diff := cmp.Diff(strings.Split(before, "\n"), strings.Split(after, "\n")); diff != "" {
			t.Errorf("%s for %s differs (-backed up +restored):\n%s", p.path, p.who, diff)
		}
	}
}

// pageServer serves the database at dbURL with Cobble's handlers and
// returns the server's URL.
func pageServer(t *testing.T, dbURL string) string {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	cfg := web.Config{Site: web.Site{Name: "Cobble", BaseURL: "http://127.0.0.1:1/", RepeatSec: 3600},
		MaxProjects: 4, PasswordCost: bcrypt.MinCost}
	srv, err := web.New(t.Context(), cfg, pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}
