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

// TestBrowserLocations adds, renames and sets up locations in Chromium,
// then moves a computer, names it and sets a project to never on its
// page; it keeps screenshots of both pages at desktop and phone widths.
func TestBrowserLocations(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("Chromium")
	}
	e := newVolunteerEnv(t)
	b := browsertest.New(t)
	base := e.http.URL
	alpha := base + "/computers/" + itoa(e.adaHosts[0].ID)
	b.Open(t, base+"/login")
	b.Fill(t, "#email", "ada@example.org")
	b.Fill(t, "#password", "ada-password")
	b.Click(t, "main form button[type=submit]")

	saved := func(what, word string) {
		t.Helper()
		if b.Status() != http.StatusOK || !strings.Contains(b.Text(t, "[role=status]"), word) {
			t.Fatalf("%s: status %d, want 200 and %q: %q", what, b.Status(), word, b.Text(t, "main"))
		}
	}
	b.Open(t, base+"/settings")
	for _, name := range []string{"Laptop café", "home"} {
		b.Fill(t, "#location-new", name)
		b.Click(t, "#location-new ~ button[type=submit]")
		saved("add "+name, "is added")
	}
	b.Fill(t, `#locations input[name=name][value="Laptop café"]`, "Laptop")
	b.Click(t, `#locations form:has(input[value="Laptop café"]) button[type=submit]`)
	saved("rename", "renamed")
	// A name with markup: 422, the message, and nothing renamed.
	b.Fill(t, `#locations input[name=name][value="home"]`, "<home>")
	b.Click(t, `#locations form:has(input[name=rename_from][value="home"]) button[type=submit]`)
	if b.Status() != http.StatusUnprocessableEntity || !strings.Contains(b.Text(t, "#locations .field-error"), "other than") {
		t.Errorf("markup name: status %d", b.Status())
	}
	b.Open(t, base+"/settings/compute?location=Laptop")
	b.Click(t, `input[name=preset][value=low_power]`)
	b.Click(t, "#compute button[type=submit]")
	saved("Laptop low power", "saved")

	b.Open(t, alpha)
	b.Eval(t, `document.querySelector('#computer-location').value = 'Laptop'`)
	b.Click(t, "#location button[type=submit]")
	saved("move", "location is saved")
	b.Fill(t, "#computer-name", "Ada’s laptop")
	b.Click(t, "#name button[type=submit]")
	saved("name", "name is saved")
	b.Eval(t, `document.querySelector('#computer-project-`+itoa(e.projects[1].ID)+`').value = 'never'`)
	b.Click(t, "#projects button[type=submit]")
	saved("projects", "choices are saved")
	if h1, loc := b.Text(t, "h1"), b.Text(t, "#location h3"); h1 != "Ada’s laptop" || loc != "In force at Laptop: Low power" {
		t.Errorf("computer page: h1 %q, %q", h1, loc)
	}
	st, err := e.store.Computers.ComputerSettings(context.Background(), e.ada.ID, e.adaHosts[0].ID)
	if err != nil || st.Location != "Laptop" || st.Choices[e.projects[1].ID] != accounting.ChoiceNever {
		t.Errorf("stored %+v, %v", st, err)
	}

	for _, w := range []int{1280, 390} {
		b.SetWidth(t, w)
		for name, url := range map[string]string{"computer": alpha, "locations": base + "/settings#locations"} {
			b.Open(t, url)
			shot := screenshotPath(t, name+"-"+itoa(int64(w))+".png")
			b.Screenshot(t, shot)
			checkScreenshotWidth(t, shot, w, 700)
			if overflow := b.Eval(t, "document.documentElement.scrollWidth > window.innerWidth"); overflow != "false" {
				t.Errorf("%s at %d px scrolls sideways", name, w)
			}
		}
	}
}

// checkScreenshotWidth checks that path holds a PNG width pixels wide and
// at least minHeight high.
func checkScreenshotWidth(t *testing.T, path string, width, minHeight int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width != width || cfg.Height < minHeight || len(data) < 10_000 {
		t.Errorf("screenshot %s: %d×%d, %d bytes (%v); want %d wide, at least %d high",
			path, cfg.Width, cfg.Height, len(data), err, width, minHeight)
	}
}
