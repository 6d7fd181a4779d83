package boinctest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Timeouts used by the harness. They are variables so that a slow machine
// can raise them from a TestMain.
var (
	// CmdTimeout bounds every boinccmd run, whatever the caller's context
	// says. boinccmd polls forever when the account manager cannot be
	// reached, so an unbounded run would hang the test.
	CmdTimeout = 30 * time.Second

	// StartTimeout bounds how long Start and Restart wait for the client to
	// answer GUI RPCs: long enough for a busy machine (30 s was not, with
	// two busy loops beside the suite).
	StartTimeout = 90 * time.Second

	// StopTimeout is how long Stop waits for the client to exit after
	// asking it with `boinccmd --quit`, before it kills the client.
	StopTimeout = 10 * time.Second
)

// Client is one real BOINC client process (`boinc`) running in its own
// temporary data directory, controlled with boinccmd over GUI RPC on
// 127.0.0.1.
//
// Dir, RPCPort and Password are set by Start and must not be changed by the
// caller. RPCPort can change on Restart.
type Client struct {
	// Dir is the client's data directory (a t.TempDir()).
	Dir string
	// RPCPort is the GUI RPC port on 127.0.0.1.
	RPCPort int
	// Password is the GUI RPC password written to gui_rpc_auth.cfg.
	Password string

	boinc    string
	boinccmd string
	stdbuf   string // empty if stdbuf is not installed
	opts     Options

	mu      sync.Mutex
	t       testing.TB
	cmd     *exec.Cmd     // nil when stopped
	done    chan struct{} // closed when cmd has exited
	lastPID int
}

// Installed reports whether the BOINC client programs (boinc and boinccmd)
// can be found.
func Installed() bool {
	_, err1 := lookTool("boinc")
	_, err2 := lookTool("boinccmd")
	return err1 == nil && err2 == nil
}

// binDir is where the Debian boinc-client package installs boinc and
// boinccmd; lookTool looks there when PATH does not have them.
var binDir = "/usr/bin"

// lookTool finds a program on PATH or in binDir.
func lookTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	p := filepath.Join(binDir, name)
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
		return p, nil
	}
	return "", fmt.Errorf("%s not found on PATH or in %s", name, binDir)
}

// requireTools returns the paths of boinc and boinccmd. If either is
// missing the test is skipped, except when the environment has CI=true,
// where a missing client is a failure: CI must really run these tests.
func requireTools(t testing.TB) (boinc, boinccmd string) {
	t.Helper()
	var errs []error
	boinc, err := lookTool("boinc")
	if err != nil {
		errs = append(errs, err)
	}
	boinccmd, err = lookTool("boinccmd")
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		msg := fmt.Sprintf("boinctest: the real BOINC client is needed for this test "+
			"(install the Debian package boinc-client): %v", errors.Join(errs...))
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " [CI=true, so this is a failure, not a skip]")
		}
		t.Skip(msg)
	}
	return boinc, boinccmd
}

// Start starts a BOINC client in a fresh t.TempDir() and waits until
// boinccmd can talk to it. It writes gui_rpc_auth.cfg with a random
// password, a cc_config.xml that keeps the client off the Internet (no
// project list or version check, no reference-site probe), and an
// nvc_config.xml whose outside URLs point at a closed port on 127.0.0.1.
// The client runs with
//
//	boinc --dir DIR --gui_rpc_port PORT --allow_multiple_clients --no_info_fetch
//	      --skip_cpu_benchmarks --no_gpus --redirectio
//
// in its own process group, without proxy variables in its environment.
// Start registers a cleanup that stops the client (boinccmd --quit, then
// SIGKILL after StopTimeout), so no process is left behind even when the
// test fails. On Linux the client is also killed by the kernel if the test
// binary itself dies.
//
// If boinc or boinccmd is not installed the test is skipped, or fails when
// the environment has CI=true. With -short (the quick inner loop) it skips
// the test.
func Start(t testing.TB) *Client {
	t.Helper()
	return StartWith(t, Options{})
}

// Options change how StartWith runs the client.
type Options struct {
	// Notices lets the client fetch notices feeds (RSS) such as the one an
	// account manager's reply names: it runs without --no_info_fetch. The
	// project list and version checks stay off (dont_contact_ref_site, and
	// nvc_config.xml points the version check at a closed loopback port).
	Notices bool
}

// StartWith is Start with options.
func StartWith(t testing.TB, opts Options) *Client {
	t.Helper()
	if testing.Short() {
		t.Skip("boinctest: the real BOINC client is not run with -short")
	}
	boinc, boinccmd := requireTools(t)
	c := &Client{
		Dir:      t.TempDir(),
		Password: randomHex(16),
		boinc:    boinc,
		boinccmd: boinccmd,
		opts:     opts,
	}
	config := ccConfig
	if opts.Notices {
		config = strings.Replace(config, "<no_info_fetch>1</no_info_fetch>", "<no_info_fetch>0</no_info_fetch>", 1)
	}
	if p, err := exec.LookPath("stdbuf"); err == nil {
		c.stdbuf = p
	}
	files := map[string]string{
		"gui_rpc_auth.cfg": c.Password + "\n",
		"cc_config.xml":    config,
		"nvc_config.xml":   nvcConfig,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(c.Dir, name), []byte(text), 0o600); err != nil {
			t.Fatalf("boinctest: write %s: %v", name, err)
		}
	}
	t.Cleanup(c.Stop)
	c.start(t)
	return c
}

// ccConfig keeps the client from contacting anything but the servers a
// test names: no project list or client version fetch, and no probe of the
// reference site (www.google.com by default) after an HTTP failure or on a
// new client's first start.
const ccConfig = `<cc_config>
    <options>
        <no_info_fetch>1</no_info_fetch>
        <dont_contact_ref_site>1</dont_contact_ref_site>
    </options>
</cc_config>
`

// nvcConfig points the client's built-in outside URLs at a closed port on
// loopback, in case some code path ignores the options above.
const nvcConfig = `<nvc_config>
    <client_download_url>http://127.0.0.1:9/</client_download_url>
    <client_version_check_url>http://127.0.0.1:9/</client_version_check_url>
    <network_test_url>http://127.0.0.1:9/</network_test_url>
</nvc_config>
`

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// pickPort returns a port on 127.0.0.1 that is free now. It picks from
// 20000-32767, below Linux's default ephemeral range, so that servers
// listening on port 0 (httptest) do not take it before the client binds.
func pickPort() (int, error) {
	for range 100 {
		n, err := rand.Int(rand.Reader, big.NewInt(12768))
		if err != nil {
			return 0, err
		}
		port := 20000 + int(n.Int64())
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue
		}
		ln.Close()
		return port, nil
	}
	return 0, errors.New("no free port found on 127.0.0.1")
}

// clientEnv is the environment for boinc and boinccmd: the test's own,
// without proxy settings, so that nothing is sent through a proxy.
func clientEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToLower(name) {
		case "http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "no_proxy":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "no_proxy=*", "NO_PROXY=*")
}

// errPortTaken means another process answered on the chosen GUI RPC port.
var errPortTaken = errors.New("GUI RPC port answered with another password")

// start launches the client, retrying on another port if the chosen one
// turns out to be taken. Restart first tries the port used before.
func (c *Client) start(t testing.TB) {
	t.Helper()
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
	var errs []error
	for attempt := range 3 {
		if attempt > 0 || c.RPCPort == 0 {
			port, err := pickPort()
			if err != nil {
				t.Fatalf("boinctest: %v", err)
			}
			c.RPCPort = port
		}
		err := c.launch()
		if err == nil {
			return
		}
		errs = append(errs, err)
	}
	t.Fatalf("boinctest: could not start the BOINC client in %s: %v\nclient log:\n%s",
		c.Dir, errors.Join(errs...), tail(c.Log(), 40))
}

// launch starts one client process and waits until it answers GUI RPCs.
// On failure the process is gone when launch returns.
func (c *Client) launch() error {
	args := []string{"--dir", c.Dir, "--gui_rpc_port", strconv.Itoa(c.RPCPort), "--allow_multiple_clients",
		"--no_info_fetch", "--skip_cpu_benchmarks", "--no_gpus", "--redirectio"}
	if c.opts.Notices {
		args = slices.DeleteFunc(args, func(a string) bool { return a == "--no_info_fetch" })
	}
	cmd := exec.Command(c.boinc, args...)
	cmd.Dir = c.Dir
	cmd.Env = clientEnv()
	setProcAttr(cmd)
	// Start and reap the client from one goroutine locked to its OS thread:
	// the kernel sends the parent-death signal when the thread that forked
	// the child exits, so that thread must live as long as the client.
	started := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		close(done)
	}()
	if err := <-started; err != nil {
		return err
	}
	c.mu.Lock()
	c.cmd, c.done, c.lastPID = cmd, done, cmd.Process.Pid
	c.mu.Unlock()

	deadline := time.Now().Add(StartTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		out, err := c.Cmd(ctx, "--get_cc_status")
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-done:
			c.forget()
			return fmt.Errorf("client on port %d exited during startup (%v): %s",
				c.RPCPort, cmd.ProcessState, strings.TrimSpace(out))
		default:
		}
		if strings.Contains(out, "Authorization failure") {
			c.kill()
			return fmt.Errorf("port %d: %w", c.RPCPort, errPortTaken)
		}
		if time.Now().After(deadline) {
			c.kill()
			return fmt.Errorf("client on port %d not answering after %v: %v: %s",
				c.RPCPort, StartTimeout, err, strings.TrimSpace(out))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kill kills the current process and waits for it to be reaped.
func (c *Client) kill() {
	c.mu.Lock()
	cmd, done := c.cmd, c.done
	c.mu.Unlock()
	if cmd == nil {
		return
	}
	killProc(cmd)
	<-done
	c.forget()
}

func (c *Client) forget() {
	c.mu.Lock()
	c.cmd, c.done = nil, nil
	c.mu.Unlock()
}

// PID is the process id of the running client, or of the last one if it
// has been stopped. A test can use it to check that the process is gone.
func (c *Client) PID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastPID
}

// Running reports whether the client process is running.
func (c *Client) Running() bool {
	c.mu.Lock()
	done := c.done
	c.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// Stop stops the client and waits until its process is gone, keeping its
// data directory. It asks with `boinccmd --quit` (the client then writes
// client_state.xml and exits, in about 1 s) and kills the process group if
// it has not exited within StopTimeout. Stop does nothing if the client is
// not running; it is safe to call more than once.
func (c *Client) Stop() {
	c.mu.Lock()
	cmd, done, t := c.cmd, c.done, c.t
	c.mu.Unlock()
	if cmd == nil {
		return
	}
	select {
	case <-done:
	default:
		ctx, cancel := context.WithTimeout(context.Background(), StopTimeout)
		defer cancel()
		_, _ = c.Cmd(ctx, "--quit")
		select {
		case <-done:
		case <-ctx.Done():
			if t != nil {
				t.Logf("boinctest: client pid %d did not quit within %v; killing it", cmd.Process.Pid, StopTimeout)
			}
			killProc(cmd)
			<-done
		}
	}
	c.forget()
}

// Restart stops the client if it is running and starts it again on the
// same data directory, waiting until it answers GUI RPCs.
func (c *Client) Restart(t testing.TB) {
	t.Helper()
	c.Stop()
	c.start(t)
}
