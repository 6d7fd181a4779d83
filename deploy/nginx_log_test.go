//go:build linux

package deploy

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/internal/testport"
)

// secretRoutes are Cobble's routes whose paths hold a secret, as the
// site's log names them, each with what comes before and after the
// secret in its paths.
var secretRoutes = []struct{ route, before, after string }{
	{"/password/reset/{token}", "/password/reset/", ""},
	{"/signup/finish/{token}", "/signup/finish/", ""},
	{"/email/confirm/{token}", "/email/confirm/", ""},
	{"/unsubscribe/{token}", "/unsubscribe/", ""},
	{"/notices/{file}", "/notices/", ".rss"},
}

// spellings are ways a link reaches nginx besides its own: upper case, a
// slash percent-encoded, a doubled slash.
var spellings = []func(string) string{
	func(p string) string { return p },
	strings.ToUpper,
	func(p string) string { return "/" + strings.Replace(p[1:], "/", "%2F", 1) },
	func(p string) string { return "/" + p },
}

// newSecret returns a secret shaped like Cobble's tokens.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Links with a secret in their path, fetched through nginx over HTTPS and
// plain HTTP, spelt as mail programs and people may spell them, paths
// that hold a token where no route expects one, and the pages' assets
// fetched with such a link as Referer, leave no secret in
// any log nginx writes; the access log still has a line for each route,
// naming the route.
func nginxLogsNoSecrets(t *testing.T, s *site) {
	client := s.client("127.0.0.1")
	var secrets []string
	for _, r := range secretRoutes {
		for _, spell := range spellings {
			secret := newSecret()
			secrets = append(secrets, secret)
			link := spell(r.before) + secret + r.after
			send(t, client, "GET", s.url(link), "", http.Header{"Referer": {s.url(link)}})
			send(t, client, "GET", s.url("/static/missing.css"), "", http.Header{"Referer": {s.url(link)}})
		}
		secret := newSecret()
		secrets = append(secrets, secret)
		send(t, client, "GET", fmt.Sprintf("http://127.0.0.1:%d%s%s%s", s.http, r.before, secret, r.after), "", nil)
	}
	for _, p := range []string{"/%s", "/%s/", "/some/%s.", "/admin/x/%s/y"} {
		secret := newSecret()
		secrets = append(secrets, secret)
		send(t, client, "GET", s.url(fmt.Sprintf(p, secret)), "", nil)
	}
	logs := nginxLogs(t, s)
	for _, secret := range secrets {
		if strings.Contains(logs, secret) {
			t.Fatalf("nginx logged the secret %s:\n%s", secret, logs)
		}
	}
	for _, r := range secretRoutes {
		if !strings.Contains(logs, "GET "+r.route+" ") {
			t.Errorf("no access log line for GET %s:\n%s", r.route, logs)
		}
	}
}

// nginxLogs returns every log nginx wrote in the site's directory.
func nginxLogs(t *testing.T, s *site) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(s.dir, "*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no logs in %s: %v", s.dir, err)
	}
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&all, "== %s\n%s", filepath.Base(f), b)
	}
	return all.String()
}

// While Cobble is down, nginx answers 502 to every request it cannot pass
// on, and logs it: no log nginx writes (the site's access and error logs,
// and nginx's own error log) holds the secrets of the links it could not
// pass on, and the access log still says which route failed, and that
// the upstream did not answer.
func TestNginxLogsNoSecretsWhileCobbleIsDown(t *testing.T) {
	t.Parallel()
	nginx := requireTool(t, "nginx", "nginx", "/usr/sbin")
	https, plain, down := testport.Free(t), testport.Free(t), testport.Free(t)
	s := newSite(t, testport.Addr(down), https, plain) // nothing listens on down
	s.check(t, nginx)
	p := start(t, "nginx", exec.Command(nginx, s.args("-g", "daemon off;")...))
	client := s.client("127.0.0.1")
	waitStatus(t, p, client, s.url("/healthz"), http.StatusBadGateway)
	for _, r := range secretRoutes {
		resp, _ := send(t, client, "GET", s.url(r.before+newSecret()+r.after), "", nil)
		if resp.StatusCode != http.StatusBadGateway {
			t.Fatalf("GET %s while Cobble is down: %s, want 502", r.route, resp.Status)
		}
	}
	nginxLogsNoSecrets(t, s)
	logs := nginxLogs(t, s)
	for _, r := range secretRoutes {
		if !regexp.MustCompile(`"GET ` + regexp.QuoteMeta(r.route) + ` [^"]+" 502 .* upstream ` +
			regexp.QuoteMeta(testport.Addr(down)) + ` 502 `).MatchString(logs) {
			t.Errorf("no access log line says that GET %s found no upstream:\n%s", r.route, logs)
		}
	}
}
