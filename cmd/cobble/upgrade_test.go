package main

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/internal/testport"
)

// behind is serve's refusal of a database n migrations behind.
func behind(n int) string {
	s := map[bool]string{true: "", false: "s"}[n == 1]
	return fmt.Sprintf("cobble: the database schema is %d migration%s behind; run 'cobble migrate' (or start with --auto-migrate)", n, s)
}

// newerThan is the refusal of a database at version 999.
func newerThan(known int) string {
	return fmt.Sprintf("cobble: the database is at version 999, newer than this cobble knows (%d); use a newer cobble", known)
}

// serve refuses a database it does not know how to serve, and one that is
// older unless --auto-migrate (or COBBLE_AUTO_MIGRATE=true) says to migrate
// it; migrate refuses one that is newer. A refusal changes nothing.
func TestServeRefusesSchemas(t *testing.T) {
	t.Parallel()
	known := len(schemaStatus(t, bareDatabase(t)).Names)
	cases := []struct {
		name    string
		version int
		env     map[string]string
		args    []string
		want    string
	}{
		{name: "older", version: previousRelease, want: behind(known - previousRelease)},
		{name: "older, --no-migrate over COBBLE_AUTO_MIGRATE", version: previousRelease,
			env: map[string]string{"COBBLE_AUTO_MIGRATE": "true"}, args: []string{"--no-migrate"}, want: behind(known - previousRelease)},
		{name: "older, COBBLE_AUTO_MIGRATE=false", version: previousRelease,
			env: map[string]string{"COBBLE_AUTO_MIGRATE": "false"}, want: behind(known - previousRelease)},
		{name: "empty", version: 0, want: behind(known)},
		{name: "newer", version: 999, want: newerThan(known)},
		{name: "newer, --auto-migrate", version: 999, args: []string{"--auto-migrate"}, want: newerThan(known)},
		{name: "newer, migrate", version: 999, args: []string{"migrate"}, want: newerThan(known)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dbURL := schemaAt(t, c.version)
			env := map[string]string{"DATABASE_URL": dbURL}
			maps.Copy(env, c.env)
			args := append([]string{"serve", "--addr", testport.FreeAddr(t)}, c.args...)
			if slices.Contains(c.args, "migrate") {
				args = c.args
			}
			status, _, stderr := runProcess(t, env, args...)
			if status != 1 || lastLine(stderr) != c.want {
				t.Errorf("%s: exit %d, last line %q; want exit 1 and %q", args[0], status, lastLine(stderr), c.want)
			}
			if v := schemaStatus(t, dbURL).Version; v != c.version {
				t.Errorf("the refused database is at version %d, want %d", v, c.version)
			}
		})
	}
}

// serve --auto-migrate (or COBBLE_AUTO_MIGRATE=true) migrates an older
// database, then serves it.
func TestServeAutoMigrates(t *testing.T) {
	t.Parallel()
	known := len(schemaStatus(t, bareDatabase(t)).Names)
	for _, c := range []struct{ name, flag, env string }{{"--auto-migrate", "--auto-migrate", ""},
		{"COBBLE_AUTO_MIGRATE=true", "", "true"}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dbURL := schemaAt(t, previousRelease)
			addr := testport.FreeAddr(t)
			args := []string{"--addr", addr}
			if c.flag != "" {
				args = append(args, c.flag)
			}
			done, _, stderr := startServe(t, map[string]string{"DATABASE_URL": dbURL, "COBBLE_AUTO_MIGRATE": c.env}, args...)
			waitHealthy(t, "http://"+addr+"/", done, stderr)
			if v := schemaStatus(t, dbURL).Version; v != known {
				t.Errorf("serving at version %d, want %d", v, known)
			}
		})
	}
}

// schemaAt returns a fresh database at version: one of the migrations
// this binary knows (0: empty), or past them (999) as a newer Cobble would
// leave it.
func schemaAt(t *testing.T, version int) string {
	t.Helper()
	switch version {
	case 0:
		return bareDatabase(t)
	case 999:
		dbURL := testdb.NewURL(t)
		execSQL(t, dbURL, `UPDATE schema_version SET version = 999`)
		return dbURL
	}
	return databaseAt(t, version)
}

// userRow is what the previous release stored of an account, and must
// survive the upgrade.
type userRow struct {
	ID           int64
	Email        string
	PasswordHash string
	FeedToken    string
	PrefsVersion int64
	CreatedAt    time.Time
}

func users(t *testing.T, dbURL string) []userRow {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	rows, _ := conn.Query(t.Context(), `SELECT id, email, password_hash, feed_token, prefs_version, created_at FROM users ORDER BY id`)
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[userRow])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// previousReleaseData returns the URL of a fresh database at the previous
// release's schema, holding the data of testdata/release-008.sql.
func previousReleaseData(t *testing.T) string {
	t.Helper()
	dbURL := databaseAt(t, previousRelease)
	fixture, err := os.ReadFile("testdata/release-008.sql")
	if err != nil {
		t.Fatal(err)
	}
	execSQL(t, dbURL, string(fixture))
	return dbURL
}

// The previous release's schema, with its data, migrates to this one: the
// ledger check is clean, every volunteer's totals are what was stored, the
// new columns have their defaults, and the upgraded database serves.
func TestUpgradeFromPreviousRelease(t *testing.T) {
	t.Parallel()
	dbURL := previousReleaseData(t)
	before := users(t, dbURL)
	env := map[string]string{"DATABASE_URL": dbURL}

	// The check reads the database as it is, so it wants the schema it knows.
	if status, _, stderr := runProcess(t, env, "ledger", "check"); status != 1 || !strings.Contains(lastLine(stderr), "behind") {
		t.Errorf("ledger check before the upgrade: exit %d, %q; want a refusal", status, lastLine(stderr))
	}
	if status, stdout, stderr := runProcess(t, env, "migrate"); status != 0 || stdout != "database is up to date\n" {
		t.Fatalf("migrate: exit %d\n%s%s", status, stdout, stderr)
	}
	status, stdout, stderr := runProcess(t, env, "ledger", "check")
	t.Logf("cobble ledger check after the upgrade (exit %d):\n%s", status, stdout)
	if status != 0 || stdout != "checked 4 host-project totals; 0 differences\nchecked the rollups; 0 differences\n" {
		t.Errorf("ledger check after the upgrade: exit %d\n%s%s", status, stdout, stderr)
	}
	checkUpgradedTotals(t, dbURL)
	if diff := cmp.Diff(before, users(t, dbURL)); diff != "" {
		t.Errorf("accounts changed in the upgrade (-before +after):\n%s", diff)
	}
	checkNewColumns(t, dbURL)

	addr := testport.FreeAddr(t)
	done, _, serveLog := startServe(t, env, "--addr", addr)
	base := "http://" + addr
	waitHealthy(t, base+"/", done, serveLog)
	page := fetch(t, login(t, base, "ada@example.org", "long-enough"), base+"/computers")
	if !strings.Contains(page, "ada-desktop") || !strings.Contains(page, "ada-laptop") || strings.Contains(page, "bob-pc") {
		t.Errorf("Ada's computers page after the upgrade:\n%s", page)
	}
}

// checkNewColumns checks that the columns this release adds to existing
// rows have their defaults.
func checkNewColumns(t *testing.T, dbURL string) {
	t.Helper()
	var defaults, hosts, mail int
	query(t, dbURL, []any{&defaults, &hosts, &mail}, `SELECT
		(SELECT count(*) FROM users WHERE session_gen = 0 AND email_confirmed_at IS NULL AND alert_silence_days IS NULL
			AND NOT weekly_summary AND weekly_summary_at IS NULL),
		(SELECT count(*) FROM hosts WHERE silence_alerted_at IS NULL),
		(SELECT count(*) FROM mail_outbox) + (SELECT count(*) FROM user_tokens)`)
	if defaults != 3 || hosts != 3 || mail != 0 {
		t.Errorf("%d of 3 accounts and %d of 3 hosts have the new columns' defaults; %d messages or tokens", defaults, hosts, mail)
	}
}

// checkUpgradedTotals compares each volunteer's all-time totals after the
// upgrade with the sums in testdata/release-008.sql.
func checkUpgradedTotals(t *testing.T, dbURL string) {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := accounting.NewStore(pool, accounting.Options{})
	want := map[int64]accounting.Totals{
		2: {Estimated: 5000.75, Confirmed: 3400, CPUHours: 27, GPUHours: 2, JobsOK: 29, JobsError: 1},
		3: {Estimated: 1000, Confirmed: 550, CPUHours: 10, JobsOK: 9},
	}
	for id, w := range want {
		sum, err := store.Ledger.Summary(t.Context(), id, store.Ledger.Today(time.Now(), "UTC"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(w, sum.AllTime); diff != "" {
			t.Errorf("user %d's all-time totals (-stored before +after the upgrade):\n%s", id, diff)
		}
	}
	var ledger, confirmed float64
	query(t, dbURL, []any{&ledger, &confirmed}, `SELECT
		(SELECT sum(cpu_ec_micro + gpu_ec_micro) / 1e6 FROM ledger),
		(SELECT sum(granted_micro) / 1e6 FROM confirmed_ledger)`)
	if ledger != 6000.75 || confirmed != 3950 {
		t.Errorf("the ledgers sum to %v estimated and %v confirmed, want 6000.75 and 3950", ledger, confirmed)
	}
}

// login returns a client with cookies logged in to the server at base.
func login(t *testing.T, base, email, password string) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar, Timeout: time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(base+"/login", url.Values{"email": {email}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("log in as %s: status %d", email, resp.StatusCode)
	}
	return c
}

// fetch GETs u with c and returns the body of a 200 answer.
func fetch(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, %v\n%s", u, resp.StatusCode, err, b)
	}
	return string(b)
}
