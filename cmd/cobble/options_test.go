package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// optionsOf returns the options that cmd takes, by flag name.
func optionsOf(cmd string) map[string]option {
	out := map[string]option{}
	for _, o := range options {
		if o.flag != "" && slices.Contains(o.cmds, cmd) {
			out[o.flag] = o
		}
	}
	return out
}

// helpFlag is a flag's line in a command's -h output.
var helpFlag = regexp.MustCompile(`(?m)^  -([a-z-]+)`)

// The flags each command registers (as its -h lists them) are the options
// the table gives it.
func TestFlagsAreTheTables(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"serve", "dev", "reconcile"} {
		var stderr strings.Builder
		if err := run(t.Context(), []string{cmd, "-h"}, func(string) string { return "" }, io.Discard, &stderr); err != nil {
			t.Fatalf("%s -h: %v", cmd, err)
		}
		want := optionsOf(cmd)
		for _, m := range helpFlag.FindAllStringSubmatch(stderr.String(), -1) {
			if _, ok := want[m[1]]; !ok && !(cmd == "reconcile" && (m[1] == "project" || m[1] == "file")) {
				t.Errorf("%s: --%s is not in the table of options", cmd, m[1])
			}
			delete(want, m[1])
		}
		for name := range want {
			t.Errorf("%s: the table's --%s is not registered", cmd, name)
		}
	}
}

// readmeRow splits a row of README.md's flag table (`--a`, `--b` | `ENV`,
// … | default | meaning) into its cells, or returns nil for another line.
func readmeRow(line string) []string {
	if !strings.HasPrefix(line, "| `--") {
		return nil
	}
	cells := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
	if len(cells) < 5 {
		return nil
	}
	for i := range cells {
		cells[i] = strings.TrimSpace(strings.ReplaceAll(cells[i], "\x00", "|"))
	}
	return cells
}

// README.md's flag table names every option of cobble serve and no other,
// each with its variable and its default.
func TestReadmeFlagTable(t *testing.T) {
	t.Parallel()
	for _, p := range readmeProblems(readFile(t, "../../README.md")) {
		t.Error(p)
	}
}

// readmeProblems checks the flag table in readme against the options.
func readmeProblems(readme string) []string {
	var out []string
	want := optionsOf("serve")
	for line := range strings.Lines(readme) {
		m := readmeRow(line)
		if m == nil {
			continue
		}
		flags, envs, def := cells(m[1]), cells(m[2]), m[3]
		for i, name := range flags {
			o, ok := want[strings.TrimPrefix(name, "--")]
			if !ok {
				out = append(out, fmt.Sprintf("README.md names %s, which cobble serve does not take", name))
				continue
			}
			delete(want, o.flag)
			env := ""
			if i < len(envs) {
				env, _, _ = strings.Cut(envs[i], "=")
			}
			if env != o.env {
				out = append(out, fmt.Sprintf("README.md: %s's variable is %q, want %q", name, env, o.env))
			}
			if text := o.defText(); text != "" && text != "false" && !strings.Contains(def, "`"+text+"`") {
				out = append(out, fmt.Sprintf("README.md: %s's default %q does not say `%s`", name, def, text))
			}
		}
	}
	for name := range want {
		out = append(out, fmt.Sprintf("README.md's flag table misses --%s", name))
	}
	return out
}

// cells splits a cell of back-quoted names ("`--a`, `--b`") into the names.
func cells(cell string) []string {
	var out []string
	for _, part := range strings.Split(cell, ",") {
		if part = strings.Trim(strings.TrimSpace(part), "`"); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// notOptions are variables deploy/cobble.env may set that are not Cobble's.
var notOptions = []string{"GOGC"}

// deploy/cobble.env sets, or shows commented out with its default, every
// option of cobble serve that has a variable, and no other variable.
func TestEnvFileNamesEveryOption(t *testing.T) {
	t.Parallel()
	for _, p := range envFileProblems(readFile(t, "../../deploy/cobble.env")) {
		t.Error(p)
	}
}

// envLine is a VAR=value line of the environment file, maybe commented out.
var envLine = regexp.MustCompile(`^(#?)([A-Z][A-Z0-9_]*)=(.*)$`)

// envFileProblems checks the environment file text against the options.
func envFileProblems(text string) []string {
	var out []string
	want := map[string]option{}
	for _, o := range options {
		if o.env != "" && slices.Contains(o.cmds, "serve") {
			want[o.env] = o
		}
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		m := envLine.FindStringSubmatch(sc.Text())
		if m == nil || slices.Contains(notOptions, m[2]) {
			continue
		}
		o, ok := want[m[2]]
		if !ok {
			out = append(out, fmt.Sprintf("deploy/cobble.env sets %s, which is no option of cobble serve", m[2]))
			continue
		}
		seen[m[2]] = true
		if commented := m[1] == "#"; commented && m[3] != o.defText() {
			out = append(out, fmt.Sprintf("deploy/cobble.env shows %s=%s, but its default is %q", m[2], m[3], o.defText()))
		}
	}
	for env := range want {
		if !seen[env] {
			out = append(out, fmt.Sprintf("deploy/cobble.env misses %s", env))
		}
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The checks fail on a file that misses an option or names one that does
// not exist.
func TestOptionChecksCatchDrift(t *testing.T) {
	t.Parallel()
	readme, envFile := readFile(t, "../../README.md"), readFile(t, "../../deploy/cobble.env")
	for name, problems := range map[string][]string{
		"README.md without --signup-limit": readmeProblems(dropLines(readme, "`--signup-limit`")),
		"README.md with --no-such-flag": readmeProblems(readme +
			"\n| `--no-such-flag` | `COBBLE_NO_SUCH` | `1` | nothing |\n"),
		"cobble.env without COBBLE_SIGNUP_LIMIT": envFileProblems(dropLines(envFile, "COBBLE_SIGNUP_LIMIT=")),
		"cobble.env with COBBLE_NO_SUCH":         envFileProblems(envFile + "\n#COBBLE_NO_SUCH=1\n"),
		"cobble.env with a wrong default": envFileProblems(
			strings.Replace(envFile, "#COBBLE_MAX_PROJECTS=4", "#COBBLE_MAX_PROJECTS=5", 1)),
	} {
		if len(problems) == 0 {
			t.Errorf("%s: the check passes", name)
		}
	}
}

// dropLines removes the lines of text that contain s.
func dropLines(text, s string) string {
	var out strings.Builder
	for line := range strings.Lines(text) {
		if !strings.Contains(line, s) {
			out.WriteString(line)
		}
	}
	return out.String()
}
