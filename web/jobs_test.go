package web_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/web"
)

// Two instances on one database run each cluster-wide round once: the
// elected leader inserts it, one of them works it. Without the election
// each instance would run its own.
func TestRoundsRunOnceAcrossInstances(t *testing.T) {
	t.Parallel()
	dbURL := testdb.NewURL(t)
	for range 2 {
		pool, err := pgxpool.New(context.Background(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		cfg := web.Config{Site: web.Site{Name: "Cobble Test", BaseURL: "http://" + l.Addr().String() + "/", RepeatSec: 3600},
			MaxProjects: 4, PasswordCost: bcrypt.MinCost}
		srv, err := web.New(context.Background(), cfg, pool, quietLog())
		if err != nil {
			l.Close()
			t.Fatal(err)
		}
		serve(t, srv, l)
	}
	rounds := []string{"rollup_round", "alerts_round", "cleanup_round", "stray_mail_round", "stats_round"}
	check, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		done := map[string]int{}
		var all int
		rows, _ := check.Query(t.Context(), `SELECT kind, count(*) FILTER (WHERE state = 'completed'), count(*)
			FROM river_job WHERE kind = ANY($1) GROUP BY kind`, rounds)
		var kind string
		var completed, n int
		for rows.Next() {
			if err := rows.Scan(&kind, &completed, &n); err != nil {
				t.Fatal(err)
			}
			done[kind], all = completed, all+n
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(done) == len(rounds) && all == len(rounds) && done["rollup_round"]+done["alerts_round"]+
			done["cleanup_round"]+done["stray_mail_round"]+done["stats_round"] == len(rounds) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the rounds' jobs are %v completed of %d in all, want each once", done, all)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second) // a second leader's rounds would come now
	var n int
	if err := check.QueryRow(t.Context(), `SELECT count(*) FROM river_job WHERE kind = ANY($1)`, rounds).Scan(&n); err != nil || n != len(rounds) {
		t.Errorf("%d round jobs in all (%v), want one of each of %d", n, err, len(rounds))
	}
}

// A message whose job is repeated (a job rescued from a dead instance, a
// stray round racing its own job) still goes out once: the message's claim
// and its status stop every job but the first.
func TestRepeatedMailJobsSendOnce(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, nil)
	var id int64
	err := e.pool.QueryRow(context.Background(), `INSERT INTO mail_outbox (kind, recipient, data)
		VALUES ('email_changed', 'once@example.org', '{"email": "n@example.org", "old_email": "o@example.org"}')
		RETURNING id`).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	inserter, err := river.NewClient(riverpgxv5.New(e.pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	repeats := make([]river.InsertManyParams, 6) // the message's own job and five repeats
	for i := range repeats {
		repeats[i] = river.InsertManyParams{Args: accounting.MailJob{ID: id},
			InsertOpts: &river.InsertOpts{Queue: accounting.MailQueueName, MaxAttempts: accounting.MailJobAttempts}}
	}
	if _, err := inserter.InsertMany(context.Background(), repeats); err != nil {
		t.Fatal(err)
	}
	msgs := e.exactly(1, 2*time.Second)
	if len(msgs[0].To) != 1 || msgs[0].To[0] != "once@example.org" {
		t.Errorf("delivered to %q", msgs[0].To)
	}
	// A job that found the message claimed waits for the claim to run
	// out (snoozed: scheduled), as the job River's rescuer takes over from
	// a dead sender must; then it finds the message sent.
	var done, waiting, jobs int
	err = e.pool.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE state = 'completed'),
		count(*) FILTER (WHERE state = 'scheduled'), count(*)
		FROM river_job WHERE kind = 'mail'`).Scan(&done, &waiting, &jobs)
	if err != nil || jobs != 6 || done+waiting != 6 || done == 0 {
		t.Errorf("of %d mail jobs, %d completed and %d wait for the claim (%v), want 6, and all but the waiting ones",
			jobs, done, waiting, err)
	}
}

// A round whose work fails fails its job: River keeps it discarded (a
// round is tried once), with the error, rather than completed. Here the
// rollup round cannot create the ledger's partitions, while its rollups
// work.
func TestFailedRoundFailsItsJob(t *testing.T) {
	t.Parallel()
	pool := testdb.New(t)
	if _, err := pool.Exec(t.Context(), `ALTER FUNCTION ledger_partitions_ensure(date, integer) RENAME TO ledger_partitions_gone`); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := web.Config{Site: web.Site{Name: "Cobble Test", BaseURL: "http://" + l.Addr().String() + "/", RepeatSec: 3600},
		MaxProjects: 4, PasswordCost: bcrypt.MinCost}
	srv, err := web.New(context.Background(), cfg, pool, quietLog())
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	serve(t, srv, l)
	var state, errs string
	for {
		err := pool.QueryRow(t.Context(), `SELECT state, coalesce(errors::text, '') FROM river_job
			WHERE kind = 'rollup_round' AND finalized_at IS NOT NULL ORDER BY id LIMIT 1`).Scan(&state, &errs)
		if err == nil {
			break
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // polling until the test's deadline
	}
	if state != "discarded" || !strings.Contains(errs, "ensure partitions") {
		t.Errorf("the round's job ended %s with errors %s; want discarded, with the partitions' error", state, errs)
	}
}
