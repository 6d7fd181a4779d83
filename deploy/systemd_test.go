//go:build linux

package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The unit passes `systemd-analyze verify`, which reads unit files offline
// (systemd need not run) and wants ExecStart's program to exist: the test
// verifies a copy that starts a freshly built cobble. systemd's offline
// security review must rate the sandbox at most 2.0 (0 is best, 10 worst).
func TestSystemdUnitVerifies(t *testing.T) {
	t.Parallel()
	analyze := requireTool(t, "systemd-analyze", "systemd", "/usr/bin")
	unit := readFile(t, "cobble.service")
	dir := t.TempDir()
	unit = replaceOnce(t, unit, "ExecStart=/usr/local/bin/cobble serve", "ExecStart="+cobbleBinary(t)+" serve")
	unit = replaceOnce(t, unit, "EnvironmentFile=/etc/cobble/cobble.env", "EnvironmentFile="+filepath.Join(dir, "cobble.env"))
	writeFile(t, filepath.Join(dir, "cobble.env"), readFile(t, "cobble.env"))
	path := filepath.Join(dir, "cobble.service")
	writeFile(t, path, unit)

	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err = exec.Command(analyze, "security", "--offline=yes", "--threshold=20", path).CombinedOutput()
	if err != nil {
		t.Errorf("systemd-analyze security rates the unit's exposure above 2.0: %v\n%s", err, out)
	}
	t.Logf("systemd-analyze security: %s", lastLine(string(out)))
}

// The environment file names every variable `cobble serve` reads (the
// names in cmd/cobble's table of options and in README.md's table of flags),
// so an operator finds each setting there.
func TestEnvFileNamesEverySetting(t *testing.T) {
	t.Parallel()
	env := readFile(t, "cobble.env")
	vars := []string{"DATABASE_URL"}
	literal := regexp.MustCompile(`"(COBBLE_[A-Z_]+)"`)
	files, err := filepath.Glob("../cmd/cobble/options.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no ../cmd/cobble/options.go: %v", err)
	}
	for _, f := range files {
		for _, m := range literal.FindAllStringSubmatch(readFile(t, f), -1) {
			vars = append(vars, m[1])
		}
	}
	flagRow := regexp.MustCompile("(?m)^\\| `--.*$") // a row of README.md's table of serve's flags
	for _, row := range flagRow.FindAllString(readFile(t, "../README.md"), -1) {
		vars = append(vars, regexp.MustCompile(`COBBLE_[A-Z_]+`).FindAllString(row, -1)...)
	}
	slices.Sort(vars)
	vars = slices.Compact(vars)
	if len(vars) < 20 {
		t.Fatalf("found only %d variables: %v", len(vars), vars)
	}
	for _, v := range vars {
		if !regexp.MustCompile(`(?m)^#?` + v + `=`).MatchString(env) {
			t.Errorf("cobble.env does not name %s", v)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replaceOnce replaces old, which must occur exactly once in s: a test
// that rewrites a file fails when the file no longer says what it expects.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if n := strings.Count(s, old); n != 1 {
		t.Fatalf("%q occurs %d times, want once", old, n)
	}
	return strings.Replace(s, old, new, 1)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
