package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/web"
)

// env is one Cobble server on a fresh database, served by httptest.
type env struct {
	t     testing.TB
	pool  *pgxpool.Pool
	store *accounting.Store
	srv   *web.Server
	http  *httptest.Server
}

func newEnv(t testing.TB) *env {
	t.Helper()
	pool := testdb.New(t)
	return newEnvOn(t, pool)
}

func newEnvOn(t testing.TB, pool *pgxpool.Pool) *env {
	t.Helper()
	return newEnvOnWith(t, pool, nil)
}

// newEnvWith is newEnv with the configuration changed by set.
func newEnvWith(t testing.TB, set func(*web.Config)) *env {
	t.Helper()
	return newEnvOnWith(t, testdb.New(t), set)
}

func newEnvOnWith(t testing.TB, pool *pgxpool.Pool, set func(*web.Config)) *env {
	t.Helper()
	return newEnvLogged(t, pool, set, quietLog())
}

// newEnvLogged is newEnvOnWith with the server logging to log.
func newEnvLogged(t testing.TB, pool *pgxpool.Pool, set func(*web.Config), log *slog.Logger) *env {
	t.Helper()
	ctx := context.Background()
	cfg := web.Config{Site: web.Site{Name: "Cobble Test", BaseURL: "http://127.0.0.1:1/", RepeatSec: 3600},
		MaxProjects: 4, PasswordCost: bcrypt.MinCost, Reconcile: reconcile.Options{AllowPrivate: true}} // the test's export servers are on loopback
	if set != nil {
		set(&cfg)
	}
	srv, err := web.New(ctx, cfg, pool, log)
	if err != nil {
		t.Fatalf("web.New: %v", err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &env{t: t, pool: pool, store: srv.Store(), srv: srv, http: hs}
}

// user creates a volunteer and returns its email.
func (e *env) user(email, password string) accounting.User {
	e.t.Helper()
	u, err := e.store.Accounts.CreateUser(context.Background(), accounting.NewUser{Email: email, Password: password})
	if err != nil {
		e.t.Fatalf("CreateUser: %v", err)
	}
	return u
}

func (e *env) project(p accounting.Project) accounting.Project {
	e.t.Helper()
	if p.Authenticator == "" {
		p.Authenticator = "shared-account-key"
	}
	p, err := e.store.Catalog.AddProject(context.Background(), p)
	if err != nil {
		e.t.Fatalf("AddProject: %v", err)
	}
	return p
}

// post sends body to path and returns the status and body.
func (e *env) post(path, contentType string, body []byte) (int, string) {
	e.t.Helper()
	resp, err := http.Post(e.http.URL+path, contentType, strings.NewReader(string(body)))
	if err != nil {
		e.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// rpc posts an AM request the way the BOINC client does (labelled as a
// form, though the body is XML) and parses the reply.
func (e *env) rpc(body []byte) (int, *reply) {
	e.t.Helper()
	status, text := e.post("/rpc.php", "application/x-www-form-urlencoded", body)
	return status, parseReply(e.t, text)
}

// fixture reads a captured real-client request, with its credentials
// replaced by email and password.
func fixture(t testing.TB, name, email, password string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "<name>harness-user</name>", "<name>"+email+"</name>", 1)
	s = strings.Replace(s, "1b0c5653828265b442b07e297a78bea8", boinc.PasswordHash(password, email), 1)
	return []byte(s)
}

// quietLog logs to stderr under -v only.
func quietLog() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}
