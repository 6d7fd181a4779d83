package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/internal/testport"
	"github.com/cobble-am/cobble/migrations"
)

// dbEnv returns an environment whose DATABASE_URL is a fresh migrated
// database, dropped when t ends.
func dbEnv(t *testing.T) map[string]string {
	t.Helper()
	return map[string]string{"DATABASE_URL": testdb.NewURL(t)}
}

// bareDatabase returns the URL of a fresh database without Cobble's schema,
// dropped when t ends. It skips t as testdb does without a server.
func bareDatabase(t *testing.T) string {
	t.Helper()
	return testdb.NewEmptyURL(t)
}

// query runs one query on the database at dbURL and returns its only row.
func query(t *testing.T, dbURL string, dest []any, sql string, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(t.Context(), sql, args...).Scan(dest...); err != nil {
		t.Fatal(err)
	}
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	t.Run("migrated", func(t *testing.T) {
		t.Parallel()
		stdout, _, err := runCobble(t.Context(), dbEnv(t), "migrate")
		if err != nil {
			t.Fatal(err)
		}
		if stdout != "database is up to date\n" {
			t.Errorf("stdout = %q, want one line saying the database is up to date", stdout)
		}
	})
	t.Run("empty", func(t *testing.T) {
		t.Parallel()
		dbURL := bareDatabase(t)
		env := map[string]string{"DATABASE_URL": dbURL}
		for range 2 { // twice: the second run has nothing to do
			stdout, _, err := runCobble(t.Context(), env, "migrate")
			if err != nil {
				t.Fatal(err)
			}
			if stdout != "database is up to date\n" {
				t.Errorf("stdout = %q", stdout)
			}
		}
		conn, err := pgx.Connect(t.Context(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if n, err := migrations.Pending(t.Context(), conn); err != nil || n != 0 {
			t.Errorf("after migrate, %d migrations pending (err %v)", n, err)
		}
	})
	t.Run("missing database", func(t *testing.T) {
		t.Parallel()
		u, err := url.Parse(testdb.NewURL(t))
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/cobble_cmd_no_such_database"
		errCase{args: []string{"migrate"}, env: map[string]string{"DATABASE_URL": u.String()},
			want: []string{"cannot reach the database", "does not exist"}}.check(t)
	})
}

// execSQL runs sql, which may hold several statements, on the database at
// dbURL.
func execSQL(t *testing.T, dbURL, sql string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), sql); err != nil {
		t.Fatal(err)
	}
}

var createdUser = regexp.MustCompile(`^created user ([0-9]+) <([^>]+)>( \(admin\))?\n$`)

func TestUserCreate(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	dbURL := env["DATABASE_URL"]

	stdout, _, err := runCobble(t.Context(), env, "user", "create", "--email", "Alice@Example.org", "--password", "correct horse", "--admin")
	if err != nil {
		t.Fatal(err)
	}
	m := createdUser.FindStringSubmatch(stdout)
	if m == nil || m[2] != "Alice@Example.org" || m[3] == "" {
		t.Fatalf("stdout = %q, want created user ID <Alice@Example.org> (admin)", stdout)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	var email, name string
	var admin bool
	query(t, dbURL, []any{&email, &name, &admin}, "SELECT email, name, is_admin FROM users WHERE id = $1", id)
	// No --name: the account has none (a name taken from the email would
	// be one the volunteer never chose).
	if email != "Alice@Example.org" || name != "" || !admin {
		t.Errorf("user %d is %q %q admin=%v, want Alice@Example.org, with no name, an admin", id, email, name, admin)
	}

	stdout, _, err = runCobble(t.Context(), env, "user", "create", "--email", " bob@example.org ", "--password", "12345678", "--name", "Bob B.")
	if err != nil {
		t.Fatal(err)
	}
	if m := createdUser.FindStringSubmatch(stdout); m == nil || m[2] != "bob@example.org" || m[3] != "" {
		t.Errorf("stdout = %q, want created user ID <bob@example.org>", stdout)
	}

	cases := []errCase{
		{name: "same email", args: []string{"user", "create", "--email", "Alice@Example.org", "--password", "another one"},
			want: []string{"account", "Alice@Example.org", "exists already"}},
		{name: "same email other case", args: []string{"user", "create", "--email", "alice@EXAMPLE.ORG", "--password", "another one"},
			want: []string{"account", "alice@EXAMPLE.ORG", "exists already"}},
		{name: "no email", args: []string{"user", "create", "--password", "long enough"}, usage: true, want: []string{"--email"}},
		{name: "bad email", args: []string{"user", "create", "--email", "carol", "--password", "long enough"}, usage: true,
			want: []string{"--email", "name@example.org"}},
		{name: "email without dot", args: []string{"user", "create", "--email", "carol@localhost", "--password", "long enough"},
			usage: true, want: []string{"--email"}},
		{name: "short password", args: []string{"user", "create", "--email", "carol@example.org", "--password", "short"}, usage: true,
			want: []string{"--password", "8 characters"}},
		{name: "no password", args: []string{"user", "create", "--email", "carol@example.org"}, usage: true,
			want: []string{"--password"}},
		{name: "long name", args: []string{"user", "create", "--email", "carol@example.org", "--password", "long enough",
			"--name", strings.Repeat("n", 101)}, usage: true, want: []string{"--name"}},
		{name: "everything wrong", args: []string{"user", "create", "--email", "x", "--password", "y"}, usage: true,
			want: []string{"--email", "--password"}},
	}
	for _, c := range cases {
		c.env = env
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if msg := c.check(t); strings.Contains(msg, "user_emails") || strings.Contains(msg, "create user") {
				t.Errorf("error %q reads like a program's, not for a person", msg)
			}
		})
	}
}

var addedProject = regexp.MustCompile(`^added project ([0-9]+) (.+) <([^>]+)>\n$`)

func TestProjectAdd(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	dbURL := env["DATABASE_URL"]

	stdout, _, err := runCobble(t.Context(), env, "project", "add",
		"--url", "https://einstein.example.org/", "--name", "Einstein@Example", "--authenticator", "0123abcd",
		"--keywords", "Astronomy, 4, pulsars", "--resources", "CPU,NVIDIA,intel_gpu",
		"--platforms", "x86_64-pc-linux-gnu,windows_x86_64", "--share", "250", "--account-email", " am@cobble.example ")
	if err != nil {
		t.Fatal(err)
	}
	m := addedProject.FindStringSubmatch(stdout)
	if m == nil || m[2] != "Einstein@Example" || m[3] != "https://einstein.example.org/" {
		t.Fatalf("stdout = %q, want added project ID Einstein@Example <https://einstein.example.org/>", stdout)
	}
	var resources, platforms []string
	var keywords []int
	var share float64
	var auth, statsURL, status, email string
	query(t, dbURL, []any{&keywords, &resources, &platforms, &share, &auth, &statsURL, &status, &email},
		"SELECT keywords, resources, platforms, share, authenticator, stats_url, status, account_email FROM projects WHERE id = $1", m[1])
	got := fmt.Sprintf("%v %q %q %v %s %s %s %s", keywords, resources, platforms, share, auth, statsURL, status, email)
	want := `[1 4 3] ["CPU" "NVIDIA" "intel_gpu"] ["x86_64-pc-linux-gnu" "windows_x86_64"] ` +
		`250 0123abcd https://einstein.example.org/stats/ active am@cobble.example`
	if got != want {
		t.Errorf("stored project:\n got %s\nwant %s", got, want)
	}

	// The defaults: CPU, a share of 100, every platform.
	stdout, _, err = runCobble(t.Context(), env, "project", "add",
		"--url", "http://rosetta.example.org/rosetta/", "--name", "Rosetta@Example", "--authenticator", "k",
		"--stats-url", "https://stats.example.org/rosetta/")
	if err != nil {
		t.Fatal(err)
	}
	m = addedProject.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("stdout = %q", stdout)
	}
	query(t, dbURL, []any{&resources, &platforms, &share, &statsURL},
		"SELECT resources, platforms, share, stats_url FROM projects WHERE id = $1", m[1])
	if got := fmt.Sprintf("%q %q %v %s", resources, platforms, share, statsURL); got != `["CPU"] [] 100 https://stats.example.org/rosetta/` {
		t.Errorf("stored project: %s", got)
	}

	add := func(flags ...string) []string {
		args := []string{"project", "add", "--url", "https://new.example.org/", "--name", "New", "--authenticator", "key"}
		return append(args, flags...)
	}
	cases := []errCase{
		{name: "same URL", args: add("--url", "https://einstein.example.org/"),
			want: []string{"project", "https://einstein.example.org/", "already"}},
		{name: "URL without slash", args: add("--url", "https://new.example.org"), usage: true, want: []string{"--url", "ends with /"}},
		{name: "localhost URL", args: add("--url", "http://localhost/new/"), usage: true, want: []string{"--url", "dot"}},
		{name: "URL with &", args: add("--url", "https://new.example.org/?a=1&b=2/"), usage: true, want: []string{"--url"}},
		{name: "ftp URL", args: add("--url", "ftp://new.example.org/"), usage: true, want: []string{"--url"}},
		{name: "no URL", args: []string{"project", "add", "--name", "New", "--authenticator", "key"}, usage: true,
			want: []string{"--url"}},
		{name: "no name", args: add("--name", " "), usage: true, want: []string{"--name"}},
		{name: "unknown resource", args: add("--resources", "CPU,TPU"), usage: true, want: []string{"--resources", "NVIDIA"}},
		{name: "resource in wrong case", args: add("--resources", "nvidia"), usage: true, want: []string{"--resources"}},
		{name: "empty authenticator", args: add("--authenticator", ""), usage: true, want: []string{"--authenticator"}},
		{name: "blank authenticator", args: add("--authenticator", "   "), usage: true, want: []string{"--authenticator"}},
		{name: "authenticator with <", args: add("--authenticator", "a<b"), usage: true, want: []string{"--authenticator"}},
		{name: "negative share", args: add("--share", "-5"), usage: true, want: []string{"--share"}},
		{name: "NaN share", args: add("--share", "NaN"), usage: true, want: []string{"--share"}},
		{name: "unknown keyword", args: add("--keywords", "Astronomy, Astrology, 99"), usage: true,
			want: []string{"--keywords", `"Astrology"`, `"99"`}},
		{name: "bad stats URL", args: add("--stats-url", "stats"), usage: true, want: []string{"--stats-url"}},
		{name: "bad account email", args: add("--account-email", "am at example"), usage: true, want: []string{"--account-email"}},
		{name: "account email with a control character", args: add("--account-email", "am\x01@example.org"), usage: true,
			want: []string{"--account-email"}},
		{name: "everything wrong", args: []string{"project", "add", "--resources", "GPU"}, usage: true,
			want: []string{"--url", "--name", "--authenticator", "--resources"}},
	}
	for _, c := range cases {
		c.env = env
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if msg := c.check(t); strings.Contains(msg, "projects_url_key") || strings.Contains(msg, "add project") ||
				(!slices.Contains(c.args, "--stats-url") && strings.Contains(msg, "--stats-url")) {
				t.Errorf("error %q reads like a program's, or blames a flag not given", msg)
			}
		})
	}
	var n int
	query(t, dbURL, []any{&n}, "SELECT count(*) FROM projects")
	if n != 2 {
		t.Errorf("%d projects in the catalog, want the 2 added", n)
	}
}

// startServe runs cobble serve with args until the test ends, and returns
// the channel on which run's error will come and the function that stops
// it.
func startServe(t *testing.T, env map[string]string, args ...string) (done <-chan error, stop func(), stderr *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	finished := make(chan struct{})
	stderr = &syncBuffer{}
	go func() {
		defer close(finished)
		errc <- run(ctx, append([]string{"serve"}, args...), envMap(env), io.Discard, stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-finished:
		case <-time.After(15 * time.Second):
			t.Error("serve did not stop")
		}
	})
	return errc, cancel, stderr
}

// get fetches url and returns the status and body; status 0 when nothing
// answered.
func get(ctx context.Context, url string) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitHealthy polls base/healthz until it answers 200.
func waitHealthy(t *testing.T, base string, done <-chan error, stderr *syncBuffer) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		status, body := get(ctx, base+"healthz")
		cancel()
		if status == http.StatusOK {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended before it was healthy: %v\n%s", err, stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /healthz: %d %s; server log:\n%s", status, body, stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServe(t *testing.T) {
	t.Parallel()
	for _, noMigrate := range []bool{false, true} {
		t.Run(fmt.Sprintf("no-migrate=%v", noMigrate), func(t *testing.T) {
			t.Parallel()
			addr := testport.FreeAddr(t)
			args := []string{"--addr", addr, "--base-url", "http://" + addr, "--name", "Test Pool"}
			if noMigrate {
				args = append(args, "--no-migrate")
			}
			done, stop, stderr := startServe(t, dbEnv(t), args...)
			base := "http://" + addr + "/"
			waitHealthy(t, base, done, stderr)

			status, body := get(t.Context(), base+"get_project_config.php")
			if status != http.StatusOK {
				t.Fatalf("GET /get_project_config.php: %d %s", status, body)
			}
			for _, want := range []string{"<account_manager/>", "<name>Test Pool</name>", "<master_url>" + base + "</master_url>"} {
				if !strings.Contains(body, want) {
					t.Errorf("project config lacks %s:\n%s", want, body)
				}
			}

			stop()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("serve returned %v after its context ended, want nil", err)
				}
			case <-time.After(time.Minute):
				t.Fatal("serve did not shut down within a minute of its context ending")
			}
			if log := stderr.String(); !strings.Contains(log, "shutting down") {
				t.Errorf("the log does not say it is shutting down:\n%s", log)
			}
		})
	}
}

func TestServeRefuses(t *testing.T) {
	t.Parallel()
	t.Run("unmigrated database with --no-migrate", func(t *testing.T) {
		t.Parallel()
		env := map[string]string{"DATABASE_URL": bareDatabase(t)}
		errCase{args: []string{"serve", "--addr", testport.FreeAddr(t), "--no-migrate"}, env: env,
			want: []string{"database schema is", "behind", "run 'cobble migrate'"}}.check(t)

		// Once migrated, it serves.
		if _, _, err := runCobble(t.Context(), env, "migrate"); err != nil {
			t.Fatal(err)
		}
		addr := testport.FreeAddr(t)
		done, _, stderr := startServe(t, env, "--addr", addr, "--no-migrate")
		waitHealthy(t, "http://"+addr+"/", done, stderr)
	})
	t.Run("address in use", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		errCase{args: []string{"serve", "--addr", l.Addr().String()}, env: dbEnv(t),
			want: []string{"listen on " + l.Addr().String(), "in use"}}.check(t)
	})
}
