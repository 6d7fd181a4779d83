//go:build linux

package deploy

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/handlers"
	"github.com/cobble-am/cobble/internal/testport"
)

// Real requests through nginx, with the shipped site, over TLS and HTTP/2,
// to `cobble serve` with the shipped environment file (COBBLE_TRUSTED_PROXY
// names nginx on 127.0.0.1).
func TestNginxServesCobble(t *testing.T) {
	t.Parallel()
	nginx := requireTool(t, "nginx", "nginx", "/usr/sbin")
	https, plain := testport.Free(t), testport.Free(t)
	c := startCobble(t, fmt.Sprintf("https://127.0.0.1:%d/", https), nil)
	s := newSite(t, c.addr, https, plain)
	s.check(t, nginx)
	p := start(t, "nginx", exec.Command(nginx, s.args("-g", "daemon off;")...))
	client := s.client("127.0.0.1")
	waitOK(t, p, client, s.url("/healthz"))

	for _, path := range []string{"/healthz", "/login"} {
		resp, body := send(t, client, "GET", s.url(path), "", nil)
		if resp.StatusCode != http.StatusOK || resp.Proto != "HTTP/2.0" {
			t.Errorf("GET %s: %s over %s, want 200 over HTTP/2.0", path, resp.Status, resp.Proto)
		}
		if path == "/login" && !strings.Contains(body, `name="password"`) {
			t.Errorf("GET /login: no password field in\n%s", body)
		}
	}
	resp, _ := send(t, client, "GET", fmt.Sprintf("http://127.0.0.1:%d/login?x=1", plain), "", nil)
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusPermanentRedirect ||
		loc != "https://am.example.org/login?x=1" {
		t.Errorf("plain HTTP: %s to %q, want 308 to https://am.example.org/login?x=1", resp.Status, loc)
	}

	// Cobble reads at most handlers.MaxRPCBody; nginx lets that through and
	// refuses a byte more itself.
	for size, want := range map[int]bool{handlers.MaxRPCBody: false, handlers.MaxRPCBody + 1: true} {
		resp, body := send(t, client, "POST", s.url("/rpc.php"), strings.Repeat("x", size), nil)
		if refused := resp.StatusCode == http.StatusRequestEntityTooLarge && strings.Contains(body, "nginx"); refused != want {
			t.Errorf("an RPC of %d bytes: %s, want refused by nginx: %v", size, resp.Status, want)
		}
	}
	c.run(t, "user", "create", "--email", "vol@example.org", "--password", "secret-pass-1")
	t.Run("client addresses", func(t *testing.T) { clientAddresses(t, s) })
	t.Run("no secrets in the logs", func(t *testing.T) { nginxLogsNoSecrets(t, s) })
}

// loginWindow is the window in which Cobble counts wrong passwords
// (handlers' failureWindow).
const loginWindow = 15 * time.Minute

// Cobble limits wrong passwords per client address, and takes the address
// from the X-Forwarded-For nginx sends. A client cannot choose its own:
// nginx appends the address it sees, and Cobble stops there, as it is not
// a trusted proxy. (The client connects from 127.0.0.2 and 127.0.0.3;
// nginx is the trusted 127.0.0.1.)
func clientAddresses(t *testing.T, s *site) {
	guesser, owner := s.client("127.0.0.2"), s.client("127.0.0.3")
	// Cobble counts wrong passwords in fixed windows of 15 minutes: the
	// guesses must not straddle the end of one, where the counts start
	// again (the guesses took 2.5 s on a busy machine).
	if left := time.Until(time.Now().Truncate(loginWindow).Add(loginWindow)); left < 30*time.Second {
		time.Sleep(left + time.Second)
	}
	for i := range 10 {
		forged := http.Header{"X-Forwarded-For": {fmt.Sprintf("203.0.113.%d", i+1)}}
		if status := login(t, s, guesser, "wrong-pass", forged); status != http.StatusUnprocessableEntity {
			t.Fatalf("wrong password %d: status %d, want 422", i+1, status)
		}
	}
	forged := http.Header{"X-Forwarded-For": {"198.51.100.99"}}
	if status := login(t, s, guesser, "secret-pass-1", forged); status != http.StatusTooManyRequests {
		t.Errorf("after 10 wrong passwords, a forged X-Forwarded-For: status %d, want 429", status)
	}
	// Had Cobble taken nginx's own address for the client's, the owner,
	// coming through the same nginx, would be refused as well.
	if status := login(t, s, owner, "secret-pass-1", nil); status != http.StatusSeeOther {
		t.Errorf("the right password from another address: status %d, want 303", status)
	}
	if status := login(t, s, owner, "wrong-pass", nil); status != http.StatusUnprocessableEntity {
		t.Errorf("a wrong password from another address: status %d, want 422", status)
	}
}

// login posts the log-in form as a browser without Sec-Fetch-Site would,
// with an Origin that Cobble compares with the Host nginx passes on.
func login(t *testing.T, s *site, client *http.Client, password string, header http.Header) int {
	t.Helper()
	form := url.Values{"email": {"vol@example.org"}, "password": {password}}
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Origin": {s.url("")}}
	for k, v := range header {
		h[k] = v
	}
	resp, body := send(t, client, "POST", s.url("/login"), form.Encode(), h)
	if resp.StatusCode == http.StatusForbidden {
		t.Fatalf("log-in refused as cross-origin: nginx does not pass the Host with its port\n%s", body)
	}
	return resp.StatusCode
}

// send sends a request and returns the response and its body.
func send(t *testing.T, client *http.Client, method, url, body string, header http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return resp, string(b)
}
