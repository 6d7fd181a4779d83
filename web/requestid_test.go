package web_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/web"
)

// generatedID is what an id Cobble makes looks like: 128 random bits in
// base32.
var generatedID = regexp.MustCompile(`^[A-Z2-7]{26}$`)

// jsonLog returns a logger writing JSON lines, and what it wrote.
func jsonLog() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewJSONHandler(buf, nil)), buf
}

// logLines parses each line of log as one JSON object; it fails t on a line
// that is not one.
func logLines(t *testing.T, log string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for line := range strings.Lines(log) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not a JSON object: %v\n%s", err, line)
		}
		lines = append(lines, m)
	}
	return lines
}

// waitLogged waits until the log holds a line whose msg is msg and whose
// request_id is id, and returns it. (A response may reach the client a
// moment before its request line is written.)
func waitLogged(t *testing.T, log *syncBuffer, msg, id string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		for _, l := range logLines(t, log.String()) {
			if l["msg"] == msg && l["request_id"] == id {
				return l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q line with request_id %q in the log:\n%s", msg, id, log)
		}
	}
}

// Every response, whatever answers it, carries an id of its own.
func TestEveryResponseHasARequestID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.browser()
	_, login, _ := do(t, c, "GET", e.http.URL+"/login", nil, nil)
	css := regexp.MustCompile(`href="(/static/[^"]+\.css)"`).FindStringSubmatch(login)
	if css == nil {
		t.Fatalf("no stylesheet on the log-in page:\n%s", login)
	}
	seen := map[string]string{}
	for _, r := range []struct{ method, path string }{
		{"GET", "/"}, {"GET", "/login"}, {"GET", "/login"}, {"GET", "/healthz"}, {"GET", "/readyz"},
		{"GET", css[1]}, {"GET", "/static/no-such.css"}, {"GET", "/no/such/page"}, {"DELETE", "/rpc.php"},
		{"POST", "/rpc.php"}, {"GET", "/get_project_config.php"}, {"GET", "/admin/overview"},
	} {
		status, _, h := do(t, c, r.method, e.http.URL+r.path, nil, nil)
		id := h.Get("X-Request-Id")
		if !generatedID.MatchString(id) {
			t.Errorf("%s %s: status %d, X-Request-Id %q, want 26 base32 characters", r.method, r.path, status, id)
			continue
		}
		if other, ok := seen[id]; ok {
			t.Errorf("%s %s has the id of %s: %s", r.method, r.path, other, id)
		}
		seen[id] = r.method + " " + r.path
	}
}

// With a JSON log, each request is one JSON object whose request_id is
// the X-Request-Id its response carried.
func TestRequestLineCarriesTheID(t *testing.T) {
	t.Parallel()
	log, buf := jsonLog()
	e := newEnvLogged(t, testdb.New(t), nil, log)
	c := e.browser()
	for _, path := range []string{"/login", "/healthz", "/no/such/page", "/get_project_config.php"} {
		status, _, h := do(t, c, "GET", e.http.URL+path, nil, nil)
		id := h.Get("X-Request-Id")
		line := waitLogged(t, buf, "request", id)
		if line["path"] != path || line["status"] != float64(status) || line["method"] != "GET" {
			t.Errorf("GET %s answered %d with id %s; its log line is %v", path, status, id, line)
		}
	}
	n := 0
	for _, l := range logLines(t, buf.String()) {
		if l["msg"] == "request" {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d request lines for 4 requests:\n%s", n, buf)
	}
}

// Error pages, the visitor's fault or the server's, ask that a report
// quote the request's id, and the server's failure is logged with it.
func TestErrorPagesShowTheRequestID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	status, page, h := do(t, e.browser(), "GET", e.http.URL+"/no/such/page", nil, nil)
	want := "If you report this, quote: <code>" + h.Get("X-Request-Id") + "</code>"
	if status != http.StatusNotFound || !strings.Contains(page, want) {
		t.Errorf("404 page: status %d, does not contain %q:\n%s", status, want, page)
	}
	if _, page, _ := do(t, e.browser(), "GET", e.http.URL+"/login", nil, nil); strings.Contains(page, "If you report this") {
		t.Errorf("the log-in page asks for a report:\n%s", page)
	}

	pool, err := pgxpool.New(t.Context(), testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	log, buf := jsonLog()
	down := newEnvLogged(t, pool, func(c *web.Config) { c.Version = "v1.0.0 (go1.26.8)" }, log)
	pool.Close() // every database call fails from here on
	form := url.Values{"email": {"vol@example.org"}, "password": {"secret-pass"}}
	status, page, h = do(t, down.browser(), "POST", down.http.URL+"/login", form, nil)
	id := h.Get("X-Request-Id")
	if want := "If you report this, quote: <code>" + id + "</code>"; status < 500 || !strings.Contains(page, want) {
		t.Errorf("log-in with the database closed: status %d, want 5xx with %q:\n%s", status, want, page)
	}
	if line := waitLogged(t, buf, "page failed", id); line["path"] != "/login" {
		t.Errorf("page failed line %v, want path /login", line)
	}
	status, body, _ := do(t, down.browser(), "GET", down.http.URL+"/readyz", nil, nil)
	if want := "database unavailable\nCobble v1.0.0 (go1.26.8)\nprimary database: not reached yet\n"; status != http.StatusServiceUnavailable || body != want {
		t.Errorf("readyz with the database closed: %d %q, want 503 %q", status, body, want)
	}
}

// An X-Request-Id sent by the client counts only from a trusted proxy,
// and only when it is 1 to 64 of A-Z a-z 0-9 . _ -; otherwise Cobble
// makes its own.
func TestRequestIDFromAProxy(t *testing.T) {
	t.Parallel()
	good := []string{"lb-7f3a.9_Z", "x", strings.Repeat("a", 64)}
	bad := []string{"", "two words", strings.Repeat("a", 65), "<b>id</b>", "ünïcode", "a/b", "a,b"}

	untrusted := newEnv(t)
	for _, sent := range append(good, bad...) {
		got := requestIDFor(t, untrusted, sent)
		if !generatedID.MatchString(got) {
			t.Errorf("untrusted peer sent %q: X-Request-Id %q, want one Cobble made", sent, got)
		}
	}

	log, buf := jsonLog()
	proxy := newEnvLogged(t, testdb.New(t), func(c *web.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	}, log)
	for _, sent := range good {
		if got := requestIDFor(t, proxy, sent); got != sent {
			t.Errorf("trusted proxy sent %q: X-Request-Id %q, want it kept", sent, got)
		}
		waitLogged(t, buf, "request", sent)
	}
	for _, sent := range bad {
		if got := requestIDFor(t, proxy, sent); !generatedID.MatchString(got) {
			t.Errorf("trusted proxy sent %q: X-Request-Id %q, want one Cobble made", sent, got)
		}
	}
	_, page, _ := do(t, proxy.browser(), "GET", proxy.http.URL+"/no/such/page", nil, http.Header{"X-Request-Id": {"lb-42"}})
	if !strings.Contains(page, "quote: <code>lb-42</code>") {
		t.Errorf("the 404 page does not quote the proxy's id:\n%s", page)
	}
}

// requestIDFor sends a request with X-Request-Id sent and returns the
// X-Request-Id of the response.
func requestIDFor(t *testing.T, e *env, sent string) string {
	t.Helper()
	_, _, h := do(t, e.browser(), "GET", e.http.URL+"/healthz", nil, http.Header{"X-Request-Id": {sent}})
	return h.Get("X-Request-Id")
}
