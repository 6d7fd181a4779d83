package accounting_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// signupRounds is how many addresses TestSignUpLinksFinishedAtOnce races.
const signupRounds = 40

// Two sign-up links of one address followed at the same moment (two
// browsers, or a double click on two mails) make one account: one link
// works, the other is ErrLinkInvalid, and PostgreSQL never has to break a
// deadlock between them.
func TestSignUpLinksFinishedAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := testdb.NewURL(t)
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s := accounting.NewStore(pool, testOptions)
	for round := range signupRounds {
		email := fmt.Sprintf("racer%d@example.org", round)
		var tokens [2]string
		for i := range tokens {
			if err := s.Accounts.RequestSignUp(ctx, accounting.NewUser{Email: email, Password: "same-pass"}); err != nil {
				t.Fatal(err)
			}
			tokens[i] = newestSecret(t, s, accounting.MailSignup)
		}
		var errs [2]error
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, token := range tokens {
			wg.Go(func() {
				<-start
				_, errs[i] = s.Accounts.FinishSignUp(ctx, token, "same-pass")
			})
		}
		close(start)
		wg.Wait()
		won, lost := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case errors.Is(err, accounting.ErrLinkInvalid):
				lost++
			default:
				t.Errorf("round %d: %v, want success or ErrLinkInvalid", round, err)
			}
		}
		if won != 1 || lost != 1 {
			t.Fatalf("round %d: %d links worked and %d did not, want 1 and 1 (%v)", round, won, lost, errs)
		}
	}
	pool.Close() // the backends' statistics reach the server as they end
	if n := deadlocks(t, dbURL); n != 0 {
		t.Errorf("PostgreSQL broke %d deadlocks", n)
	}
}

// deadlocks returns how many deadlocks PostgreSQL broke in the database
// of dbURL, once the statistics of its ended backends are in.
func deadlocks(t *testing.T, dbURL string) int64 {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int64
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var others int
		err := conn.QueryRow(context.Background(), `SELECT pg_stat_clear_snapshot() IS NULL,
			(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()),
			(SELECT deadlocks FROM pg_stat_database WHERE datname = current_database())`).Scan(new(bool), &others, &n)
		if err != nil {
			t.Fatal(err)
		}
		if others == 0 || time.Now().After(deadline) {
			return n
		}
	}
}
