package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// do runs f with a context that ends after OpTimeout, and fails t if f
// fails or the browser does not answer in time.
func (b *Browser) do(t testing.TB, what string, f func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, OpTimeout)
	defer cancel()
	// The watchdog is a second line: chromedp honours ctx's deadline.
	err := b.bounded(OpTimeout+2*time.Second, func() error { return f(ctx) })
	if errors.Is(err, context.DeadlineExceeded) {
		// A browser that does not answer is of no further use; killing it
		// now spares the cleanup its wait.
		b.kill()
		err = fmt.Errorf("not done within OpTimeout (%v): %w", OpTimeout, err)
	}
	if err != nil {
		t.Fatalf("browsertest: %s: %v", what, err)
	}
}

// Open loads url in the tab, follows its redirects, and waits for the page
// to load. The page may have any HTTP status; see Status.
func (b *Browser) Open(t testing.TB, url string) {
	t.Helper()
	b.do(t, "open "+url, func(ctx context.Context) error {
		resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(url))
		b.status = 0
		if resp != nil {
			b.status = resp.Status
		}
		return err
	})
}

// Status returns the HTTP status of the page that the last Open, or the
// last Click that loaded a page, ended on, after redirects; 0 if unknown.
func (b *Browser) Status() int { return int(b.status) }

// Fill replaces the value of the input or textarea that selector matches
// first: it focuses the field, empties it, and inserts value as typed text
// (the page sees input events, not one key event per character).
func (b *Browser) Fill(t testing.TB, selector, value string) {
	t.Helper()
	b.mustFind(t, selector)
	b.do(t, "fill "+selector, func(ctx context.Context) error {
		// chromedp.SetValue cannot set "" (chromedp v0.23.0).
		empty := fmt.Sprintf("document.querySelector(%s).value = ''", jsString(selector))
		return chromedp.Do(ctx,
			chromedp.Focus(chromedp.CSS(selector), chromedp.NodeVisible),
			chromedp.Evaluate[chromedp.Void](empty),
			chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				if value == "" {
					return nil
				}
				_, err := cdp.Call(ctx, tg, input.InsertText, input.InsertTextParams{Text: value})
				return err
			}))
	})
}

// Click clicks the middle of the element that selector matches first, as
// a mouse does. If the click starts a navigation (a link, a form's
// submission), Click waits until the page it leads to, after redirects,
// has loaded. It waits for the navigation to begin up to NavigationWait
// when the element is a link to another page or a form's submit button,
// and NavigationGrace otherwise.
func (b *Browser) Click(t testing.TB, selector string) {
	t.Helper()
	b.mustFind(t, selector)
	b.do(t, "click "+selector, func(ctx context.Context) error {
		return b.navigating(ctx, fmt.Sprintf("document.querySelector(%s)", jsString(selector)),
			chromedp.Click(chromedp.CSS(selector)))
	})
}

// Keys types keys into the element that has the focus, as key events of
// a keyboard: "\t" is Tab, "\r" Enter, " " Space, other characters type
// themselves. Keys holding Enter or Space may press a link or a button:
// like Click, if they start a navigation within NavigationGrace, Keys waits
// until the page it leads to has loaded. Other keys return at once.
func (b *Browser) Keys(t testing.TB, keys string) {
	t.Helper()
	b.do(t, fmt.Sprintf("press %q", keys), func(ctx context.Context) error {
		if !strings.ContainsAny(keys, "\r ") {
			return chromedp.Do(ctx, chromedp.KeyEvent(keys))
		}
		return b.navigating(ctx, "document.activeElement", chromedp.KeyEvent(keys))
	})
}

// navigating runs action on the element that the expression target
// yields, which may start a navigation of the top frame, and waits as
// Click does.
func (b *Browser) navigating(ctx context.Context, target string, action chromedp.Action[chromedp.Void]) error {
	frame, err := chromedp.Run(ctx, mainFrame)
	if err != nil {
		return err
	}
	leads, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(leadsAway, target)))
	if err != nil {
		return err
	}
	w := &navWatch{frame: frame, started: make(chan struct{}), loaded: make(chan struct{}), grace: NavigationGrace}
	if leads {
		w.grace = NavigationWait
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	if err := chromedp.Listen(wctx, w.event); err != nil {
		return err
	}
	if err := chromedp.Do(ctx, action); err != nil {
		return err
	}
	return w.wait(ctx, &b.status)
}

// mainFrame returns the id of the tab's top frame.
func mainFrame(ctx context.Context, t *chromedp.Target) (cdp.FrameID, error) {
	tree, err := cdp.Call(ctx, t, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return "", err
	}
	return tree.FrameTree.Frame.ID, nil
}

// leadsAway is a script that says whether activating an element (%s)
// leads to another page: a link to another page or a form's submit button,
// or a text field of a form, where Enter submits it. The browser may still
// not go (a form its own checks stop), so that navWatch waits for the
// navigation to begin only up to NavigationWait.
const leadsAway = `(e => {
	if (!e) return false;
	const a = e.closest('a[href]');
	if (a) {
		const u = new URL(a.href, location.href);
		return !(u.hash !== '' && u.origin + u.pathname + u.search === location.origin + location.pathname + location.search);
	}
	const f = e.form;
	if (!f) return false;
	if (e.matches('button:not([type]), button[type=submit], input[type=submit], input[type=image]')) return true;
	return e.matches('input:not([type]), input[type=text], input[type=email], input[type=password], input[type=search], input[type=number], input[type=url], input[type=tel], input[type=date]');
})(%[1]s)`

// navWatch follows the navigation of the top frame that a click may start.
type navWatch struct {
	frame           cdp.FrameID
	mu              sync.Mutex
	navigating      bool
	started, loaded chan struct{}
	status          int64
	grace           time.Duration // how long to wait for a navigation to begin
}

// event is called in order for each event of the tab; it must not block.
func (w *navWatch) event(ev any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch ev := ev.(type) {
	case *page.EventFrameRequestedNavigation:
		w.start(ev.FrameID)
	case *page.EventFrameStartedNavigating:
		w.start(ev.FrameID)
	case *page.EventFrameStartedLoading:
		w.start(ev.FrameID)
	case *network.EventResponseReceived:
		if ev.FrameID == w.frame && ev.Type == network.ResourceTypeDocument && ev.Response != nil {
			w.status = ev.Response.Status
		}
	case *page.EventLoadEventFired:
		w.finish(w.frame)
	case *page.EventFrameStoppedLoading: // also ends navigations that load nothing (204, download)
		w.finish(ev.FrameID)
	case *page.EventNavigatedWithinDocument:
		w.start(ev.FrameID)
		w.finish(ev.FrameID)
	}
}

func (w *navWatch) start(frame cdp.FrameID) {
	if frame == w.frame && !w.navigating {
		w.navigating = true
		close(w.started)
	}
}

func (w *navWatch) finish(frame cdp.FrameID) {
	select {
	case <-w.loaded:
	default:
		if frame == w.frame && w.navigating {
			close(w.loaded)
		}
	}
}

// wait returns when no navigation began within w.grace, or when the one
// that began has loaded; it then stores the page's status in status.
func (w *navWatch) wait(ctx context.Context, status *int64) error {
	grace := time.NewTimer(w.grace)
	defer grace.Stop()
	select {
	case <-w.started:
	case <-grace.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-w.loaded:
	case <-ctx.Done():
		return fmt.Errorf("waiting for the page the click leads to: %w", ctx.Err())
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	*status = w.status
	return nil
}

// mustFind fails t at once when no element matches selector, instead of
// waiting OpTimeout for one to appear.
func (b *Browser) mustFind(t testing.TB, selector string) {
	t.Helper()
	if b.Count(t, selector) == 0 {
		t.Fatalf("browsertest: no element matches %q on %s", selector, b.URL(t))
	}
}

// Count returns how many elements match selector.
func (b *Browser) Count(t testing.TB, selector string) int {
	t.Helper()
	var n int
	b.do(t, "count "+selector, func(ctx context.Context) (err error) {
		n, err = chromedp.Run(ctx, chromedp.Evaluate[int](
			fmt.Sprintf("document.querySelectorAll(%s).length", jsString(selector))))
		return err
	})
	return n
}

// Text returns the rendered text (innerText; textContent for SVG
// elements, which have no innerText) of the element that selector matches
// first, and fails t when none does.
func (b *Browser) Text(t testing.TB, selector string) string {
	t.Helper()
	var texts []string
	b.do(t, "text of "+selector, func(ctx context.Context) (err error) {
		texts, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](fmt.Sprintf(
			"(e => e === null ? [] : [e.innerText ?? e.textContent])(document.querySelector(%s))", jsString(selector))))
		return err
	})
	if len(texts) == 0 {
		t.Fatalf("browsertest: no element matches %q on %s", selector, b.URL(t))
	}
	return texts[0]
}

// Eval evaluates a JavaScript expression in the page and returns its
// value as a string (String(value)), failing t if it throws. Pages work
// without script; tests use it to inspect what the browser made of them.
func (b *Browser) Eval(t testing.TB, expr string) string {
	t.Helper()
	var s string
	b.do(t, "evaluate "+expr, func(ctx context.Context) (err error) {
		s, err = chromedp.Run(ctx, chromedp.Evaluate[string]("String(("+expr+"\n))"))
		return err
	})
	return s
}

// HTML returns the markup of the whole document as the browser has it now.
func (b *Browser) HTML(t testing.TB) string {
	t.Helper()
	var html string
	b.do(t, "read the page", func(ctx context.Context) (err error) {
		html, err = chromedp.Run(ctx, chromedp.Evaluate[string]("document.documentElement.outerHTML"))
		return err
	})
	return html
}

// URL returns the address of the page in the tab.
func (b *Browser) URL(t testing.TB) string {
	t.Helper()
	var url string
	b.do(t, "read the URL", func(ctx context.Context) (err error) {
		url, err = chromedp.Run(ctx, chromedp.Location())
		return err
	})
	return url
}

// Screenshot saves a PNG image of the whole page to path: 1280 pixels wide,
// 900 high or as high as the page is.
func (b *Browser) Screenshot(t testing.TB, path string) {
	t.Helper()
	var png []byte
	b.do(t, "screenshot", func(ctx context.Context) (err error) {
		png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
		return err
	})
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("browsertest: %v", err)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Resize sets the tab's viewport to width × height CSS pixels, such as a
// phone's 390 × 844; later screenshots are that wide.
func (b *Browser) Resize(t testing.TB, width, height int) {
	t.Helper()
	b.do(t, "resize", func(ctx context.Context) error {
		return chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height)))
	})
}
