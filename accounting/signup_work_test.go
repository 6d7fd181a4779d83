package accounting

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/internal/testdb"
)

// statementLog records the SQL a pool runs, so that tests can compare the
// work of two calls by counting it.
type statementLog struct {
	mu  sync.Mutex
	sql []string
}

func (l *statementLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	l.mu.Lock()
	l.sql = append(l.sql, strings.Join(strings.Fields(d.SQL), " "))
	l.mu.Unlock()
	return ctx
}

func (l *statementLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (l *statementLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.sql
	l.sql = nil
	return s
}

// A sign-up with a taken address does the work of one with a new address:
// the same bcrypt hashes and comparisons, the same statements, one job
// inserted by River. Only what the statement writes differs: a note to the
// owner instead of a link.
func TestSignUpWorkIsTheSameForTakenAddresses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	log := &statementLog{}
	cfg.ConnConfig.Tracer = log
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := NewStore(pool, Options{PasswordCost: bcrypt.MinCost})
	var hashes, compares int
	s.generatePassword = func(p []byte, cost int) ([]byte, error) { hashes++; return bcrypt.GenerateFromPassword(p, cost) }
	s.comparePassword = func(h, p []byte) error { compares++; return bcrypt.CompareHashAndPassword(h, p) }
	if _, err := s.Accounts.CreateUser(ctx, NewUser{Email: "taken@example.org", Name: "Owner", Password: "owners-pass"}); err != nil {
		t.Fatal(err)
	}
	work := func(email string) (int, int, []string) {
		log.take()
		hashes, compares = 0, 0
		if err := s.Accounts.RequestSignUp(ctx, NewUser{Email: email, Password: "attackers-pass"}); err != nil {
			t.Fatalf("RequestSignUp(%s): %v", email, err)
		}
		return hashes, compares, log.take()
	}
	// An instance's first job insert also asks PostgreSQL's version, and
	// notifies River's workers (newJobInserter): whatever the address, so
	// a request before the two compared takes that turn.
	if err := s.Accounts.RequestPasswordReset(ctx, "nobody@example.org"); err != nil {
		t.Fatal(err)
	}
	h1, c1, sql1 := work("new@example.org")
	h2, c2, sql2 := work("TAKEN@example.org")
	if h1 != 1 || h2 != h1 || c2 != c1 {
		t.Errorf("bcrypt: new address %d hashes %d comparisons, taken %d and %d", h1, c1, h2, c2)
	}
	// One transaction: the statement and the insert of its message's job.
	if len(sql1) != 4 || !strings.Contains(sql1[2], "INSERT INTO river_job") || !slices.Equal(sql1, sql2) {
		t.Errorf("statements differ:\nnew: %q\ntaken: %q", sql1, sql2)
	}
	var kinds []string
	rows, _ := pool.Query(ctx, `SELECT kind || ' to ' || recipient || ' secret ' || (secret IS NOT NULL)::text FROM mail_outbox ORDER BY id`)
	kinds, err = pgx.CollectRows(rows, pgx.RowTo[string])
	want := []string{"signup to new@example.org secret true", "signup_taken to taken@example.org secret false"}
	if err != nil || !slices.Equal(kinds, want) {
		t.Errorf("outbox %q (%v), want %q", kinds, err, want)
	}
	var users, signups int
	pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM signups)`).Scan(&users, &signups)
	if users != 1 || signups != 1 {
		t.Errorf("%d users and %d sign-ups, want the owner and the new address's sign-up", users, signups)
	}
	// Invalid fields are refused before any work, alike.
	var invalid *ValidationError
	if err := s.Accounts.RequestSignUp(ctx, NewUser{Email: "taken@example.org", Password: "short"}); !errors.As(err, &invalid) {
		t.Errorf("a short password for a taken address: %v", err)
	}
}

// A password reset for an address without an account runs the statements
// of one for an account, its job's insert by River included: the request
// that queued no message inserts a job all the same, which delivers
// nothing.
func TestPasswordResetWorkIsTheSameForUnknownAddresses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	log := &statementLog{}
	cfg.ConnConfig.Tracer = log
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := NewStore(pool, Options{PasswordCost: bcrypt.MinCost})
	if _, err := s.Accounts.CreateUser(ctx, NewUser{Email: "known@example.org", Password: "owners-pass"}); err != nil {
		t.Fatal(err)
	}
	reset := func(email string) []string {
		log.take()
		if err := s.Accounts.RequestPasswordReset(ctx, email); err != nil {
			t.Fatalf("RequestPasswordReset(%s): %v", email, err)
		}
		return log.take()
	}
	reset("first@example.org") // the instance's first job insert (see above)
	unknown, known := reset("nobody@example.org"), reset("KNOWN@example.org")
	if len(known) != 4 || !strings.Contains(known[2], "INSERT INTO river_job") || !slices.Equal(known, unknown) {
		t.Errorf("statements differ:\nunknown: %q\nknown:   %q", unknown, known)
	}
	var jobs, empty, messages int
	err = pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE args->>'id' = '0'),
		(SELECT count(*) FROM mail_outbox) FROM river_job WHERE kind = $1 AND queue = $2`,
		MailJob{}.Kind(), MailQueueName).Scan(&jobs, &empty, &messages)
	if err != nil || jobs != 3 || empty != 2 || messages != 1 {
		t.Errorf("%d jobs, %d for no message, %d messages (%v); want 3, 2 and the known address's reset", jobs, empty, messages, err)
	}
}
