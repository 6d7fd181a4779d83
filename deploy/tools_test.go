//go:build linux

package deploy

import (
	"bytes"
	"github.com/cobble-am/cobble/internal/loopback"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// requireTool returns the path of program, which the Debian package pkg
// installs in dir. The deploy tests run the real tools, so they are
// skipped with -short; a missing tool skips the test, except under
// CI=true, where it fails it: CI must really run these checks.
func requireTool(t *testing.T, program, pkg, dir string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("deploy: the checks with " + program + " do not run with -short")
	}
	if p, err := exec.LookPath(program); err == nil {
		return p
	}
	p := filepath.Join(dir, program)
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
		return p
	}
	msg := "deploy: " + program + " is needed for this test (install the Debian package " + pkg +
		", e.g. scripts/deps.sh " + pkg + "): not on PATH nor in " + dir
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " [CI=true, so this is a failure, not a skip]")
	}
	t.Skip(msg)
	return ""
}

var (
	buildOnce sync.Once
	buildDir  string
	buildPath string
	buildErr  error
)

// TestMain keeps the tests on loopback (no name is looked up through DNS),
// and removes the cobble binary that they built.
func TestMain(m *testing.M) {
	code := loopback.Run(m)
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// cobbleBinary builds cmd/cobble once per test process and returns its path.
func cobbleBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "cobble-deploy-test-"); buildErr != nil {
			return
		}
		buildPath = filepath.Join(buildDir, "cobble")
		// -trimpath, as the tests' other builds of cobble: they share
		// the build cache whatever directory they build from.
		cmd := exec.Command("go", "build", "-trimpath", "-o", buildPath, "../cmd/cobble")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = &buildError{err, out}
		}
	})
	if buildErr != nil {
		t.Fatal("building cobble:", buildErr)
	}
	return buildPath
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }

// process is a program a test started.
type process struct {
	name   string
	out    bytes.Buffer  // its output; read it once exited is closed
	exited chan struct{} // closed when it has exited
}

// start starts cmd, which ends with the test: SIGTERM, then SIGKILL after
// 10 s. Its output is logged when the test fails. If the test process
// dies, the kernel kills cmd too.
func start(t *testing.T, name string, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{name: name, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &p.out, &p.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-p.exited
			t.Errorf("%s did not stop within 10 s of SIGTERM", name)
		}
		if t.Failed() {
			t.Logf("%s's output:\n%s", name, p.out.String())
		}
	})
	return p
}

// waitOK waits up to 30 s for url to answer 200 through client, and fails
// the test if p exits first.
func waitOK(t *testing.T, p *process, client *http.Client, url string) {
	t.Helper()
	waitStatus(t, p, client, url, http.StatusOK)
}

// waitStatus is waitOK for another status.
func waitStatus(t *testing.T, p *process, client *http.Client, url string, status int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-p.exited:
			t.Fatalf("%s exited:\n%s", p.name, p.out.String())
		default:
		}
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == status {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no %d within 30 s (last: %v)", url, status, describe(resp, err))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func describe(resp *http.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	return resp.Status
}
