// Package browsertest drives a real headless Chromium for Cobble's page
// tests, through the Chrome DevTools Protocol (github.com/chromedp/chromedp,
// over a pipe: no debugging port is opened).
//
// New starts the Debian package's /usr/bin/chromium (or `chromium` on PATH)
// with a fresh profile in a t.TempDir(), and registers a cleanup that closes
// it and checks that none of its processes is left. New skips the test when
// Chromium is not installed, and fails it instead when the environment has
// CI=true. Every operation runs under OpTimeout, so a hung browser fails the
// test instead of hanging it. Selectors are CSS selectors.
//
// A typical test:
//
//	b := browsertest.New(t)
//	b.Open(t, srv.URL+"/login")
//	b.Fill(t, "#email", "ada@example.org")
//	b.Fill(t, "#password", "long-enough")
//	b.Click(t, "form button[type=submit]") // waits for the page it loads
//	if got := b.Text(t, "h1"); got != "Welcome, Ada" { ... }
//	b.Screenshot(t, filepath.Join(t.TempDir(), "dashboard.png"))
//
// Staying on loopback: the browser runs without background networking,
// component updates, sync, proxy or QUIC, and its host resolver answers
// "not found" for every name but localhost, so pages must use 127.0.0.1 (as
// httptest servers do). Its HOME and XDG directories point into the
// profile, so nothing is written outside it.
//
// Times measured with Chromium 156 (no -race): New takes about 0.7 s (2-3 s
// on a cold start), Open of a local page 0.1 s, Fill 60 ms, a Click that
// posts a form and follows its redirect 0.2 s plus the server's time, a
// Click that loads nothing NavigationGrace (0.3 s), Text and Count 5-30 ms,
// a full-page screenshot 80-100 ms, closing 0.15 s.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Timeouts of the harness. They are variables so that a slow machine can
// raise them from a TestMain.
var (
	// StartTimeout bounds how long New waits for Chromium to start and
	// open its first tab.
	StartTimeout = 90 * time.Second

	// OpTimeout bounds every operation on a Browser, including the page
	// load that Open and Click wait for. It catches a browser that hangs;
	// a loaded machine with race-built servers must never reach it.
	OpTimeout = 60 * time.Second

	// StopTimeout is how long closing waits for Chromium to exit by itself
	// before it kills it.
	StopTimeout = 5 * time.Second

	// NavigationGrace is how long Click waits, after the click, for a
	// navigation to begin; a click that starts none within it returns.
	NavigationGrace = 300 * time.Millisecond

	// NavigationWait replaces NavigationGrace for a click on a link to
	// another page or a form's submit button: on a busy machine the
	// navigation may begin later than NavigationGrace, and a Click that
	// returned then would leave the test on the page before.
	NavigationWait = 20 * time.Second
)

// The tab's viewport, in CSS pixels: a laptop's screen.
const viewportWidth, viewportHeight = 1280, 900

// Browser is one headless Chromium with one tab, owned by one test. Its
// methods must be called from one goroutine at a time.
type Browser struct {
	dir         string // the profile, a t.TempDir()
	ctx         context.Context
	cancel      context.CancelFunc // closes the tab and the browser
	allocCancel context.CancelFunc // kills the browser and waits for it
	pid         int
	killed      bool // by kill: closing need not wait for it
	status      int64
	closeOnce   sync.Once
}

// binDir is where the Debian chromium package installs chromium.
var binDir = "/usr/bin"

// Executable returns the path of the Chromium to run: `chromium` on PATH,
// else /usr/bin/chromium.
func Executable() (string, error) {
	if p, err := exec.LookPath("chromium"); err == nil {
		return p, nil
	}
	p := filepath.Join(binDir, "chromium")
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
		return p, nil
	}
	return "", fmt.Errorf("chromium not found on PATH or in %s", binDir)
}

// requireChromium returns Chromium's path, or skips the test (fails it when
// the environment has CI=true: CI must really run browser tests).
func requireChromium(t testing.TB) string {
	t.Helper()
	exe, err := Executable()
	if err != nil {
		msg := "browsertest: a real Chromium is needed for this test " +
			"(install the Debian package chromium, e.g. scripts/deps.sh chromium): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " [CI=true, so this is a failure, not a skip]")
		}
		t.Skip(msg)
	}
	return exe
}

// New starts a headless Chromium for t, with an empty profile in a
// t.TempDir(), and opens a blank tab. The browser is closed when t ends;
// its processes are killed if it does not exit within StopTimeout, and t
// fails if any of them outlives the test. New fails t if Chromium does not
// start within StartTimeout. With -short (the quick inner loop) it skips t.
func New(t testing.TB) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("browsertest: Chromium is not run with -short")
	}
	exe := requireChromium(t)
	b := &Browser{dir: t.TempDir()}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), allocatorOptions(exe, b.dir)...)
	b.ctx, b.cancel = chromedp.NewContext(actx)
	b.allocCancel = acancel
	// Registered after TempDir, so it runs before the profile is removed.
	t.Cleanup(func() { b.close(t) })

	// The first Run starts the browser, whose life is that of its context:
	// it must not carry a deadline, so a watchdog bounds it instead.
	err := b.bounded(StartTimeout, func() error {
		return chromedp.Do(b.ctx, chromedp.EmulateViewport(viewportWidth, viewportHeight))
	})
	if err != nil {
		t.Fatalf("browsertest: starting %s: %v", exe, err)
	}
	if p := chromedp.FromContext(b.ctx).Browser.Process(); p != nil {
		b.pid = p.Pid
	}
	return b
}

// allocatorOptions are Chromium's command line and environment: headless,
// as root without a sandbox, off the network but for the pages it is sent
// to, with everything it writes inside dir.
func allocatorOptions(exe, dir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(viewportWidth, viewportHeight),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter"),
		chromedp.Flag("no-proxy-server", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Env("HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
			"XDG_CACHE_HOME="+filepath.Join(dir, "cache")),
		chromedp.ModifyCmdFunc(setProcAttr),
	}
}

// bounded runs f, which must stop when the browser dies, and gives up after
// d: it then kills the browser, waits for f, and returns an error.
func (b *Browser) bounded(d time.Duration, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
	}
	b.kill()
	<-done
	return fmt.Errorf("no answer from the browser within %v; killed it", d)
}

// kill ends a browser that does not answer, and everything it started.
func (b *Browser) kill() {
	b.killed = true
	if b.pid != 0 {
		killGroup(b.pid)
	}
	killUsing(b.dir)
	b.allocCancel()
}

// close closes the browser: gracefully if it answers, else by force. It
// then kills any process still using the profile (Chromium's crash handler
// can linger a moment), and fails t if one survives.
func (b *Browser) close(t testing.TB) {
	b.closeOnce.Do(func() {
		if !b.killed {
			ctx, cancel := context.WithTimeout(b.ctx, StopTimeout)
			defer cancel()
			err := b.bounded(StopTimeout+time.Second, func() error { return chromedp.Cancel(ctx) })
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Logf("browsertest: closing the browser: %v", err)
			}
		}
		b.cancel()
		b.allocCancel()
		if left := waitGone(b.dir, StopTimeout); len(left) > 0 {
			t.Errorf("browsertest: Chromium processes outlived the test: %v", left)
		}
	})
}
