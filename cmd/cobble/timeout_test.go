package main

import (
	"bytes"
	"context"
	"flag"
	"testing"
	"time"
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
		env := environment{getenv: envMap(c.env), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		var sf serverFlags
		if err := sf.register(fs, env); err != nil {
			t.Fatal(err)
		}
		if err := parseFlags(fs, c.args); err != nil {
			t.Fatal(err)
		}
		cfg, err := sf.config()
		if (err == nil) != c.ok || (c.ok && cfg.RequestTimeout != c.want) {
			t.Errorf("%v %v: timeout %v, err %v; want %v", c.args, c.env, cfg.RequestTimeout, err, c.want)
		}
	}
}
