package web_test

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/browsertest"
)

// TestBrowserSettings changes and saves the preference sections in
// Chromium, and keeps screenshots at desktop and phone widths.
func TestBrowserSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("ada@example.org", "long-enough")
	for _, p := range []accounting.Project{
		{URL: "https://einstein.example.org/", Name: "Einstein@Home", Keywords: []int{1, 3, 4}, Resources: []string{"CPU", "NVIDIA"}},
		{URL: "https://rosetta.example.org/", Name: "Rosetta@home", Keywords: []int{9, 11}},
		{URL: "https://climate.example.org/", Name: "Climate Prediction", Keywords: []int{29, 35, 49}},
	} {
		e.project(p)
	}
	b := browsertest.New(t)
	base := e.http.URL
	b.Open(t, base+"/login")
	b.Fill(t, "#email", "ada@example.org")
	b.Fill(t, "#password", "long-enough")
	b.Click(t, "main form button[type=submit]")

	// From the summary to the science page; the sub-areas fold, closed
	// until opened (no script needed) or answered.
	b.Open(t, base+"/settings")
	b.Click(t, `a[href="/settings/science"]`)
	for _, id := range []string{"#kw-below-9", "#kw-below-1"} {
		if b.Eval(t, "document.querySelector('"+id+"').open") != "false" {
			t.Errorf("%s is open before any answer", id)
		}
		b.Click(t, id+" > summary")
	}
	b.Click(t, `input[aria-label="Protein research: yes"]`)
	b.Click(t, `input[aria-label="Search for Extraterrestrial Intelligence: no"]`)
	b.Click(t, "#science button[type=submit]")
	if b.Status() != http.StatusOK || b.URL(t) != base+"/settings/science?saved=1" || !strings.Contains(b.Text(t, "[role=status]"), "saved") {
		t.Fatalf("saving science: status %d on %s, %q", b.Status(), b.URL(t), b.Text(t, "main"))
	}
	if b.Eval(t, "document.querySelector('#kw-below-9').open && document.querySelector('#kw-below-1').open") != "true" {
		t.Error("the answered sub-areas are folded after saving")
	}
	b.Open(t, base+"/settings/projects")
	b.Click(t, `input[aria-label="Climate Prediction: never"]`)
	b.Click(t, "#projects button[type=submit]")
	b.Open(t, base+"/settings/compute")
	b.Click(t, `input[name=preset][value=low_power]`)
	b.Click(t, "#compute button[type=submit]")
	for page, sel := range map[string]string{"science": `input[aria-label="Protein research: yes"]`,
		"projects": `input[aria-label="Climate Prediction: never"]`, "compute": `input[name=preset][value=low_power]`} {
		b.Open(t, base+"/settings/"+page)
		if got := b.Eval(t, "document.querySelector('"+sel+"').checked"); got != "true" {
			t.Errorf("%s not checked after saving", sel)
		}
	}
	u, _ := e.store.Accounts.Login(context.Background(), "ada@example.org", "long-enough")
	prefs, err := e.store.Computers.Preferences(context.Background(), u.ID)
	if err != nil || prefs.Keywords[11] != "yes" || prefs.Keywords[2] != "no" || prefs.Preset != accounting.PresetLowPower {
		t.Errorf("stored %+v, %v", prefs, err)
	}

	// A bad custom value: 422 and the field message. (The loop above visits
	// the pages in a map's order, so the compute page is opened again.)
	b.Open(t, base+"/settings/compute")
	b.Click(t, `input[name=preset][value=custom]`)
	b.Fill(t, "#max_ncpus_pct", "250")
	b.Click(t, "#compute button[type=submit]")
	if b.Status() != http.StatusUnprocessableEntity || !strings.Contains(b.Text(t, "#max_ncpus_pct-error"), "1 to 100") {
		t.Errorf("bad custom value: status %d", b.Status())
	}
	if v := b.Eval(t, "document.querySelector('#max_ncpus_pct').value"); v != "250" ||
		b.Eval(t, "document.querySelector('input[name=preset][value=custom]').checked") != "true" {
		t.Errorf("the form forgot what was typed: max_ncpus_pct %q", v)
	}

	for _, w := range []int{1280, 390} {
		b.SetWidth(t, w)
		b.Open(t, base+"/settings/science")
		shot := screenshotPath(t, "settings-science-"+itoa(int64(w))+".png")
		b.Screenshot(t, shot)
		data, err := os.ReadFile(shot)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width != w || cfg.Height < 900 {
			t.Errorf("screenshot at %d px: %d×%d (%v)", w, cfg.Width, cfg.Height, err)
		}
		if overflow := b.Eval(t, "document.documentElement.scrollWidth > window.innerWidth"); overflow != "false" {
			t.Errorf("at %d px the page scrolls sideways", w)
		}
	}
}
