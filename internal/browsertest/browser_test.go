package browsertest

import (
	"bytes"
	"fmt"
	"html"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// site is a small server with a form that posts, redirects and greets.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!DOCTYPE html><title>Form</title>
<form method="post" action="/greet"><input id="name" name="name" value="old">
<button id="go" type="submit">Go</button></form>
<button id="idle" type="button">Does nothing</button>
<a id="missing" href="/nowhere">Broken link</a>
<p class="x">one</p><p class="x">two</p>`)
	})
	mux.HandleFunc("POST /greet", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(50 * time.Millisecond)
		http.Redirect(w, r, "/hello?name="+url.QueryEscape(r.PostFormValue("name")), http.StatusSeeOther)
	})
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!DOCTYPE html><title>Hello</title><h1>Hello, %s</h1>`, html.EscapeString(r.FormValue("name")))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestBrowserDrivesAPage(t *testing.T) {
	srv := site(t)
	b := New(t)
	b.Open(t, srv.URL+"/")
	if b.Status() != http.StatusOK || b.Count(t, "p.x") != 2 || b.Text(t, "p.x") != "one" {
		t.Fatalf("status %d, %d paragraphs, first %q", b.Status(), b.Count(t, "p.x"), b.Text(t, "p.x"))
	}

	// A click that loads nothing returns without waiting for a page: on
	// an element that leads nowhere, after NavigationGrace, well before
	// OpTimeout, which Click would otherwise fail at.
	b.Click(t, "#idle")
	if got := b.URL(t); got != srv.URL+"/" {
		t.Errorf("after a click that loads nothing, URL %q", got)
	}

	b.Fill(t, "#name", "Ada & Grâce") // replaces "old"
	b.Click(t, "#go")
	if got, want := b.URL(t), srv.URL+"/hello?name=Ada+%26+Gr%C3%A2ce"; got != want {
		t.Errorf("after the post, URL %q, want %q", got, want)
	}
	if got := b.Text(t, "h1"); got != "Hello, Ada & Grâce" || b.Status() != http.StatusOK {
		t.Errorf("after the post, status %d, h1 %q", b.Status(), got)
	}
	if !strings.Contains(b.HTML(t), "<title>Hello</title>") {
		t.Error("HTML lacks the page's title")
	}
	if got := b.Eval(t, "document.title + ' ' + (1 + 2)"); got != "Hello 3" {
		t.Errorf("Eval: %q", got)
	}

	b.Open(t, srv.URL+"/")
	b.Click(t, "#missing")
	if b.Status() != http.StatusNotFound {
		t.Errorf("a link to a missing page: status %d, want 404", b.Status())
	}

	path := filepath.Join(t.TempDir(), "page.png")
	b.Screenshot(t, path)
	checkPNG(t, path, 1280, 900)
}

// checkPNG checks that path holds a PNG image at least w×h pixels big.
func checkPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if cfg.Width < w || cfg.Height < h || len(data) < 1000 {
		t.Errorf("screenshot %d×%d, %d bytes; want at least %d×%d", cfg.Width, cfg.Height, len(data), w, h)
	}
}

// recorder stands in for a test, to see a failure without failing: Fatal
// records the message and ends the goroutine, as testing's Fatal does.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	messages []string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.messages = append(r.messages, fmt.Sprintf(format, args...))
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// failure runs f with a recorder and returns its failure message, if any.
func failure(t *testing.T, f func(tb testing.TB)) string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.messages, "\n")
}

func TestMissingElementFailsAtOnce(t *testing.T) {
	srv := site(t)
	b := New(t)
	b.Open(t, srv.URL+"/")
	for name, f := range map[string]func(tb testing.TB){
		"Text":  func(tb testing.TB) { b.Text(tb, "#absent") },
		"Click": func(tb testing.TB) { b.Click(tb, "#absent") },
		"Fill":  func(tb testing.TB) { b.Fill(tb, "#absent", "x") },
	} {
		// Had it waited for the element, it would fail at OpTimeout with
		// another message.
		msg := failure(t, f)
		if !strings.Contains(msg, `no element matches "#absent"`) {
			t.Errorf("%s of a missing element: %q", name, msg)
		}
	}
}

func TestHungBrowserFailsInsteadOfHanging(t *testing.T) {
	old := OpTimeout
	OpTimeout = time.Second
	t.Cleanup(func() { OpTimeout = old })
	srv := site(t)
	var dir string
	t.Run("browser", func(t *testing.T) {
		b := New(t)
		dir = b.dir
		// A stopped browser answers nothing.
		if err := syscall.Kill(b.pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		msg := failure(t, func(tb testing.TB) { b.Open(tb, srv.URL+"/") })
		if !strings.Contains(msg, "not done within OpTimeout") {
			t.Errorf("Open on a hung browser: %q after %v", msg, time.Since(start))
		}
		t.Logf("Open on a hung browser failed after %v: %s", time.Since(start), msg)
	})
	if dir == "" {
		return // skipped
	}
	if left := using(dir); len(left) > 0 {
		t.Errorf("processes %v of the hung browser outlived its test", left)
	}
}

func TestCleanupLeavesNoProcess(t *testing.T) {
	var dir string
	var pid int
	t.Run("browser", func(t *testing.T) {
		b := New(t)
		dir, pid = b.dir, b.pid
		if len(using(dir)) < 2 {
			t.Errorf("found %v using the profile; want the browser and its helpers", using(dir))
		}
	})
	if dir == "" {
		return // skipped
	}
	if left := using(dir); len(left) > 0 {
		t.Errorf("processes %v outlived the test", left)
	}
	if err := syscall.Kill(pid, 0); err == nil && !zombie(fmt.Sprint(pid)) {
		t.Errorf("browser pid %d still runs", pid)
	}
}

// A click on a form's submit button or a link to another page waits for
// the page it leads to however late the navigation begins: Click does not
// guess from NavigationGrace, which a busy machine may pass before the
// browser starts to navigate.
func TestClickWaitsForALateNavigation(t *testing.T) {
	old := NavigationGrace
	NavigationGrace = time.Nanosecond // as if the machine were very slow
	t.Cleanup(func() { NavigationGrace = old })
	srv := site(t)
	b := New(t)
	b.Open(t, srv.URL+"/")
	b.Fill(t, "#name", "Ada")
	b.Click(t, "#go")
	if got := b.URL(t); got != srv.URL+"/hello?name=Ada" {
		t.Errorf("after submitting the form, URL %q", got)
	}
	b.Open(t, srv.URL+"/")
	b.Click(t, "#missing")
	if got := b.URL(t); got != srv.URL+"/nowhere" || b.Status() != http.StatusNotFound {
		t.Errorf("after following the link, URL %q, status %d", got, b.Status())
	}
}
