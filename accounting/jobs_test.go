package accounting_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting"
)

// mailJobs returns, for each message of the outbox by id, how many River
// jobs of the mail queue wait for it or run it.
func mailJobs(t *testing.T, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) map[int64]int {
	t.Helper()
	rows, _ := q.Query(context.Background(), `SELECT m.id, count(j.id) FROM mail_outbox m
		LEFT JOIN river_job j ON j.kind = $1 AND j.queue = $2 AND j.args @> jsonb_build_object('id', m.id)
			AND j.finalized_at IS NULL
		GROUP BY m.id`, accounting.MailJob{}.Kind(), accounting.MailQueueName)
	jobs := map[int64]int{}
	var id int64
	var n int
	if _, err := pgx.ForEachRow(rows, []any{&id, &n}, func() error { jobs[id] = n; return nil }); err != nil {
		t.Fatal(err)
	}
	return jobs
}

// Every message gets its River job in the transaction that writes it,
// through queueMail and the single-statement sign-up and reset alike; a
// change that rolls back leaves neither. A message without a job (its job
// ended while its outcome could not be recorded) gets one again, once.
func TestEveryMessageHasItsJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := storeAndPool(t)
	u, err := s.Accounts.SignUp(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Accounts.RequestPasswordReset(ctx, "ada@example.org"); err != nil {
		t.Fatal(err)
	}
	if err := s.Accounts.RequestSignUp(ctx, accounting.NewUser{Email: "bob@example.org", Password: "bobs-password"}); err != nil {
		t.Fatal(err)
	}
	// A failed change (a wrong password) queues nothing.
	if err := s.Accounts.RequestEmailChange(ctx, u.ID, "wrong-pass", "ada@new.example.org"); err == nil {
		t.Fatal("an email change with a wrong password was accepted")
	}
	jobs := mailJobs(t, pool)
	if len(jobs) != 3 {
		t.Errorf("%d messages, want 3 (welcome, reset, sign-up link): %v", len(jobs), jobs)
	}
	for id, n := range jobs {
		if n != 1 {
			t.Errorf("message %d has %d jobs, want 1", id, n)
		}
	}
	var jobsTotal int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job`).Scan(&jobsTotal); err != nil || jobsTotal != 3 {
		t.Errorf("%d jobs in all (%v), want 3", jobsTotal, err)
	}
	// The job of one message ends without its outcome recorded.
	if _, err := pool.Exec(ctx, `UPDATE river_job SET state = 'cancelled', finalized_at = now()
		WHERE id = (SELECT min(id) FROM river_job)`); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 0} {
		if n, err := s.Mail.EnqueueStrayMail(ctx); err != nil || n != want {
			t.Errorf("EnqueueStrayMail, time %d: %d %v, want %d", i+1, n, err, want)
		}
	}
	for id, n := range mailJobs(t, pool) {
		if n != 1 {
			t.Errorf("after the stray round, message %d has %d jobs, want 1", id, n)
		}
	}
}

// JobHealth lists the jobs running past their kind's timeout (or
// JobStuckAfter), the jobs nobody took in time, and the jobs that failed
// in the last day, with their last error; not the others.
func TestJobHealth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := storeAndPool(t)
	_, err := pool.Exec(ctx, `INSERT INTO river_job (args, kind, state, attempt, attempted_at, scheduled_at, finalized_at, errors)
		VALUES
		('{}', 'stuck_running', 'running', 1, now() - interval '2 hours', now() - interval '2 hours', NULL, NULL),
		('{}', 'late', 'available', 0, NULL, now() - interval '1 hour', NULL, NULL),
		('{}', 'failed', 'discarded', 1, now() - interval '1 hour', now() - interval '1 hour', now() - interval '1 hour',
			ARRAY['{"at": "2026-01-01T00:00:00Z", "attempt": 1, "error": "the first"}'::jsonb,
			      '{"at": "2026-01-01T00:01:00Z", "attempt": 2, "error": "the last"}'::jsonb]),
		('{}', 'running', 'running', 1, now(), now(), NULL, NULL),
		('{}', 'past_its_timeout', 'running', 1, now() - interval '2 minutes', now(), NULL, NULL),
		('{}', 'within_its_timeout', 'running', 1, now() - interval '2 hours', now(), NULL, NULL),
		('{}', 'due', 'available', 0, NULL, now(), NULL, NULL),
		('{}', 'done', 'completed', 1, now(), now(), now(), NULL),
		('{}', 'failed_long_ago', 'discarded', 1, now() - interval '3 days', now() - interval '3 days', now() - interval '2 days', NULL)`)
	if err != nil {
		t.Fatal(err)
	}
	timeouts := accounting.JobTimeouts{"past_its_timeout": time.Minute, "within_its_timeout": 3 * time.Hour}
	h, err := s.Jobs.JobHealth(ctx, time.Now(), timeouts)
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(js []accounting.JobProblem) []string {
		var k []string
		for _, j := range js {
			k = append(k, j.Kind)
		}
		return k
	}
	if got := kinds(h.Stuck); !slices.Equal(got, []string{"stuck_running", "late", "past_its_timeout"}) {
		t.Errorf("stuck: %v, want stuck_running, late and past_its_timeout", got)
	}
	if len(h.Failed) != 1 || h.Failed[0].Kind != "failed" || h.Failed[0].Error != "the last" || h.OK() {
		t.Errorf("failed: %+v, want the failed job with its last error", h.Failed)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM river_job WHERE kind IN ('stuck_running', 'late', 'failed', 'past_its_timeout')`); err != nil {
		t.Fatal(err)
	}
	if h, err := s.Jobs.JobHealth(ctx, time.Now(), timeouts); err != nil || !h.OK() {
		t.Errorf("after the problems went: %+v %v, want OK", h, err)
	}
}

// A round's lock is held by one round of a kind at a time, cluster-wide,
// and given up by release or by the end of its session (a dead instance's).
func TestHoldRound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := storeAndPool(t)
	release, held, err := s.Jobs.HoldRound(ctx, "rollup_round")
	if err != nil || !held {
		t.Fatalf("the first hold: %v %v", held, err)
	}
	if _, held, err := s.Jobs.HoldRound(ctx, "rollup_round"); err != nil || held {
		t.Errorf("a second hold of the kind: %v %v, want not held", held, err)
	}
	other, held, err := s.Jobs.HoldRound(ctx, "alerts_round")
	if err != nil || !held {
		t.Fatalf("another kind's hold: %v %v", held, err)
	}
	other()
	release()
	again, held, err := s.Jobs.HoldRound(ctx, "rollup_round")
	if err != nil || !held {
		t.Fatalf("the hold after release: %v %v", held, err)
	}
	defer again()
	// A holder whose session ends (its instance died) holds it no longer.
	var pid int
	if err := pool.QueryRow(ctx, `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
		AND objid = hashtext('rollup_round')::oid AND objsubid = 2
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	deadline, ok := t.Deadline()
	for {
		release, held, err := s.Jobs.HoldRound(ctx, "rollup_round")
		if err == nil && held {
			release()
			break
		}
		if ok && time.Now().After(deadline.Add(-5*time.Second)) {
			t.Fatalf("the lock of an ended session is still held (%v)", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
