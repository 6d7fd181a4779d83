package main

import (
	"bytes"
	"context"
	"flag"
	"testing"
	"time"

	"github.com/cobble-am/cobble/web"
)

// The request timeout becomes the serving pool's statement_timeout: the
// net under the requests' deadlines.
func TestStatementTimeoutIsTheNet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := openDB(ctx, bareDatabase(t), true, 2500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for range 3 { // each connection of the pool, the one that migrated too
		var got string
		if err := pool.QueryRow(ctx, `SHOW statement_timeout`).Scan(&got); err != nil || got != "2500ms" {
			t.Errorf("statement_timeout = %q, %v; want 2500ms", got, err)
		}
	}
}

// serverConfig parses args as the server flags, with env as the
// environment; a parse error is returned like a configuration error.
func serverConfig(t *testing.T, env map[string]string, args ...string) (web.Config, error) {
	t.Helper()
	e := environment{getenv: envMap(env), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var sf serverFlags
	if err := sf.register(fs, e); err != nil {
		t.Fatal(err)
	}
	if err := parseFlags(fs, args); err != nil {
		return web.Config{}, err
	}
	return sf.config()
}

func TestRequestTimeoutFlag(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		env  map[string]string
		want time.Duration
		ok   bool
	}{
		{nil, nil, 10 * time.Second, true},
		{[]string{"--request-timeout", "3s"}, nil, 3 * time.Second, true},
		{nil, map[string]string{"COBBLE_REQUEST_TIMEOUT": "20s"}, 20 * time.Second, true},
		{[]string{"--request-timeout", "10ms"}, nil, 0, false},
	}
	for _, c := range cases {
		cfg, err := serverConfig(t, c.env, c.args...)
		if (err == nil) != c.ok || (c.ok && cfg.RequestTimeout != c.want) {
			t.Errorf("%v %v: timeout %v, err %v; want %v", c.args, c.env, cfg.RequestTimeout, err, c.want)
		}
	}
}

func TestTrustedProxyFlag(t *testing.T) {
	t.Parallel()
	cfg, err := serverConfig(t, map[string]string{"COBBLE_TRUSTED_PROXY": "10.0.0.0/8"},
		"--trusted-proxy", "192.0.2.1,2001:db8::/32", "--trusted-proxy", "::ffff:198.51.100.1")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.0.2.1/32", "2001:db8::/32", "198.51.100.1/32"}
	if len(cfg.TrustedProxies) != len(want) || cfg.SignupsPerHour != 20 {
		t.Fatalf("proxies %v, sign-ups %d", cfg.TrustedProxies, cfg.SignupsPerHour)
	}
	for i, p := range cfg.TrustedProxies {
		if p.String() != want[i] {
			t.Errorf("proxy %d = %s, want %s", i, p, want[i])
		}
	}
	if _, err := serverConfig(t, nil, "--trusted-proxy", "proxy.example.org"); err == nil {
		t.Error("a name was taken for a trusted proxy")
	}
}
