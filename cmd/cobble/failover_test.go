package main

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cobble-am/cobble/internal/pgformation"
	"github.com/cobble-am/cobble/internal/smtptest"
	"github.com/cobble-am/cobble/internal/testport"
)

// failoverInstance is a cobble serve process with its metrics address.
type failoverInstance struct {
	*instance
	metrics string // base URL of its metrics
}

// startFailoverInstance starts cobble serve on dbURL, sending mail to
// smtpURL, with its metrics served; it is stopped when the test ends.
func startFailoverInstance(t *testing.T, dbURL, smtpURL string) *failoverInstance {
	t.Helper()
	addr, maddr := testport.FreeAddr(t), testport.FreeAddr(t)
	in := serveProcess(t, dbURL, addr, "--smtp-url", smtpURL, "--mail-from", "Cobble <am@cobble.example>",
		"--metrics-addr", maddr)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the log of %s, warnings and errors:\n%s", in.base, warnings(in.log.String()))
		}
	})
	waitHealthy(t, in.base, in.exited, in.log)
	return &failoverInstance{instance: in, metrics: "http://" + maddr + "/"}
}

// warnings keeps the lines of a log at level WARN or ERROR.
func warnings(log string) string {
	var b strings.Builder
	for line := range strings.Lines(log) {
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// buildLoad builds cobble-load.
func buildLoad(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cobble-load")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "github.com/cobble-am/cobble/cmd/cobble-load")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building cobble-load: %v\n%s", err, out)
	}
	return bin
}

// loadRun is a cobble-load process.
type loadRun struct {
	cmd    *exec.Cmd
	out    *syncBuffer
	stderr *watchedBuffer
	done   chan error
}

// startLoad runs cobble-load against the instances for duration, and
// waits until its baseline is done and the load is under way.
func startLoad(t *testing.T, bin, dbURL string, ins []*failoverInstance, duration time.Duration) *loadRun {
	t.Helper()
	var bases []string
	for _, in := range ins {
		bases = append(bases, in.base)
	}
	l := &loadRun{out: &syncBuffer{}, stderr: &watchedBuffer{want: "baseline:", seen: make(chan struct{})},
		done: make(chan error, 1)}
	l.cmd = exec.Command(bin, "--db", dbURL, "--url", strings.Join(bases, ","), "--users", "8", "--hosts", "2",
		"--concurrency", "4", "--warmup", "0s", "--duration", duration.String(), "--pg-ceiling=false")
	l.cmd.Stdout, l.cmd.Stderr = io.MultiWriter(l.out, l.stderr), l.stderr
	l.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := l.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { l.done <- l.cmd.Wait() }()
	t.Cleanup(func() { _ = l.cmd.Process.Kill() })
	select {
	case <-l.stderr.seen:
	case err := <-l.done:
		t.Fatalf("cobble-load ended before its load: %v\n%s", err, l.stderr)
	case <-time.After(90 * time.Second):
		t.Fatalf("cobble-load did not reach its load in 90 s:\n%s", l.stderr)
	}
	time.Sleep(time.Second) // into the load
	return l
}

// check waits for cobble-load's end and checks its report: the ledger is
// exact after a final RPC per host, and every failed RPC failed with 503.
func (l *loadRun) check(t *testing.T) {
	t.Helper()
	select {
	case err := <-l.done:
		if err != nil {
			t.Fatalf("cobble-load: %v\n%s\n%s", err, l.out, l.stderr)
		}
	case <-time.After(120 * time.Second):
		t.Fatalf("cobble-load did not end:\n%s", l.stderr)
	}
	report := l.out.String()
	t.Logf("cobble-load's report:\n%s", report)
	if !strings.Contains(report, "ledger check: OK") {
		t.Errorf("the ledger check did not pass")
	}
	m := regexp.MustCompile(`RPCs: (\d+) sent, (\d+) OK, (\d+) failed`).FindStringSubmatch(report)
	if m == nil {
		t.Fatal("no RPC line in the report")
	}
	for line := range strings.Lines(report) {
		if kind, ok := strings.CutPrefix(strings.TrimSpace(line), "failed: "); ok && !strings.HasPrefix(kind, "HTTP 503") {
			t.Errorf("RPCs failed otherwise than with 503 (retry later): %s", kind)
		}
	}
}

// failover crashes the primary's machine (its postmaster and keeper are
// killed) under probes, waits for the other node to be promoted, then
// brings the old primary back, which rejoins as secondary. It returns when
// the crash was and how long until every instance answered RPCs again for
// good. Before the old primary is back, every instance (listeners of them)
// must listen for changes on the new one.
func failover(t *testing.T, f *pgformation.Formation, p *prober, listeners int) (killed time.Time, took time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	old, next, err := f.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	killed = time.Now()
	if err := old.Crash(); err != nil {
		t.Fatal(err)
	}
	if err := f.WaitStates(ctx, map[string]string{next.Name: "wait_primary"}); err != nil {
		t.Fatalf("after %s crashed: %v\n%s", old.Name, err, f.Logs())
	}
	promoted := time.Since(killed)
	waitFor(t, 60*time.Second, "every instance to answer RPCs on the new primary", func() bool { return p.answering(killed) })
	time.Sleep(2 * time.Second) // probes of the settled formation
	back, failed, flaps := p.recovery(t, killed)
	took = back.Sub(killed)
	checkListening(t, f.URL(), listeners, killed)
	if err := f.Rejoin(old); err != nil {
		t.Fatal(err)
	}
	if err := f.WaitStates(ctx, map[string]string{next.Name: "primary", old.Name: "secondary"}); err != nil {
		t.Fatalf("%s rejoining: %v\n%s", old.Name, err, f.Logs())
	}
	t.Logf("%s crashed: %s promoted after %v; RPCs answered again for good after %v (%d probes failed, all 503 "+
		"unless reported; %d failures came after an accepted RPC); %s back as secondary %v after the crash",
		old.Name, next.Name, promoted.Round(time.Millisecond), took.Round(time.Millisecond), failed, flaps,
		old.Name, time.Since(killed).Round(time.Millisecond))
	return killed, took
}

// checkFollows checks that every instance's /readyz names node as the
// primary and its metrics count failovers failovers.
func checkFollows(t *testing.T, ins []*failoverInstance, node *pgformation.Node, failovers int) {
	t.Helper()
	for _, in := range ins {
		want := "primary database " + node.Addr() + " "
		waitFor(t, 20*time.Second, in.base+"readyz to name "+node.Addr(), func() bool {
			status, body := get(t.Context(), in.base+"readyz")
			return status == 200 && strings.Contains(body, want)
		})
		metric := "cobble_database_failovers_total " + strconv.Itoa(failovers)
		waitFor(t, 20*time.Second, in.metrics+"metrics to say "+metric, func() bool {
			_, body := get(t.Context(), in.metrics+"metrics")
			return slices.Contains(strings.Split(body, "\n"), metric)
		})
	}
}

// checkListening waits until n sessions listen for changes on the primary.
func checkListening(t *testing.T, dbURL string, n int, since time.Time) {
	t.Helper()
	waitFor(t, 60*time.Second, strconv.Itoa(n)+" instances to LISTEN again", func() bool {
		var got int
		err := pgxQueryRow(t, dbURL, `SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN cobble_changes'`).Scan(&got)
		return err == nil && got == n
	})
	t.Logf("every instance listens for changes again %v after the kill", time.Since(since).Round(time.Millisecond))
}

// Cobble on a pg_auto_failover formation (a monitor, a primary and its
// synchronous secondary) survives the loss of its primary: under RPC load,
// with a sign-up finished, a password changed, mail queued and a
// reconciliation running, the primary's postmaster is killed. RPCs fail
// only with 503 until the secondary is promoted, nothing acknowledged is
// lost, the queued mail is sent once, the reconciliation finishes or runs
// again, and the instances follow the new primary. Then the old primary,
// back as secondary, takes over again the same way.
func TestFailoverUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a pg_auto_failover formation and kills its primary twice")
	}
	pgformation.Available(t)
	t.Parallel()
	f := pgformation.Start(t, 3*time.Minute)
	dbURL := f.URL()
	env := map[string]string{"DATABASE_URL": dbURL}
	if status, out, stderr := runProcess(t, env, "migrate"); status != 0 {
		t.Fatalf("cobble migrate: %d\n%s%s", status, out, stderr)
	}
	for _, args := range [][]string{{"project", "add", "--url", "https://proj.invalid/", "--name", "Proj", "--authenticator", "k"},
		{"user", "create", "--email", "probe@example.org", "--password", "probe-password"}} {
		if status, out, stderr := runProcess(t, env, args...); status != 0 {
			t.Fatalf("cobble %s: %d\n%s%s", args[0], status, out, stderr)
		}
	}
	relay := smtptest.Start(t)
	ins := []*failoverInstance{startFailoverInstance(t, dbURL, relay.URL()), startFailoverInstance(t, dbURL, relay.URL())}
	loadBin := buildLoad(t)

	// Round one: node_1 dies.
	// Long enough that the kill comes while it runs: the set-up before it
	// waits for mail, which River delivers within its poll interval.
	load := startLoad(t, loadBin, dbURL, ins, 50*time.Second)
	signUpAndChangePassword(t, ins[0].instance, relay, "vol@example.org", "second-pass")
	waitFor(t, 30*time.Second, "the outbox to be empty", func() bool {
		var queued int
		err := pgxQueryRow(t, dbURL, `SELECT count(*) FROM mail_outbox WHERE status = 'queued'`).Scan(&queued)
		return err == nil && queued == 0
	})
	queueMail(t, dbURL, 20, time.Hour)
	recon := startReconcile(t, env, "https://proj.invalid/")
	probes := startProber(t, []string{ins[0].base, ins[1].base}, "probe@example.org", "probe-password")
	killed, first := failover(t, f, probes, len(ins))
	checkFollows(t, ins, f.Nodes[1], 1)
	load.check(t)
	for _, in := range ins {
		checkLogin(t, in.instance, "vol@example.org", "second-pass", "first-pass")
	}
	releaseQueuedMail(t, dbURL)
	checkQueuedMail(t, dbURL, relay, 20, killed)
	checkReconciled(t, env, recon, "https://proj.invalid/")
	probes.finish()

	// Round two: node_2, now the primary, dies; node_1 takes over again.
	load = startLoad(t, loadBin, dbURL, ins, 15*time.Second)
	probes = startProber(t, []string{ins[0].base, ins[1].base}, "probe@example.org", "probe-password")
	_, second := failover(t, f, probes, len(ins))
	checkFollows(t, ins, f.Nodes[0], 2)
	load.check(t)
	probes.finish()
	t.Logf("recovery times: %v, then %v", first.Round(time.Millisecond), second.Round(time.Millisecond))
	for i, in := range ins {
		if err := in.stop(); err != nil {
			t.Errorf("instance %d ended with %v; its log:\n%s", i+1, err, in.log)
		}
	}
}
