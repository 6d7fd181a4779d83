//go:build linux

package deploy

import (
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/internal/testport"
)

// cobble is `cobble serve`, built from this tree, that a test started on
// a database of its own.
type cobble struct {
	bin     string
	addr    string   // host:port of the site
	metrics string   // host:port of /metrics
	env     []string // its environment, for other cobble commands
}

// startCobble starts `cobble serve` with the settings of cobble.env, as
// systemd passes them, except for a fresh database, free loopback ports,
// baseURL, an SMTP server on a closed port, and the variables in set.
// When the test ends it checks that Cobble wrote nothing into its working
// or home directory: it needs no writable file system.
func startCobble(t *testing.T, baseURL string, set map[string]string) *cobble {
	t.Helper()
	vars := envFile(t, readFile(t, "cobble.env"))
	vars["DATABASE_URL"] = testdb.NewURL(t)
	vars["COBBLE_ADDR"] = testport.FreeAddr(t)
	vars["COBBLE_METRICS_ADDR"] = testport.FreeAddr(t)
	vars["COBBLE_BASE_URL"] = baseURL
	smtp, err := url.Parse(vars["COBBLE_SMTP_URL"])
	if err != nil {
		t.Fatalf("cobble.env: COBBLE_SMTP_URL: %v", err)
	}
	smtp.Host = testport.FreeAddr(t)
	vars["COBBLE_SMTP_URL"] = smtp.String()
	maps.Copy(vars, set)

	home := t.TempDir()
	c := &cobble{bin: cobbleBinary(t), addr: vars["COBBLE_ADDR"], metrics: vars["COBBLE_METRICS_ADDR"],
		env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}}
	for k, v := range vars {
		c.env = append(c.env, k+"="+v)
	}
	t.Cleanup(func() { // after the server has stopped
		if entries, _ := os.ReadDir(home); len(entries) > 0 {
			t.Errorf("cobble serve wrote %s into its working directory", entries[0].Name())
		}
	})
	cmd := exec.Command(c.bin, "serve")
	cmd.Env, cmd.Dir = c.env, home
	p := start(t, "cobble serve", cmd)
	waitOK(t, p, http.DefaultClient, "http://"+c.addr+"/readyz")
	return c
}

// run runs a cobble command with the server's environment.
func (c *cobble) run(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Env, cmd.Dir = c.env, t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cobble %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// envFile reads an environment file as systemd does: VAR=value lines,
// comments starting with #, values optionally in double quotes.
func envFile(t *testing.T, text string) map[string]string {
	t.Helper()
	assignment := regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)
	vars := map[string]string{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := assignment.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("cobble.env:%d: %q is no VAR=value", i+1, line)
		}
		value := m[2]
		if len(value) >= 2 && strings.HasPrefix(value, `"`) && strings.HasSuffix(value, `"`) {
			value = value[1 : len(value)-1]
		}
		vars[m[1]] = value
	}
	return vars
}
