package main

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/smtptest"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/internal/testport"
)

// instance is a cobble serve process.
type instance struct {
	base   string // its base URL
	exited chan error
	log    *syncBuffer
	stop   func() error // sends SIGTERM and waits for the process to end
	kill   func()       // sends SIGKILL and waits for the process to end (serveProcess's)
}

// startInstance starts cobble serve as a process of its own on a free
// port, sending mail from "from"; it is stopped when the test ends.
func startInstance(t *testing.T, dbURL, smtpURL, from string) *instance {
	t.Helper()
	addr := testport.FreeAddr(t)
	return serveProcess(t, dbURL, addr, "--smtp-url", smtpURL, "--mail-from", "Cobble <"+from+">")
}

// serveProcess starts `cobble serve` on dbURL at addr with the further
// flags, killed should the test die; stop (run at cleanup too) ends it
// with SIGTERM, or kills it after 15 s.
func serveProcess(t *testing.T, dbURL, addr string, flags ...string) *instance {
	t.Helper()
	args := append([]string{"serve", "--addr", addr, "--base-url", "http://" + addr + "/"}, flags...)
	cmd := cobbleCommand(t, map[string]string{"DATABASE_URL": dbURL}, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	in := &instance{base: "http://" + addr + "/", exited: make(chan error, 1), log: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = in.log, in.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { in.exited <- cmd.Wait() }()
	in.stop = sync.OnceValue(func() error {
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
	in.kill = func() {
		_ = cmd.Process.Kill()
		err := <-in.exited
		in.exited <- err // for stop, which then finds the process ended
	}
	t.Cleanup(func() { _ = in.stop() })
	return in
}

// Two cobble serve processes on one database share its outbox: every
// message is delivered, each exactly once.
func TestMailInstancesShareTheOutbox(t *testing.T) {
	t.Parallel()
	dbURL := testdb.NewURL(t)
	relay := smtptest.Start(t)
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(t.Context(), `INSERT INTO mail_outbox (kind, recipient, data)
		SELECT 'email_changed', 'v' || i || '@example.org', '{"email": "n@example.org", "old_email": "o@example.org"}'
		FROM generate_series(1, 100) i`)
	if err != nil {
		t.Fatal(err)
	}
	enqueueMail(t, dbURL)
	// Both start at once, so that both take part; each sends from its own
	// address, which tells who delivered what.
	instances := []*instance{startInstance(t, dbURL, relay.URL(), "one@cobble.example"),
		startInstance(t, dbURL, relay.URL(), "two@cobble.example")}
	for _, in := range instances {
		waitHealthy(t, in.base, in.exited, in.log)
	}

	relay.WaitMessages(t, 100, 90*time.Second)
	time.Sleep(time.Second)
	checkEachOnce(t, relay.Messages())
	waitAllSent(t, conn)

	for i, in := range instances {
		if err := in.stop(); err != nil {
			t.Errorf("instance %d ended with %v; its log:\n%s", i+1, err, in.log)
		}
	}
}

// checkEachOnce checks that v1@example.org to v100@example.org received
// one message each, and nobody else any.
func checkEachOnce(t *testing.T, msgs []smtptest.Message) {
	t.Helper()
	seen := map[string]int{}
	bySender := map[string]int{}
	for _, m := range msgs {
		for _, to := range m.To {
			seen[to]++
		}
		bySender[m.From]++
	}
	if len(msgs) != 100 || len(seen) != 100 {
		t.Errorf("%d messages arrived for %d recipients, want 100 for 100", len(msgs), len(seen))
	}
	for i := 1; i <= 100; i++ {
		if to := fmt.Sprintf("v%d@example.org", i); seen[to] != 1 {
			t.Errorf("%s received %d messages, want 1", to, seen[to])
		}
	}
	// Which instance sends how many depends on timing: logged, not checked.
	t.Logf("messages per instance: %v", bySender)
}

// waitAllSent polls the outbox until every message is recorded as sent.
func waitAllSent(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var sent, other int
		err := conn.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE status = 'sent'),
			count(*) FILTER (WHERE status <> 'sent') FROM mail_outbox`).Scan(&sent, &other)
		if err != nil {
			t.Fatal(err)
		}
		if sent == 100 && other == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s, %d messages are sent and %d are not, want 100 and 0", sent, other)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// enqueueMail gives each queued message of the database at dbURL its River
// job, as the stray-mail round does: the tests write their messages
// straight into the outbox, past queueMail, which enqueues the job.
func enqueueMail(t *testing.T, dbURL string) {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := accounting.NewStore(pool, accounting.Options{}).Mail.EnqueueStrayMail(t.Context()); err != nil {
		t.Fatal(err)
	}
}
