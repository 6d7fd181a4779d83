package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/smtptest"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/internal/testport"
)

// rescueWithin is how soon after an instance is killed its jobs must have
// been taken over: a message it held delivered, the next reconciliation
// round run (issue 46; docs/OPERATIONS.md, "Background jobs").
const rescueWithin = 5 * time.Minute

// An instance killed with SIGKILL while it holds a message's delivery and
// a reconciliation round does not keep them for ever: another instance,
// started with the same flags, delivers the message, once, and runs the
// next reconciliation round within rescueWithin of the kill.
func TestKilledInstancesJobsRunAgain(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills a cobble serve process and waits for River's rescuer")
	}
	dbURL := testdb.NewURL(t)
	relay := smtptest.Start(t)
	relay.SetMode(smtptest.Hang) // the first instance's delivery waits for its greeting
	exports := hangingServer(t)  // and its reconciliation for the export
	env := map[string]string{"DATABASE_URL": dbURL}
	if _, stderr, err := runCobble(t.Context(), env, "project", "add", "--url", "https://proj.example.org/",
		"--name", "Proj", "--authenticator", "k", "--stats-url", exports.URL+"/stats/"); err != nil {
		t.Fatalf("project add: %v\n%s", err, stderr)
	}
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var msgID int64
	if err := conn.QueryRow(t.Context(), `INSERT INTO mail_outbox (kind, recipient, data)
		VALUES ('email_changed', 'v1@example.org', '{"email": "n@example.org", "old_email": "o@example.org"}')
		RETURNING id`).Scan(&msgID); err != nil {
		t.Fatal(err)
	}
	enqueueMail(t, dbURL)
	flags := []string{"--smtp-url", relay.URL(), "--mail-from", "Cobble <am@cobble.example>", "--allow-private-exports"}
	first := serveProcess(t, dbURL, testport.FreeAddr(t), flags...)
	waitHealthy(t, first.base, first.exited, first.log)
	var roundID int64
	waitUntil(t, deadlineWithin(t, rescueWithin), "the first instance to hold the message and a reconciliation round",
		func(ctx context.Context) (bool, error) {
			err := conn.QueryRow(ctx, `SELECT
				(SELECT id FROM river_job WHERE kind = 'reconcile_round' AND state = 'running')
				FROM mail_outbox m
				WHERE m.id = $1 AND m.claimed_until > now()
				  AND EXISTS (SELECT 1 FROM reconcile_runs WHERE status = 'running')
				  AND EXISTS (SELECT 1 FROM river_job WHERE kind = 'mail' AND state = 'running')`,
				msgID).Scan(&roundID)
			return err == nil && roundID != 0, ignoreNoRows(err)
		})

	first.kill()
	killed := time.Now()
	relay.SetMode(smtptest.Accept)
	second := serveProcess(t, dbURL, testport.FreeAddr(t), flags...)
	waitHealthy(t, second.base, second.exited, second.log)

	deadline := killed.Add(rescueWithin)
	waitUntil(t, deadline, "the killed instance's message to be sent", func(ctx context.Context) (bool, error) {
		var status string
		err := conn.QueryRow(ctx, `SELECT status FROM mail_outbox WHERE id = $1`, msgID).Scan(&status)
		return status == "sent", err
	})
	var sent time.Time
	var roundDone *time.Time // NULL until a later round has completed
	if err := conn.QueryRow(t.Context(), `SELECT sent_at FROM mail_outbox WHERE id = $1`, msgID).Scan(&sent); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, deadline, "a reconciliation round after the killed instance's", func(ctx context.Context) (bool, error) {
		err := conn.QueryRow(ctx, `SELECT min(finalized_at) FROM river_job
			WHERE kind = 'reconcile_round' AND id > $1 AND state = 'completed'`, roundID).Scan(&roundDone)
		return roundDone != nil, err
	})
	// Measured, not checked: the database's clock is this machine's.
	t.Logf("after the kill: the message was sent in %v, the next reconciliation round had run in %v",
		sent.Sub(killed).Round(time.Second), roundDone.Sub(killed).Round(time.Second))

	// Once: no job of the message is left to run, and one copy arrived.
	waitUntil(t, deadline, "the message's jobs to end", func(ctx context.Context) (bool, error) {
		var open int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM river_job
			WHERE kind = 'mail' AND args @> jsonb_build_object('id', $1::bigint) AND finalized_at IS NULL`,
			msgID).Scan(&open)
		return open == 0, err
	})
	if msgs := relay.Messages(); len(msgs) != 1 {
		t.Errorf("%d messages arrived, want 1", len(msgs))
	}
	// The killed run was never finished, and no other run was made: the
	// project is not due again before --reconcile-every.
	var runs, ok int
	if err := conn.QueryRow(t.Context(), `SELECT count(*), count(*) FILTER (WHERE status = 'ok')
		FROM reconcile_runs`).Scan(&runs, &ok); err != nil || runs != 1 || ok != 0 {
		t.Errorf("%d reconciliation runs, %d of them ok (%v); want the killed one alone, not ok", runs, ok, err)
	}
	if err := second.stop(); err != nil {
		t.Errorf("the second instance ended with %v; its log:\n%s", err, second.log)
	}
}

// hangingServer is an HTTP server on loopback whose every request waits
// until its client goes away or the test ends.
func hangingServer(t *testing.T) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(func() {
		close(done)
		srv.Close()
	})
	return srv
}

// deadlineWithin is d from now, or, if sooner, shortly before the test's
// own deadline, so that a wait that fails leaves the test time to report
// and clean up.
func deadlineWithin(t *testing.T, d time.Duration) time.Time {
	deadline := time.Now().Add(d)
	if td, ok := t.Deadline(); ok && td.Add(-30*time.Second).Before(deadline) {
		deadline = td.Add(-30 * time.Second)
	}
	return deadline
}

// waitUntil polls cond until it holds, and fails t if it has not by
// deadline or if it fails. Each poll is bounded by the deadline.
func waitUntil(t *testing.T, deadline time.Time, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	if td, ok := t.Deadline(); ok && td.Add(-30*time.Second).Before(deadline) {
		deadline = td.Add(-30 * time.Second)
	}
	ctx, cancel := context.WithDeadline(t.Context(), deadline)
	defer cancel()
	for {
		done, err := cond(ctx)
		switch {
		case done:
			return
		case ctx.Err() != nil:
			t.Fatalf("gave up waiting for %s at %s", what, deadline.Format(time.TimeOnly))
		case err != nil:
			t.Fatalf("waiting for %s: %v", what, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ignoreNoRows is err, but nil for no rows.
func ignoreNoRows(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	return err
}
