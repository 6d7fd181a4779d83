package main

import (
	"bytes"
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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/smtptest"
)

// browserClient is a client with cookies that does not follow redirects.
func browserClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// postForm posts form to u and returns the status.
func postForm(t *testing.T, c *http.Client, u string, form url.Values) int {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

var signupLink = regexp.MustCompile(`signup/finish/([A-Za-z0-9_-]{43})$`)

// postRetrying posts form to u as a volunteer would: again, after a
// second, while the answer is 503 (try again later), until shortly before
// the test's deadline. It returns the first other status, and whether a
// 503 came before it: then an earlier try may have done the work.
func postRetrying(t *testing.T, c *http.Client, u string, form url.Values) (status int, retried bool) {
	t.Helper()
	for {
		if status = postForm(t, c, u, form); status != http.StatusServiceUnavailable {
			return status, retried
		}
		retried = true
		t.Logf("POST %s: 503, trying again", u)
		if dl, ok := t.Deadline(); ok && time.Until(dl) < time.Minute {
			return status, retried
		}
		time.Sleep(time.Second)
	}
}

// signUpAndChangePassword signs email up on in with password "first-pass",
// finishes the sign-up by the link mailed to relay, and changes the
// password to newPassword. Each step is retried while it answers 503, and
// is done when it returns: a 303 was answered, or, after a 503, the answer
// that the step was done already (a used link, a current password that is
// the new one), and a log-in proves it.
func signUpAndChangePassword(t *testing.T, in *instance, relay *smtptest.Server, email, newPassword string) {
	t.Helper()
	c := browserClient(t)
	form := url.Values{"email": {email}, "name": {"Vol"}, "password": {"first-pass"}}
	if status, _ := postRetrying(t, c, in.base+"signup", form); status != http.StatusSeeOther {
		t.Fatalf("sign-up: status %d", status)
	}
	var token string
	waitFor(t, 60*time.Second, "the sign-up link", func() bool {
		for _, m := range relay.Messages() {
			for _, l := range m.Links() {
				if sm := signupLink.FindStringSubmatch(l); sm != nil && strings.Contains(strings.Join(m.To, ","), email) {
					token = sm[1]
				}
			}
		}
		return token != ""
	})
	finish := url.Values{"password": {"first-pass"}}
	switch status, retried := postRetrying(t, c, in.base+"signup/finish/"+token, finish); {
	case status == http.StatusSeeOther:
	case retried && status == http.StatusGone:
		logIn(t, c, in, email, "first-pass")
	default:
		t.Fatalf("finishing the sign-up: status %d", status)
	}
	change := url.Values{"current_password": {"first-pass"}, "password": {newPassword}}
	switch status, retried := postRetrying(t, c, in.base+"settings/password", change); {
	case status == http.StatusSeeOther:
	case retried && status == http.StatusUnprocessableEntity:
		logIn(t, browserClient(t), in, email, newPassword)
	default:
		t.Fatalf("changing the password: status %d", status)
	}
}

// logIn logs c in on in as email with password, retrying while it answers
// 503.
func logIn(t *testing.T, c *http.Client, in *instance, email, password string) {
	t.Helper()
	form := url.Values{"email": {email}, "password": {password}}
	if status, _ := postRetrying(t, c, in.base+"login", form); status != http.StatusSeeOther {
		t.Fatalf("logging in as %s: status %d", email, status)
	}
}

// checkLogin checks that email logs in on in with password, and not with
// wrong.
func checkLogin(t *testing.T, in *instance, email, password, wrong string) {
	t.Helper()
	if status := postForm(t, browserClient(t), in.base+"login",
		url.Values{"email": {email}, "password": {password}}); status != http.StatusSeeOther {
		t.Errorf("%s: logging in as %s with the password changed before the kill: status %d, want 303", in.base, email, status)
	}
	if status := postForm(t, browserClient(t), in.base+"login",
		url.Values{"email": {email}, "password": {wrong}}); status == http.StatusSeeOther {
		t.Errorf("%s: logging in as %s with the password of before the change works", in.base, email)
	}
}

// queueMail queues n messages to q1@example.org … qn@example.org, due in
// due: acknowledged before the kill, and due long after it, so that none
// goes before it however slow the steps between; releaseQueuedMail makes
// them due once the new primary serves.
func queueMail(t *testing.T, dbURL string, n int, due time.Duration) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(t.Context(), `INSERT INTO mail_outbox (kind, recipient, data, next_attempt_at)
		SELECT 'email_changed', 'q' || i || '@example.org', '{"email": "n@example.org", "old_email": "o@example.org"}',
			now() + $2::interval
		FROM generate_series(1, $1::int) i`, n, due)
	if err != nil {
		t.Fatal(err)
	}
	enqueueMail(t, dbURL)
}

// releaseQueuedMail makes the messages of queueMail due now: their
// outbox rows and, with River's own API, their jobs, as if their time had
// come.
func releaseQueuedMail(t *testing.T, dbURL string) {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(t.Context(), `UPDATE mail_outbox SET next_attempt_at = now()
		WHERE recipient LIKE 'q%@example.org' AND status = 'queued'`); err != nil {
		t.Fatal(err)
	}
	rows, _ := pool.Query(t.Context(), `SELECT j.id FROM river_job j JOIN mail_outbox m ON j.args @> jsonb_build_object('id', m.id)
		WHERE j.kind = $1 AND j.finalized_at IS NULL AND m.recipient LIKE 'q%@example.org'`, accounting.MailJob{}.Kind())
	jobs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range jobs {
		if _, err := client.JobRetry(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
}

// checkQueuedMail waits until the n queued messages are sent, and checks
// that each arrived once, sent after killed.
func checkQueuedMail(t *testing.T, dbURL string, relay *smtptest.Server, n int, killed time.Time) {
	t.Helper()
	waitFor(t, 60*time.Second, "the queued mail to be sent", func() bool {
		var queued int
		err := pgxQueryRow(t, dbURL, `SELECT count(*) FROM mail_outbox WHERE recipient LIKE 'q%@example.org'
			AND status <> 'sent'`).Scan(&queued)
		return err == nil && queued == 0
	})
	var early int
	if err := pgxQueryRow(t, dbURL, `SELECT count(*) FROM mail_outbox WHERE recipient LIKE 'q%@example.org'
		AND sent_at < $1`, killed).Scan(&early); err != nil || early != 0 {
		t.Errorf("%d queued messages were sent before the kill (%v), want 0", early, err)
	}
	time.Sleep(2 * time.Second) // a second delivery would come now
	seen := map[string]int{}
	for _, m := range relay.Messages() {
		for _, to := range m.To {
			if strings.HasPrefix(to, "q") {
				seen[to]++
			}
		}
	}
	for i := 1; i <= n; i++ {
		if to := fmt.Sprintf("q%d@example.org", i); seen[to] != 1 {
			t.Errorf("%s received %d messages, want 1", to, seen[to])
		}
	}
}

// reconcileRun is a cobble reconcile process reading its export from a
// named pipe, so that it runs, holding the project's lock, until the test
// writes the export.
type reconcileRun struct {
	cmd  *exec.Cmd
	fifo string
	out  *syncBuffer
	done chan error
}

// startReconcile starts the run and waits until it is recorded as running.
func startReconcile(t *testing.T, env map[string]string, project string) *reconcileRun {
	t.Helper()
	r := &reconcileRun{fifo: filepath.Join(t.TempDir(), "host.gz"), out: &syncBuffer{}, done: make(chan error, 1)}
	if err := syscall.Mkfifo(r.fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r.cmd = cobbleCommand(t, env, "reconcile", "--project", project, "--file", r.fifo)
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() { _ = r.cmd.Process.Kill() })
	waitFor(t, 20*time.Second, "the reconciliation to start", func() bool {
		var n int
		err := pgxQueryRow(t, env["DATABASE_URL"], `SELECT count(*) FROM reconcile_runs WHERE status = 'running'`).Scan(&n)
		return err == nil && n == 1
	})
	waitFor(t, 20*time.Second, "the reconciliation to wait for its export", func() bool { return inFifoOpen(r.cmd.Process.Pid) })
	return r
}

// inFifoOpen says whether a thread of process pid waits to open a named
// pipe (its kernel wait channel is the pipe's wait_for_partner): the run
// has read what it reads from the database before the export.
func inFifoOpen(pid int) bool {
	chans, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
	for _, c := range chans {
		if b, err := os.ReadFile(c); err == nil && strings.Contains(string(b), "wait_for_partner") {
			return true
		}
	}
	return false
}

// finish writes the export and waits for the run to end.
func (r *reconcileRun) finish(t *testing.T) error {
	t.Helper()
	// Opening the pipe waits for its reader: a run that ended already has
	// none.
	opened := make(chan *os.File, 1)
	go func() {
		if w, err := os.OpenFile(r.fifo, os.O_WRONLY, 0); err == nil {
			opened <- w
		}
	}()
	select {
	case w := <-opened:
		writeEmptyExport(t, w)
		w.Close()
	case err := <-r.done:
		os.OpenFile(r.fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0) // lets the goroutine's open end
		t.Logf("the reconciliation ended before its export was written: %v\n%s", err, r.out)
		return err
	case <-time.After(60 * time.Second):
		t.Fatalf("the reconciliation read no export within 60 s:\n%s", r.out)
	}
	select {
	case err := <-r.done:
		return err
	case <-time.After(60 * time.Second):
		t.Fatalf("the reconciliation did not end within 60 s of its export:\n%s", r.out)
	}
	return nil
}

// checkReconciled checks that the run started before the kill either
// finished, or ended abandoned or failed and a new run then succeeds;
// never is one left running or half stored.
func checkReconciled(t *testing.T, env map[string]string, r *reconcileRun, project string) {
	t.Helper()
	err := r.finish(t)
	dbURL := env["DATABASE_URL"]
	var status string
	var files int
	if qerr := pgxQueryRow(t, dbURL, `SELECT status, (SELECT count(*) FROM export_files)
		FROM reconcile_runs WHERE source = $1`, r.fifo).Scan(&status, &files); qerr != nil {
		t.Fatal(qerr)
	}
	var runs string
	if qerr := pgxQueryRow(t, dbURL, `SELECT string_agg(id || ' ' || status || ' ' || source || ' ' || error, '; ' ORDER BY id)
		FROM reconcile_runs`).Scan(&runs); qerr == nil {
		t.Logf("reconciliation runs: %s", runs)
	}
	t.Logf("the reconciliation started before the kill ended %q (%v): %s", status, err, strings.TrimSpace(r.out.String()))
	switch {
	case status == "ok" && err == nil && files > 0:
		return
	case status == "ok":
		t.Errorf("the run is ok, yet the process ended with %v and %d export files are stored", err, files)
		return
	case files > 0:
		t.Errorf("the %s run stored %d export files: half committed", status, files)
	}
	// A run whose process could not record its end is still "running":
	// the next run marks it abandoned.
	status2, out, stderr := runProcess(t, env, "reconcile", "--project", project, "--file", writeExportFile(t))
	if status2 != 0 || !strings.Contains(out, ": ok") {
		t.Errorf("the run after the failed one: status %d\n%s%s", status2, out, stderr)
	}
	if qerr := pgxQueryRow(t, dbURL, `SELECT status FROM reconcile_runs WHERE source = $1`, r.fifo).Scan(&status); qerr != nil ||
		(status != "abandoned" && status != "failed") {
		t.Errorf("after the next run, the run started before the kill is %q (%v), want abandoned or failed", status, qerr)
	}
}

// writeExportFile writes the export of writeEmptyExport to a file.
func writeExportFile(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	writeEmptyExport(t, &b)
	name := filepath.Join(t.TempDir(), "host.gz")
	if err := os.WriteFile(name, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}
