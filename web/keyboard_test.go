package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/internal/browsertest"
)

// tabTo presses Tab until the focus is on the element selector matches,
// and fails t if it takes more than limit presses or if an element on the
// way shows no focus outline.
func tabTo(t *testing.T, b *browsertest.Browser, selector string, limit int) {
	t.Helper()
	for range limit {
		b.Keys(t, "\t")
		focus := b.Eval(t, `(e => e.tagName + (e.id ? "#" + e.id : "") + " " + (e.innerText || e.value || "").slice(0, 30))(document.activeElement)`)
		if b.Eval(t, `(s => s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 1)(getComputedStyle(document.activeElement))`) != "true" {
			t.Errorf("%s: the focus on %q is not visible", b.URL(t), focus)
		}
		if b.Eval(t, "document.activeElement.matches("+jsQuote(selector)+")") == "true" {
			return
		}
	}
	t.Fatalf("%s: %d presses of Tab did not reach %s", b.URL(t), limit, selector)
}

func jsQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// A volunteer who uses only the keyboard (Tab, Enter and Space, and keys
// to type with) logs in, opens the dashboard, goes to the compute settings,
// chooses a preset, saves it, and logs out; every element the focus lands
// on shows it.
func TestKeyboardOnlyJourney(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user("keys@example.org", "keyboard-only")
	b := browsertest.New(t)
	base := e.http.URL

	b.Open(t, base+"/login")
	tabTo(t, b, "#email", 10)
	b.Keys(t, "keys@example.org")
	tabTo(t, b, "#password", 3)
	b.Keys(t, "keyboard-only")
	b.Keys(t, "\r")
	if b.URL(t) != base+"/" || !strings.HasPrefix(b.Text(t, "h1"), "Welcome") {
		t.Fatalf("after logging in with Enter: %s, %q", b.URL(t), b.Text(t, "h1"))
	}

	tabTo(t, b, `header a[href="/settings"]`, 10)
	b.Keys(t, "\r")
	if !strings.HasPrefix(b.URL(t), base+"/settings") {
		t.Fatalf("Enter on Settings led to %s", b.URL(t))
	}
	tabTo(t, b, `main a[href="/settings/compute"]`, 20)
	b.Keys(t, "\r")
	if b.URL(t) != base+"/settings/compute" {
		t.Fatalf("Enter on the compute link led to %s", b.URL(t))
	}
	tabTo(t, b, `input[name=preset]`, 20)
	b.Keys(t, " ")
	chosen := b.Eval(t, "document.activeElement.checked && document.activeElement.value")
	if chosen == "false" {
		t.Fatal("Space did not choose the preset")
	}
	tabTo(t, b, `form[action="/settings/compute"] button[type=submit]`, 30)
	b.Keys(t, "\r")
	if b.Status() != 200 {
		t.Fatalf("saving: status %d", b.Status())
	}
	prefs, err := e.store.Computers.Preferences(context.Background(), u.ID)
	if err != nil || prefs.Preset != chosen {
		t.Errorf("saved preset %q (%v), want %q", prefs.Preset, err, chosen)
	}

	tabTo(t, b, "header.site form button", 20)
	b.Keys(t, " ")
	if b.Count(t, "a[href='/login']") == 0 || b.Count(t, "header.site form button") != 0 {
		t.Errorf("Space on Log out did not log out: %s", b.URL(t))
	}
}
