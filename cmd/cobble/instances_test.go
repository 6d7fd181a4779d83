package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/boinc/exporttest"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/internal/testport"
)

// startPlain starts cobble serve as a process of its own on a free port,
// on the database at dbURL, without mail; it is stopped when the test
// ends. kill ends it with SIGKILL.
func startPlain(t *testing.T, dbURL string) (in *instance, kill func()) {
	t.Helper()
	addr := testport.FreeAddr(t)
	cmd := cobbleCommand(t, map[string]string{"DATABASE_URL": dbURL}, "serve", "--addr", addr,
		"--base-url", "http://"+addr+"/")
	in = &instance{base: "http://" + addr + "/", exited: make(chan error, 1), log: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = in.log, in.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { in.exited <- cmd.Wait() }()
	stopped := make(chan struct{})
	in.stop = sync.OnceValue(func() error {
		defer close(stopped)
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			return err
		}
		select {
		case err := <-in.exited:
			return err
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-in.exited
			return fmt.Errorf("did not stop within 15 s of SIGTERM")
		}
	})
	kill = func() {
		_ = cmd.Process.Kill()
	}
	t.Cleanup(func() { _ = in.stop() })
	waitHealthy(t, in.base, in.exited, in.log)
	return in, kill
}

// joinRPC sends a join (email and password) to the instance at base and
// returns the reply's text.
func joinRPC(t *testing.T, base, email, password string) string {
	t.Helper()
	b, err := os.ReadFile("../../boinc/testdata/1-join.request.xml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "<name>harness-user</name>", "<name>"+email+"</name>", 1)
	s = strings.Replace(s, "1b0c5653828265b442b07e297a78bea8", boinc.PasswordHash(password, email), 1)
	resp, err := http.Post(base+"rpc.php", "application/x-www-form-urlencoded", strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || bytes.Contains(reply, []byte("<error_num>")) {
		t.Fatalf("join at %s: HTTP %d, %v\n%s", base, resp.StatusCode, err, reply)
	}
	return string(reply)
}

// A change to the catalog or to a volunteer's feed token, made anywhere,
// reaches the other instances' RPCs: the database notifies every instance
// when it commits (accounting's TestListenChanges proves that the
// notification comes). A session made on one instance works on the other.
func TestChangesReachEveryInstance(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts two cobble serve processes")
	}
	dbURL := testdb.NewURL(t)
	pool, err := pgxpool.New(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// The lowest bcrypt cost, so that the joins polled below are quick.
	store := accounting.NewStore(pool, accounting.Options{PasswordCost: bcrypt.MinCost})
	p, err := store.Catalog.AddProject(t.Context(), accounting.Project{URL: "https://one.invalid/", Name: "One", Authenticator: "k"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := store.Accounts.SignUp(t.Context(), accounting.NewUser{Email: "vol@example.org", Name: "Vol", Password: "secret-pass"})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := startPlain(t, dbURL)
	b, _ := startPlain(t, dbURL)
	// Both instances read the catalog and the feed token into memory.
	for _, in := range []*instance{a, b} {
		if reply := joinRPC(t, in.base, "vol@example.org", "secret-pass"); !strings.Contains(reply, "<resource_share>100") {
			t.Fatalf("the first reply lacks the project's share of 100:\n%s", reply)
		}
	}
	oldToken, err := store.Accounts.FeedToken(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The change goes through a third party (this test's store), as an
	// admin's change on instance a would reach b.
	if _, err := store.Catalog.EditProject(t.Context(), accounting.Actor{}, p.ID, func(p *accounting.Project) { p.Share = 250 }); err != nil {
		t.Fatal(err)
	}
	if err := store.Accounts.RenewFeedToken(t.Context(), u.ID); err != nil {
		t.Fatal(err)
	}
	changed, rpcs := time.Now(), 0
	for _, in := range []*instance{b, a} {
		waitFor(t, time.Minute, in.base+" to reply with the new catalog and feed token", func() bool {
			reply := joinRPC(t, in.base, "vol@example.org", "secret-pass")
			rpcs++
			return strings.Contains(reply, "<resource_share>250") && !strings.Contains(reply, oldToken)
		})
	}
	// How soon is not held to a bound here, which would fail on a slow
	// machine: accounting's instance tests prove that the notification,
	// not the catalog's TTL, brings a change.
	t.Logf("both instances replied with the change %v after it (%d RPCs)", time.Since(changed).Round(time.Millisecond), rpcs)
	checkSessionShared(t, a, b, "vol@example.org", "secret-pass")
}

// Two cobble reconcile processes on one project: one runs, the other is
// refused as busy, because the run holds the project's advisory lock in
// the database.
func TestOneReconciliationAtATimeAcrossProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs two cobble reconcile processes")
	}
	env := dbEnv(t)
	if _, _, err := runCobble(t.Context(), env, "project", "add", "--url", "https://proj.example.org/",
		"--name", "Proj", "--authenticator", "k"); err != nil {
		t.Fatal(err)
	}
	// The first run reads its export from a named pipe, and so runs, holding
	// the lock, until this test writes the export.
	fifo := filepath.Join(t.TempDir(), "host.gz")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	first := cobbleCommand(t, env, "reconcile", "--project", "https://proj.example.org/", "--file", fifo)
	var firstOut bytes.Buffer
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	firstDone := make(chan error, 1)
	go func() { firstDone <- first.Wait() }()
	conn, err := pgx.Connect(t.Context(), env["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	waitFor(t, 20*time.Second, "the first run to start", func() bool {
		var n int
		err := conn.QueryRow(t.Context(), `SELECT count(*) FROM reconcile_runs WHERE status = 'running'`).Scan(&n)
		return err == nil && n == 1
	})

	status, stdout, stderr := runProcess(t, env, "reconcile", "--project", "https://proj.example.org/", "--file", fifo+".none")
	if status == 0 || !strings.Contains(stdout+stderr, "another reconciliation of this project is running") {
		t.Errorf("the second run: status %d\n%s%s", status, stdout, stderr)
	}

	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	writeEmptyExport(t, w)
	w.Close()
	select {
	case err := <-firstDone:
		if err != nil || !strings.Contains(firstOut.String(), "Proj: ok") {
			t.Errorf("the first run: %v\n%s", err, firstOut.String())
		}
	case <-time.After(30 * time.Second):
		_ = first.Process.Kill()
		t.Fatalf("the first run did not end:\n%s", firstOut.String())
	}
	var runs int
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM reconcile_runs`).Scan(&runs); err != nil || runs != 1 {
		t.Errorf("%d runs recorded (%v), want 1", runs, err)
	}
}

// waitFor polls cond every 20 ms until it holds, or fails t after d, or
// sooner, when the test binary nears its deadline (cleanupRoom before it).
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	if dl, ok := t.Deadline(); ok && dl.Add(-cleanupRoom).Before(deadline) {
		deadline = dl.Add(-cleanupRoom)
	}
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cleanupRoom is what a wait leaves of the test binary's time for the
// test's failure to be reported and its cleanups to run.
const cleanupRoom = 2 * time.Minute

// Three cobble serve processes on one database are one service: the load
// tool spreads its RPCs over them in turn, one is killed with SIGKILL in
// the middle of the load, and the other two go on answering every RPC
// sent to them; the ledger holds exactly what the hosts reported.
func TestThreeInstancesSurviveAKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts three cobble serve processes and the load tool")
	}
	loadBin := filepath.Join(t.TempDir(), "cobble-load")
	build := exec.Command("go", "build", "-trimpath", "-o", loadBin, "github.com/cobble-am/cobble/cmd/cobble-load")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building cobble-load: %v\n%s", err, out)
	}
	dbURL := testdb.NewURL(t)
	var ins []*instance
	var kills []func()
	for range 3 {
		in, kill := startPlain(t, dbURL)
		ins, kills = append(ins, in), append(kills, kill)
	}
	victim := ins[2]
	load := exec.Command(loadBin, "--db", dbURL, "--url", ins[0].base+","+ins[1].base+","+victim.base,
		"--users", "20", "--hosts", "2", "--concurrency", "6", "--warmup", "0s", "--duration", "4s",
		"--pg-ceiling=false")
	load.Env = append(os.Environ(), "GOGC=100")
	var out syncBuffer
	stderr := &watchedBuffer{want: "baseline:", seen: make(chan struct{})}
	load.Stdout, load.Stderr = io.MultiWriter(&out, stderr), stderr
	if err := load.Start(); err != nil {
		t.Fatal(err)
	}
	loadDone := make(chan error, 1)
	go func() { loadDone <- load.Wait() }()
	var killedAt time.Time
	select {
	case <-stderr.seen:
		time.Sleep(1500 * time.Millisecond) // into the load
		killedAt = time.Now()
		kills[2]()
	case err := <-loadDone:
		t.Fatalf("cobble-load ended before its load: %v\n%s\n%s", err, out.String(), stderr.String())
	case <-time.After(60 * time.Second):
		_ = load.Process.Kill()
		t.Fatalf("cobble-load did not reach its load in 60 s:\n%s\n%s", out.String(), stderr.String())
	}
	var loadErr error
	select {
	case loadErr = <-loadDone:
	case <-time.After(90 * time.Second):
		_ = load.Process.Kill()
		t.Fatalf("cobble-load did not end:\n%s\n%s", out.String(), stderr.String())
	}
	report := out.String()
	t.Logf("cobble-load's report:\n%s", report)
	if loadErr != nil {
		t.Fatalf("cobble-load: %v\n%s", loadErr, stderr.String())
	}
	if !strings.Contains(report, "ledger check: OK") {
		t.Errorf("the ledger check did not pass")
	}
	m := regexp.MustCompile(`RPCs: (\d+) sent, (\d+) OK, (\d+) failed`).FindStringSubmatch(report)
	if m == nil {
		t.Fatal("no RPC line in the report")
	}
	if failed, _ := strconv.Atoi(m[3]); failed == 0 {
		t.Errorf("no RPC to the killed instance failed: was it killed during the load?")
	}
	for _, line := range strings.Split(report, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "failed:") && !strings.Contains(line, victim.base) {
			t.Errorf("an RPC to an instance that was not killed failed: %s", line)
		}
	}
	// The load went on after the kill: the survivors took RPCs until its end.
	var after int
	err := pgxQueryRow(t, dbURL, `SELECT count(*) FROM hosts WHERE last_rpc_at > $1`, killedAt.Add(time.Second)).Scan(&after)
	if err != nil || after == 0 {
		t.Errorf("%d hosts made an RPC more than a second after the kill (%v); the load stopped", after, err)
	}
	for _, in := range ins[:2] {
		if err := in.stop(); err != nil {
			t.Errorf("a surviving instance ended with %v; its log:\n%s", err, in.log)
		}
	}
}

// pgxQueryRow runs one query on a connection of its own.
func pgxQueryRow(t *testing.T, dbURL, sql string, args ...any) pgx.Row {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn.QueryRow(t.Context(), sql, args...)
}

// watchedBuffer is a syncBuffer that closes seen once it has held want.
type watchedBuffer struct {
	syncBuffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *watchedBuffer) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	if strings.Contains(w.syncBuffer.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

// writeEmptyExport writes a gzipped host export of two hosts Cobble does
// not know to w.
func writeEmptyExport(t *testing.T, w io.Writer) {
	t.Helper()
	zw := gzip.NewWriter(w)
	hosts := []exporttest.Host{{ID: 1, UserID: 5, TotalCredit: 10}, {ID: 2, UserID: 6, TotalCredit: 20}}
	if err := exporttest.WriteHostExport(zw, slices.Values(hosts), exporttest.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkSessionShared logs in on instance a and checks that the session
// works on instance b: sessions live in the database.
func checkSessionShared(t *testing.T, a, b *instance, email, password string) {
	t.Helper()
	jar, err := cookiejar.New(nil) // cookies ignore ports: both instances get the session's
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(a.base+"login", url.Values{"email": {email}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("log in on the first instance: status %d", resp.StatusCode)
	}
	resp, err = c.Get(b.base + "computers")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the session made on one instance gets %d on the other, want 200", resp.StatusCode)
	}
}
