package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionOf(t *testing.T) {
	t.Parallel()
	const rev = "0a0e494f5c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: modified}}
	}
	cases := []struct {
		name string
		info *debug.BuildInfo
		want buildVersion
		line string
	}{
		{name: "no build information", want: buildVersion{version: "devel", goVer: "go1.26.8"},
			line: "devel (go1.26.8)"},
		{name: "checkout without version control", info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			want: buildVersion{version: "devel", goVer: "go1.26.8"}, line: "devel (go1.26.8)"},
		{name: "clean commit", info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")},
			want: buildVersion{version: "devel", commit: "0a0e494f5c1d", time: "2026-01-02T03:04:05Z", goVer: "go1.26.8"},
			line: "devel (commit 0a0e494f5c1d, go1.26.8)"},
		{name: "uncommitted changes", info: &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102030405-0a0e494f5c1d+dirty"},
			Settings: vcs("true")},
			want: buildVersion{version: "v0.0.0-20260102030405-0a0e494f5c1d+dirty", commit: "0a0e494f5c1d+dirty",
				time: "2026-01-02T03:04:05Z", goVer: "go1.26.8"},
			line: "v0.0.0-20260102030405-0a0e494f5c1d+dirty (commit 0a0e494f5c1d+dirty, go1.26.8)"},
		{name: "released module", info: &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}},
			want: buildVersion{version: "v1.2.3", goVer: "go1.26.8"}, line: "v1.2.3 (go1.26.8)"},
		{name: "short revision", info: &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}},
			want: buildVersion{version: "devel", commit: "abc", goVer: "go1.26.8"}, line: "devel (commit abc, go1.26.8)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := versionOf(c.info, "go1.26.8")
			if got != c.want {
				t.Errorf("versionOf = %+v, want %+v", got, c.want)
			}
			if got.String() != c.line {
				t.Errorf("String() = %q, want %q", got.String(), c.line)
			}
		})
	}
}

// TestVersionNamesTheCommit builds cobble from a git repository holding
// this source tree and checks that 'cobble version' names the commit, and
// marks it dirty once a file changes. The repository is a fresh copy
// because Go stamps no commit into a build in a linked git worktree.
func TestVersionNamesTheCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cobble twice")
	}
	t.Parallel()
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on PATH", tool)
		}
	}
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("the source is not a git checkout")
	}
	dir := t.TempDir()
	copyTree(t, strings.TrimSpace(string(root)), dir)
	runIn(t, dir, "git", "init", "-q")
	runIn(t, dir, "git", "add", "-A")
	runIn(t, dir, "git", "-c", "user.name=Cobble test", "-c", "user.email=test@cobble.example",
		"-c", "commit.gpgsign=false", "commit", "-q", "-m", "the tree under test")
	commit := strings.TrimSpace(runIn(t, dir, "git", "rev-parse", "HEAD"))[:12]
	bin := filepath.Join(t.TempDir(), "cobble")

	// -trimpath keeps the directory out of the compiled packages, so that
	// this copy's build reuses what the other tests' builds of cobble
	// compiled (they use it too) instead of compiling every package again.
	runIn(t, dir, "go", "build", "-trimpath", "-buildvcs=true", "-o", bin, "./cmd/cobble")
	out := runIn(t, dir, bin, "version")
	for _, want := range []string{"cobble version ", "commit " + commit + " (", "go1."} {
		if !strings.Contains(out, want) {
			t.Errorf("cobble version from a clean tree does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "dirty") {
		t.Errorf("cobble version from a clean tree says it is dirty:\n%s", out)
	}

	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runIn(t, dir, "go", "build", "-trimpath", "-buildvcs=true", "-o", bin, "./cmd/cobble")
	if out := runIn(t, dir, bin, "version"); !strings.Contains(out, "commit "+commit+"+dirty") {
		t.Errorf("cobble version from a changed tree does not say %q:\n%s", commit+"+dirty", out)
	}
}

// copyTree copies the files git knows in root (committed or not, but not
// ignored) into dir.
func copyTree(t *testing.T, root, dir string) {
	t.Helper()
	list := runIn(t, root, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for name := range strings.SplitSeq(strings.TrimSuffix(list, "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue // deleted, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runIn runs a command in dir and returns its output; it fails t, with
// what the command said, when the command fails.
func runIn(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, &stderr)
	}
	return stdout.String()
}
