package main

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/internal/testport"
)

func TestLogFormatFlag(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, nil, "text"},
		{[]string{"--log-format", "json"}, nil, "json"},
		{nil, map[string]string{"COBBLE_LOG_FORMAT": "json"}, "json"},
		{[]string{"--log-format", "text"}, map[string]string{"COBBLE_LOG_FORMAT": "json"}, "text"},
	}
	for _, c := range cases {
		cfg, err := serverConfig(t, c.env, c.args...)
		if err != nil || cfg.LogFormat != c.want {
			t.Errorf("%v %v: log format %q, %v; want %q", c.args, c.env, cfg.LogFormat, err, c.want)
		}
	}
}

// cobble serve --log-format json writes one JSON object a line, a
// request's line with the id its response carried; /readyz names the
// build's version.
func TestServeLogsJSON(t *testing.T) {
	t.Parallel()
	addr := testport.FreeAddr(t)
	done, stop, stderr := startServe(t, dbEnv(t), "--addr", addr, "--log-format", "json")
	waitHealthy(t, "http://"+addr+"/", done, stderr)
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "ready\nCobble " + readVersion().String() + "\nprimary database "; resp.StatusCode != http.StatusOK ||
		!strings.HasPrefix(string(body), want) {
		t.Errorf("readyz: %d %q, want 200 and a body beginning %q", resp.StatusCode, body, want)
	}
	id := resp.Header.Get("X-Request-Id")
	stop()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("serve did not shut down within a minute of its context ending")
	}
	var msgs []string
	found := false
	for line := range strings.Lines(stderr.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not a JSON object: %v\n%s", err, line)
		}
		msgs = append(msgs, m["msg"].(string))
		found = found || (m["msg"] == "request" && m["path"] == "/readyz" && m["request_id"] == id && id != "")
	}
	if !found {
		t.Errorf("no request line for /readyz with request_id %q:\n%s", id, stderr)
	}
	if !slices.Contains(msgs, "serving") || !slices.Contains(msgs, "shutting down") {
		t.Errorf("log messages %q, want serving and shutting down among them", msgs)
	}
}
