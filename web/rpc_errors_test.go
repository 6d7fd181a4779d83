package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/web"
)

// A failure that is a bug, not an outage, gets a BOINC error reply (HTTP
// 200, which the client shows) rather than a 503 (which it takes for an
// outage and retries), says nothing of the cause, and is logged once.
func TestRPCBugIsAnErrorReplyNotAnOutage(t *testing.T) {
	t.Parallel()
	pool := testdb.New(t)
	logs := &syncBuffer{}
	cfg := web.Config{Site: web.Site{Name: "Cobble Test", BaseURL: "http://127.0.0.1:1/", RepeatSec: 3600},
		MaxProjects: 4, PasswordCost: bcrypt.MinCost}
	srv, err := web.New(context.Background(), cfg, pool, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	e := &env{t: t, pool: pool, store: srv.Store(), srv: srv, http: hs}
	e.user("vol@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	// A new computer cannot be stored: a constraint no host meets.
	if _, err := pool.Exec(context.Background(),
		`ALTER TABLE hosts ADD CONSTRAINT no_new_hosts_xyzzy CHECK (false) NOT VALID`); err != nil {
		t.Fatal(err)
	}
	status, r := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	if status != http.StatusOK || r.ErrorNum != boinc.CodeGeneric || r.ErrorMsg == "" {
		t.Errorf("got status %d error %d %q, want 200 with error %d and a message", status, r.ErrorNum, r.ErrorMsg,
			boinc.CodeGeneric)
	}
	if strings.Contains(r.ErrorMsg, "xyzzy") || strings.Contains(r.Raw, "xyzzy") {
		t.Errorf("the reply tells the cause: %s", r.Raw)
	}
	if n := strings.Count(logs.String(), "no_new_hosts_xyzzy"); n != 1 || !logged(logs.String(), "level=ERROR", "am rpc failed") {
		t.Errorf("the failure is logged %d times, want once as an error:\n%s", n, logs)
	}
}
