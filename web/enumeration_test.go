package web_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/testdb"
)

// statements records the SQL a pool runs, batched statements included, so
// that a test can compare the work of two requests by counting it.
type statements struct {
	mu  sync.Mutex
	sql []string
}

func (s *statements) add(sql string) {
	s.mu.Lock()
	s.sql = append(s.sql, strings.Join(strings.Fields(sql), " "))
	s.mu.Unlock()
}

func (s *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.add(d.SQL)
	return ctx
}
func (s *statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (s *statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}
func (s *statements) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	s.add(d.SQL)
}
func (s *statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// during returns the statements run while f runs.
func (s *statements) during(f func()) []string {
	s.mu.Lock()
	n := len(s.sql)
	s.mu.Unlock()
	f()
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sql[n:])
}

// newCountedEnv is newEnv on a pool whose statements are recorded.
func newCountedEnv(t *testing.T) (*env, *statements) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	st := &statements{}
	cfg.ConnConfig.Tracer = st
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return newEnvOn(t, pool), st
}

// An RPC with an unknown email gets the very reply of a wrong password
// (-206, one message that says what to do), and costs the same
// statements: counted, not timed.
func TestRPCDoesNotTellWhichEmailsHaveAccounts(t *testing.T) {
	t.Parallel()
	e, st := newCountedEnv(t)
	e.user("vol@example.org", "secret-pass")
	// The first RPC reads the catalog into the instance's cache.
	e.post("/rpc.php", "application/x-www-form-urlencoded", fixture(t, "1-join.request.xml", "warm@example.org", "x"))
	var wrong, unknown string
	wrongSQL := st.during(func() {
		_, wrong = e.post("/rpc.php", "application/x-www-form-urlencoded",
			fixture(t, "1-join.request.xml", "vol@example.org", "wrong-pass"))
	})
	unknownSQL := st.during(func() {
		_, unknown = e.post("/rpc.php", "application/x-www-form-urlencoded",
			fixture(t, "1-join.request.xml", "nobody@example.org", "wrong-pass"))
	})
	r := parseReply(t, unknown)
	if r.ErrorNum != boinc.CodeBadPassword || !strings.Contains(r.ErrorMsg, "Check the email and password, or sign up at "+
		"http://127.0.0.1:1/") {
		t.Errorf("unknown email: error %d %q, want -206 and a message that helps", r.ErrorNum, r.ErrorMsg)
	}
	if unknown != wrong {
		t.Errorf("the replies differ:\nunknown email:\n%s\nwrong password:\n%s", unknown, wrong)
	}
	if len(wrongSQL) == 0 || !slices.Equal(wrongSQL, unknownSQL) {
		t.Errorf("statements differ:\nwrong password: %q\nunknown email: %q", wrongSQL, unknownSQL)
	}
	t.Logf("each ran %d statements", len(wrongSQL))
}

// A web log-in answers an unknown email as a wrong password, with the same
// statements.
func TestLoginDoesNotTellWhichEmailsHaveAccounts(t *testing.T) {
	t.Parallel()
	e, st := newCountedEnv(t)
	e.user("vol@example.org", "secret-pass")
	var wrongStatus, unknownStatus int
	var wrong, unknown string
	wrongSQL := st.during(func() {
		wrongStatus, wrong, _ = do(t, e.browser(), "POST", e.http.URL+"/login",
			url.Values{"email": {"vol@example.org"}, "password": {"wrong-pass"}}, nil)
	})
	unknownSQL := st.during(func() {
		unknownStatus, unknown, _ = do(t, e.browser(), "POST", e.http.URL+"/login",
			url.Values{"email": {"nobody@example.org"}, "password": {"wrong-pass"}}, nil)
	})
	unknown = strings.Replace(unknown, "nobody@example.org", "vol@example.org", 1)
	if wrongStatus != http.StatusUnprocessableEntity || unknownStatus != wrongStatus || unknown != wrong {
		t.Errorf("log-in: status %d and %d, pages equal %v", wrongStatus, unknownStatus, unknown == wrong)
	}
	if len(wrongSQL) == 0 || !slices.Equal(wrongSQL, unknownSQL) {
		t.Errorf("statements differ:\nwrong password: %q\nunknown email: %q", wrongSQL, unknownSQL)
	}
	t.Logf("each ran %d statements", len(wrongSQL))
}

// A sign-up with a taken address answers exactly as one with a new
// address (status, redirect, cookies, the page it leads to) and runs the
// same statements; nobody is logged in, and the owner gets a note.
func TestSignupDoesNotTellWhichEmailsHaveAccounts(t *testing.T) {
	t.Parallel()
	e, st := newCountedEnv(t)
	e.user("taken@example.org", "owners-pass")
	type answer struct {
		status         int
		location, body string
		cookies        []string
	}
	signUp := func(email string) (answer, []string) {
		c := e.browser()
		var a answer
		sql := st.during(func() {
			var h http.Header
			a.status, _, h = do(t, c, "POST", e.http.URL+"/signup",
				url.Values{"email": {email}, "name": {"Eve"}, "password": {"attackers-pass"}}, nil)
			a.location = h.Get("Location")
			for _, ck := range (&http.Response{Header: h}).Cookies() {
				a.cookies = append(a.cookies, ck.Name)
			}
		})
		_, a.body, _ = do(t, c, "GET", e.http.URL+a.location, nil, nil)
		return a, sql
	}
	// An instance's first job insert also asks PostgreSQL's version and
	// notifies River's workers, whatever the address: a request before the
	// ones compared takes that turn.
	do(t, e.browser(), "POST", e.http.URL+"/password/forgot", url.Values{"email": {"first@example.org"}}, nil)
	fresh, freshSQL := signUp("new@example.org")
	taken, takenSQL := signUp("Taken@Example.org")
	if fresh.status != http.StatusSeeOther || fresh.location != "/signup/sent" || len(fresh.cookies) != 0 {
		t.Errorf("new address: status %d to %q, cookies %q; want 303 to /signup/sent and none", fresh.status,
			fresh.location, fresh.cookies)
	}
	if !reflect.DeepEqual(fresh, taken) {
		t.Errorf("the answers differ:\nnew:   %+v\ntaken: %+v", fresh, taken)
	}
	if len(freshSQL) == 0 || !slices.Equal(freshSQL, takenSQL) {
		t.Errorf("statements differ:\nnew:   %q\ntaken: %q", freshSQL, takenSQL)
	}
	t.Logf("each ran %d statements", len(freshSQL))
	var note, owner string
	err := e.pool.QueryRow(context.Background(), `SELECT kind, recipient FROM mail_outbox WHERE user_id IS NOT NULL`).Scan(&note, &owner)
	if err != nil || note != "signup_taken" || owner != "taken@example.org" {
		t.Errorf("the owner's note: %q to %q (%v)", note, owner, err)
	}
	if status := e.webLogin("", "taken@example.org", "attackers-pass"); status != http.StatusUnprocessableEntity {
		t.Errorf("the sign-up's password opens the taken account: status %d", status)
	}
	// The new address's account does not exist until its link is followed,
	// so logging in with the password just chosen tells nothing either.
	if status := e.webLogin("", "new@example.org", "attackers-pass"); status != http.StatusUnprocessableEntity {
		t.Errorf("log-in to a sign-up whose link was not followed: status %d, want 422 like any unknown email", status)
	}
}
