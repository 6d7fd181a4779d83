package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a server's goroutines to write
// while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// envMap is a getenv that reads only the map, never the process
// environment.
func envMap(m map[string]string) func(string) string {
	return func(key string) string { return m[key] }
}

// runCobble runs one cobble command with env as its whole environment.
func runCobble(ctx context.Context, env map[string]string, args ...string) (stdout, stderr string, err error) {
	var out, errOut syncBuffer
	err = run(ctx, args, envMap(env), &out, &errOut)
	return out.String(), errOut.String(), err
}

// checkOneLine fails t unless err reads as one line, the way main prints it
// after "cobble: ".
func checkOneLine(t *testing.T, err error) {
	t.Helper()
	if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || strings.TrimSpace(msg) != msg || msg == "" {
		t.Errorf("error %q is not one line", msg)
	}
}

// closedPort returns a loopback port on which, a moment ago, something
// listened: connecting to it is refused.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// errCase is one call of run that must fail, or (wantNil) succeed.
type errCase struct {
	name    string
	args    []string
	env     map[string]string
	wantNil bool
	usage   bool     // the error is errUsage (exit status 2), else status 1
	want    []string // substrings of the error
	stdout  []string // substrings of what the command printed on stdout
	stderr  []string // substrings of what the command printed on stderr
}

// check runs c and returns what the error reads.
func (c errCase) check(t *testing.T) string {
	t.Helper()
	// A bound, not a speed check: a command that waits on bad input (for a
	// database that is not there, say) fails here instead of hanging.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	stdout, stderr, err := runCobble(ctx, c.env, c.args...)
	for _, s := range c.stdout {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout does not contain %q:\n%s", s, stdout)
		}
	}
	for _, s := range c.stderr {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr does not contain %q:\n%s", s, stderr)
		}
	}
	if c.wantNil {
		if err != nil {
			t.Fatalf("run(%q) = %v, want nil", c.args, err)
		}
		return ""
	}
	if err == nil {
		t.Fatalf("run(%q) = nil, want an error", c.args)
	}
	t.Logf("cobble: %v", err)
	checkOneLine(t, err)
	if got := errors.Is(err, errUsage); got != c.usage {
		t.Errorf("run(%q) = %v; usage error (exit 2): %v, want %v", c.args, err, got, c.usage)
	}
	for _, s := range c.want {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
	return err.Error()
}

func TestCommandLine(t *testing.T) {
	t.Parallel()
	// Every server flag error must be caught before DATABASE_URL is looked
	// at, so most of these cases run without it; those that need it get
	// one that cannot be reached, which would fail differently.
	unreachable := map[string]string{"DATABASE_URL": fmt.Sprintf("postgres://u:pw@127.0.0.1:%d/db", closedPort(t))}
	cases := []errCase{
		{name: "no command", args: nil, usage: true, want: []string{"no command"}, stderr: []string{"Usage: cobble COMMAND"}},
		{name: "unknown command", args: []string{"frobnicate"}, usage: true,
			want: []string{`unknown command "frobnicate"`}, stderr: []string{"Commands:"}},
		{name: "user without subcommand", args: []string{"user"}, usage: true, want: []string{`"user"`}},
		{name: "unknown user subcommand", args: []string{"user", "delete"}, usage: true, want: []string{`"user delete"`}},
		{name: "unknown project subcommand", args: []string{"project", "remove"}, usage: true, want: []string{`"project remove"`}},
		{name: "help", args: []string{"help"}, wantNil: true, stdout: []string{"Usage: cobble COMMAND", "project add"}},
		{name: "--help", args: []string{"--help"}, wantNil: true, stdout: []string{"Usage: cobble COMMAND"}},
		{name: "-h", args: []string{"-h"}, wantNil: true, stdout: []string{"Usage: cobble COMMAND"}},
		{name: "version", args: []string{"version"}, wantNil: true,
			stdout: []string{"cobble version ", "\ncommit ", "go1."}},
		{name: "version in the usage", args: []string{"help"}, wantNil: true, stdout: []string{"  version "}},
		{name: "version stray argument", args: []string{"version", "now"}, usage: true, want: []string{`unexpected argument "now"`}},
		{name: "version unknown flag", args: []string{"version", "--long"}, usage: true, want: []string{"-long"}},

		{name: "serve -h", args: []string{"serve", "-h"}, wantNil: true,
			stderr: []string{"-addr", "-base-url", "-repeat-sec", "-max-projects", "-no-migrate", "COBBLE_ADDR",
				"-log-format", "COBBLE_LOG_FORMAT"}},
		{name: "serve --help", args: []string{"serve", "--help"}, wantNil: true, stderr: []string{"-addr"}},
		{name: "migrate -h", args: []string{"migrate", "-h"}, wantNil: true},
		{name: "dev -h", args: []string{"dev", "-h"}, wantNil: true, stderr: []string{"-data", "-addr"}},
		{name: "user create -h", args: []string{"user", "create", "-h"}, wantNil: true,
			stderr: []string{"-email", "-password", "-admin"}},
		{name: "project add -h", args: []string{"project", "add", "-h"}, wantNil: true,
			stderr: []string{"-url", "-authenticator", "-resources", "-share"}},

		{name: "serve unknown flag", args: []string{"serve", "--bogus"}, usage: true, want: []string{"-bogus"}},
		{name: "migrate unknown flag", args: []string{"migrate", "--bogus"}, usage: true, want: []string{"-bogus"}},
		{name: "dev unknown flag", args: []string{"dev", "--bogus"}, usage: true, want: []string{"-bogus"}},
		{name: "user create unknown flag", args: []string{"user", "create", "--bogus"}, usage: true, want: []string{"-bogus"}},
		{name: "project add unknown flag", args: []string{"project", "add", "--bogus"}, usage: true, want: []string{"-bogus"}},
		{name: "flag without value", args: []string{"serve", "--addr"}, usage: true, want: []string{"-addr"}},
		{name: "share not a number", args: []string{"project", "add", "--share", "lots"}, usage: true, want: []string{"-share"}},
		{name: "max-projects not an integer", args: []string{"serve", "--max-projects", "4.5"}, usage: true,
			want: []string{"-max-projects"}},

		{name: "serve stray argument", args: []string{"serve", "extra"}, usage: true, want: []string{`unexpected argument "extra"`}},
		{name: "serve stray argument after flags", args: []string{"serve", "--addr", "127.0.0.1:1", "extra"}, usage: true,
			want: []string{`"extra"`}},
		{name: "migrate stray argument", args: []string{"migrate", "now"}, usage: true, want: []string{`"now"`}},
		{name: "dev stray argument", args: []string{"dev", "extra"}, usage: true, want: []string{`"extra"`}},
		{name: "user create stray argument", args: []string{"user", "create", "--email", "a@example.org", "extra"}, usage: true,
			want: []string{`"extra"`}},
		{name: "project add stray argument", args: []string{"project", "add", "extra"}, usage: true, want: []string{`"extra"`}},

		{name: "serve without DATABASE_URL", args: []string{"serve"}, usage: true, want: []string{"DATABASE_URL is not set"}},
		{name: "migrate without DATABASE_URL", args: []string{"migrate"}, usage: true, want: []string{"DATABASE_URL is not set"}},
		{name: "user create without DATABASE_URL", args: []string{"user", "create", "--email", "a@example.org", "--password", "long enough"},
			usage: true, want: []string{"DATABASE_URL is not set"}},
		{name: "project add without DATABASE_URL",
			args:  []string{"project", "add", "--url", "https://p.example.org/", "--name", "P", "--authenticator", "k"},
			usage: true, want: []string{"DATABASE_URL is not set"}},

		{name: "addr not host:port", args: []string{"serve", "--addr", "nonsense"}, usage: true, want: []string{"--addr", `"nonsense"`}},
		{name: "addr from env not host:port", args: []string{"serve"}, env: map[string]string{"COBBLE_ADDR": "8080"}, usage: true,
			want: []string{"--addr", `"8080"`}},
		{name: "addr without host", args: []string{"serve", "--addr", ":8080"}, usage: true, want: []string{"--addr", "--base-url"}},
		{name: "addr without a dot", args: []string{"serve", "--addr", "localhost:8080"}, usage: true,
			want: []string{`--addr "localhost:8080"`, "--base-url"}},
		{name: "addr with a dot", args: []string{"serve", "--addr", "127.0.0.1:8080"}, usage: true,
			want: []string{"DATABASE_URL"}},
		{name: "addr on every address", args: []string{"serve", "--addr", "0.0.0.0:8080"}, usage: true,
			want: []string{"--addr", "--base-url"}},
		{name: "addr on every IPv6 address", args: []string{"serve", "--addr", "[::]:8080"}, usage: true,
			want: []string{"--addr", "--base-url"}},
		{name: "base-url localhost", args: []string{"serve", "--base-url", "http://localhost:8080/"}, usage: true,
			want: []string{"--base-url", "localhost", "dot"}},
		{name: "base-url ftp", args: []string{"serve", "--base-url", "ftp://files.example.org/"}, usage: true,
			want: []string{"--base-url", "http://"}},
		{name: "base-url without scheme", args: []string{"serve", "--base-url", "am.example.org"}, usage: true,
			want: []string{"--base-url"}},
		{name: "base-url without host", args: []string{"serve", "--base-url", "https:///am/"}, usage: true,
			want: []string{"--base-url"}},
		{name: "base-url from env", args: []string{"serve"}, env: map[string]string{"COBBLE_BASE_URL": "http://cobble/"}, usage: true,
			want: []string{"--base-url", "dot"}},
		{name: "repeat-sec too small", args: []string{"serve", "--repeat-sec", "5"}, usage: true, want: []string{"--repeat-sec"}},
		{name: "repeat-sec too large", args: []string{"serve", "--repeat-sec", "1e9"}, usage: true, want: []string{"--repeat-sec"}},
		{name: "repeat-sec NaN", args: []string{"serve", "--repeat-sec", "NaN"}, env: unreachable, usage: true,
			want: []string{"--repeat-sec"}},
		{name: "repeat-sec infinite", args: []string{"serve", "--repeat-sec", "+Inf"}, usage: true, want: []string{"--repeat-sec"}},
		{name: "max-projects 1", args: []string{"serve", "--max-projects", "1"}, usage: true, want: []string{"--max-projects"}},
		{name: "smtp-url not smtp", args: []string{"serve", "--smtp-url", "http://mail.example.org/"}, usage: true,
			want: []string{"--smtp-url", "smtp://"}},
		{name: "COBBLE_SMTP_URL bad port", args: []string{"serve"}, env: map[string]string{"COBBLE_SMTP_URL": "smtp://m.example.org:0"},
			usage: true, want: []string{"--smtp-url", "port"}},
		{name: "mail-from not an address", args: []string{"serve", "--mail-from", "Cobble"}, usage: true,
			want: []string{"--mail-from"}},
		{name: "log-format xml", args: []string{"serve", "--log-format", "xml"}, usage: true,
			want: []string{`--log-format "xml"`, "text or json"}},
		{name: "log-format empty", args: []string{"serve", "--log-format", ""}, usage: true, want: []string{"--log-format"}},
		{name: "log-format capitalised", args: []string{"serve", "--log-format", "JSON"}, usage: true,
			want: []string{`--log-format "JSON"`}},
		{name: "COBBLE_LOG_FORMAT yaml", args: []string{"serve"}, env: map[string]string{"COBBLE_LOG_FORMAT": "yaml"}, usage: true,
			want: []string{`--log-format "yaml"`}},
		{name: "log-format json", args: []string{"serve", "--log-format", "json"}, usage: true, want: []string{"DATABASE_URL"}},
		{name: "log-format text beats env", args: []string{"serve", "--log-format", "text"},
			env: map[string]string{"COBBLE_LOG_FORMAT": "yaml"}, usage: true, want: []string{"DATABASE_URL"}},
		{name: "max-projects 51", args: []string{"serve", "--max-projects", "51"}, usage: true, want: []string{"--max-projects"}},
		{name: "ledger-detail-months negative", args: []string{"serve", "--ledger-detail-months", "-1"}, usage: true,
			want: []string{"--ledger-detail-months"}},
		{name: "COBBLE_LEDGER_DETAIL_MONTHS not a number", args: []string{"serve"},
			env: map[string]string{"COBBLE_LEDGER_DETAIL_MONTHS": "six"}, usage: true,
			want: []string{"COBBLE_LEDGER_DETAIL_MONTHS", `"six"`}},
		{name: "COBBLE_REPEAT_SEC not a number", args: []string{"serve"}, env: map[string]string{"COBBLE_REPEAT_SEC": "abc"},
			usage: true, want: []string{"COBBLE_REPEAT_SEC", `"abc"`}},
		{name: "COBBLE_REPEAT_SEC NaN", args: []string{"serve"}, env: map[string]string{"COBBLE_REPEAT_SEC": "NaN", "DATABASE_URL": unreachable["DATABASE_URL"]},
			usage: true, want: []string{"repeat-sec"}},
		{name: "COBBLE_REPEAT_SEC too small", args: []string{"serve"}, env: map[string]string{"COBBLE_REPEAT_SEC": "30"},
			usage: true, want: []string{"repeat-sec"}},
		{name: "COBBLE_MAX_PROJECTS not a number", args: []string{"serve"}, env: map[string]string{"COBBLE_MAX_PROJECTS": "many"},
			usage: true, want: []string{"COBBLE_MAX_PROJECTS", `"many"`}},
		{name: "COBBLE_MAX_PROJECTS not an integer", args: []string{"serve"},
			env:   map[string]string{"COBBLE_MAX_PROJECTS": "4.5", "DATABASE_URL": unreachable["DATABASE_URL"]},
			usage: true, want: []string{"COBBLE_MAX_PROJECTS", `"4.5"`}},
		{name: "COBBLE_MAX_PROJECTS huge", args: []string{"serve"},
			env:   map[string]string{"COBBLE_MAX_PROJECTS": "1e300", "DATABASE_URL": unreachable["DATABASE_URL"]},
			usage: true, want: []string{"COBBLE_MAX_PROJECTS"}},

		// dev checks its flags before it starts a PostgreSQL cluster: none
		// of these may create .data/.
		{name: "dev addr not host:port", args: []string{"dev", "--addr", "nonsense"}, usage: true, want: []string{"--addr"}},
		{name: "dev base-url localhost", args: []string{"dev", "--base-url", "http://localhost/"}, usage: true, want: []string{"--base-url"}},
		{name: "dev repeat-sec", args: []string{"dev", "--repeat-sec", "5"}, usage: true, want: []string{"--repeat-sec"}},
		{name: "dev max-projects", args: []string{"dev", "--max-projects", "1"}, usage: true, want: []string{"--max-projects"}},
		{name: "dev log-format", args: []string{"dev", "--log-format", "xml"}, usage: true, want: []string{"--log-format"}},
		{name: "dev COBBLE_REPEAT_SEC", args: []string{"dev"}, env: map[string]string{"COBBLE_REPEAT_SEC": "abc"}, usage: true,
			want: []string{"COBBLE_REPEAT_SEC"}},
	}
	t.Cleanup(func() {
		if _, err := os.Stat(".data"); err == nil {
			t.Error("a failed 'cobble dev' made .data/ in the working directory")
		}
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.check(t)
		})
	}
}

func TestOneLine(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"":                       "",
		"refused":                "refused",
		"a\nb\n":                 "a; b",
		"a: refused\na: refused": "a: refused",
		"  a \r\n\n b ":          "a; b",
	}
	for in, want := range cases {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBadDatabaseURL(t *testing.T) {
	t.Parallel()
	port := closedPort(t)
	const secret = "SECRETPW"
	closed := fmt.Sprintf("postgres://u:%s@127.0.0.1:%d/db", secret, port)
	okUser := []string{"user", "create", "--email", "a@example.org", "--password", "long enough"}
	okProject := []string{"project", "add", "--url", "https://p.example.org/", "--name", "P", "--authenticator", "k"}
	var cases []errCase
	for _, args := range [][]string{{"serve", "--addr", "127.0.0.1:0"}, {"migrate"}, okUser, okProject} {
		name := strings.Join(args[:min(2, len(args))], " ")
		for _, bad := range []string{
			"not a url",
			"http://db.example.org/cobble",
			"mysql://u:" + secret + "@db.example.org/cobble",
			"postgres://u:" + secret + "@127.0.0.1:notaport/db",
			"postgres://u:" + secret + "@[::1/db",
		} {
			cases = append(cases, errCase{name: name + " " + bad, args: args, env: map[string]string{"DATABASE_URL": bad},
				usage: true, want: []string{"DATABASE_URL is not a PostgreSQL URL"}})
		}
		for _, dbURL := range []string{
			closed,
			fmt.Sprintf("postgres://u:%s@localhost:%d/db", secret, port),
			fmt.Sprintf("postgres://u:%s@127.0.0.1:%d/db?sslmode=disable", secret, port),
			fmt.Sprintf("host=127.0.0.1 port=%d user=u password=%s dbname=db", port, secret),
		} {
			cases = append(cases, errCase{name: name + " " + dbURL, args: args, env: map[string]string{"DATABASE_URL": dbURL},
				want: []string{"cannot reach the database", fmt.Sprint(port), "refused"}})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if msg := c.check(t); strings.Contains(msg, secret) {
				t.Errorf("error %q shows the password", msg)
			}
		})
	}
}

func TestServerFlagsConfig(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		args     []string
		env      map[string]string
		wantBase string
		wantName string
		repeat   float64
		max      int
	}{
		{name: "defaults", wantBase: "http://127.0.0.1:8080/", wantName: "Cobble", repeat: 6 * 3600, max: 4},
		{name: "base from addr", args: []string{"--addr", "127.0.0.1:9999"}, wantBase: "http://127.0.0.1:9999/",
			wantName: "Cobble", repeat: 6 * 3600, max: 4},
		{name: "slash added", args: []string{"--base-url", "https://am.example.org"}, wantBase: "https://am.example.org/",
			wantName: "Cobble", repeat: 6 * 3600, max: 4},
		{name: "slash added to path", args: []string{"--base-url", "https://example.org/cobble"},
			wantBase: "https://example.org/cobble/", wantName: "Cobble", repeat: 6 * 3600, max: 4},
		{name: "slash kept", args: []string{"--base-url", "http://am.example.org:8080/"}, wantBase: "http://am.example.org:8080/",
			wantName: "Cobble", repeat: 6 * 3600, max: 4},
		{name: "from env",
			env: map[string]string{"COBBLE_ADDR": "0.0.0.0:80", "COBBLE_BASE_URL": "https://am.example.org",
				"COBBLE_NAME": "Science Pool", "COBBLE_REPEAT_SEC": "3600", "COBBLE_MAX_PROJECTS": "8"},
			wantBase: "https://am.example.org/", wantName: "Science Pool", repeat: 3600, max: 8},
		{name: "flags beat env",
			args:     []string{"--base-url", "https://b.example.org/", "--name", "B", "--repeat-sec", "60", "--max-projects", "2"},
			env:      map[string]string{"COBBLE_BASE_URL": "https://a.example.org/", "COBBLE_NAME": "A", "COBBLE_REPEAT_SEC": "3600", "COBBLE_MAX_PROJECTS": "8"},
			wantBase: "https://b.example.org/", wantName: "B", repeat: 60, max: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := environment{getenv: envMap(c.env), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(env.stderr)
			var sf serverFlags
			if err := sf.register(fs, env); err != nil {
				t.Fatal(err)
			}
			if err := parseFlags(fs, c.args); err != nil {
				t.Fatal(err)
			}
			cfg, err := sf.config()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.BaseURL != c.wantBase || cfg.Name != c.wantName || cfg.RepeatSec != c.repeat || cfg.MaxProjects != c.max {
				t.Errorf("config = %+v, want base %s, name %s, repeat %v, max %d", cfg, c.wantBase, c.wantName, c.repeat, c.max)
			}
		})
	}
}

func TestSplitList(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"":                 nil,
		" , ,":             nil,
		"CPU":              {"CPU"},
		"CPU, NVIDIA ,ATI": {"CPU", "NVIDIA", "ATI"},
		"a,,b,":            {"a", "b"},
	}
	for in, want := range cases {
		if got := splitList(in); fmt.Sprint(got) != fmt.Sprint(want) || len(got) != len(want) {
			t.Errorf("splitList(%q) = %q, want %q", in, got, want)
		}
	}
}
