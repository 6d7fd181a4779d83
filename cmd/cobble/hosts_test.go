package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// A DATABASE_URL of several hosts must say to use the read-write one, and
// each host gets a connect timeout unless the URL sets one.
func TestFollowPrimary(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url     string
		usage   bool
		timeout time.Duration
	}{
		{url: "postgres://u@db:5432/cobble", timeout: 0},
		{url: "postgres://u@a:5432,b:5433/cobble?sslmode=disable", usage: true},
		{url: "postgres://u@a:5432,b:5433/cobble?target_session_attrs=read-write", timeout: hostConnectTimeout},
		{url: "postgres://u@a:5432,b:5433/cobble?target_session_attrs=primary&connect_timeout=2", timeout: 2 * time.Second},
		{url: "postgres://u@a:5432,a:5432/cobble", timeout: 0}, // one host named twice
	}
	for _, c := range cases {
		cc, err := pgconn.ParseConfig(c.url)
		if err != nil {
			t.Fatal(err)
		}
		err = followPrimary(cc)
		if got := errors.Is(err, errUsage); got != c.usage {
			t.Errorf("%s: error %v, want a usage error: %v", c.url, err, c.usage)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "target_session_attrs=read-write") {
				t.Errorf("%s: the error does not say what to add: %v", c.url, err)
			}
			continue
		}
		if cc.ConnectTimeout != c.timeout {
			t.Errorf("%s: connect timeout %v, want %v", c.url, cc.ConnectTimeout, c.timeout)
		}
	}
}

// cobble refuses such a URL before it connects, with exit status 2.
func TestSeveralHostsWithoutTargetSessionAttrs(t *testing.T) {
	t.Parallel()
	status, _, stderr := runProcess(t, map[string]string{"DATABASE_URL": "postgres://u@127.0.0.1:1,127.0.0.1:2/db"}, "migrate")
	if want := "target_session_attrs=read-write"; status != 2 || !strings.Contains(lastLine(stderr), want) {
		t.Errorf("status %d, stderr %q: want 2 and a last line naming %s", status, stderr, want)
	}
}
