package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/internal/browsertest"
)

// TestBrowserPublicSide walks the public side in Chromium: Ada turns her
// profile on from the settings, issues a certificate from the dashboard,
// and her profile, the leaderboards, the certificate and her badges
// embedded in another site's page (as SVG and as PNG) are shot at 1280
// and 390 px, in English and in German.
func TestBrowserPublicSide(t *testing.T) {
	t.Parallel()
	e := newPublicEnv(t)
	b := browsertest.New(t)
	base := e.http.URL
	b.Open(t, base+"/login")
	b.Fill(t, "#email", e.ada.Email)
	b.Fill(t, "#password", "ada-password")
	b.Click(t, "main form button[type=submit]")
	b.Open(t, base+"/settings")
	b.Click(t, "#public-settings-link a")
	b.Fill(t, "#handle", "ada-l")
	for _, box := range []string{"#public", "#show_totals", "#show_projects", "#show_areas", "#show_chart", "#list_me",
		"#in_stats", "#stats_hosts"} {
		b.Click(t, box)
	}
	b.Click(t, "main form button[type=submit]")
	if b.Count(t, "#public-link a") != 1 || b.Count(t, "#stats-id button") != 1 {
		t.Fatalf("after saving: %q", b.Text(t, "main"))
	}
	b.Open(t, base+"/")
	b.Click(t, `main a[href="/certificates"]`)
	b.Fill(t, "#name", "Ada Lovelace")
	b.Click(t, "main form button[type=submit]")
	cert := strings.TrimPrefix(b.URL(t), base)
	if !strings.HasPrefix(cert, "/certificates/") || !strings.Contains(b.Text(t, "#certified"), "Ada Lovelace") {
		t.Fatalf("after issuing: %s, %q", cert, b.Text(t, "main"))
	}
	pages := map[string]string{"public-settings": base + "/settings/public", "public-profile": base + "/v/ada-l",
		"leaderboards": base + "/leaderboards", "leaderboards-biology": base + "/leaderboards?area=9",
		"certificate": base + cert, "certificates": base + "/certificates"}
	var embed string
	for _, lang := range []string{"en", "de"} {
		if err := e.store.Accounts.SetLanguage(context.Background(), e.ada.ID, lang); err != nil {
			t.Fatal(err)
		}
		// The badge is in its owner's language; a query of its own
		// passes the browser's cache of the other language's.
		embed = badgePage(t, base+"/v/ada-l", "?"+lang)
		pages["badge-embedded"] = embed
		for name, url := range pages {
			for _, w := range []int{1280, phoneWidth} {
				b.SetWidth(t, w)
				b.Open(t, url)
				if b.Status() != http.StatusOK {
					t.Errorf("%s: status %d", name, b.Status())
				}
				pageShot(t, b, fmt.Sprintf("%s-%s-%d", name, lang, w), w)
			}
		}
	}
	b.SetWidth(t, 1280)
	b.Open(t, embed)
	for _, img := range []string{"#svg", "#png"} {
		if got := b.Eval(t, `document.querySelector("`+img+`").naturalWidth`); got != "400" {
			t.Errorf("the embedded badge %s is %s pixels wide, want 400 (not loaded?)", img, got)
		}
	}
}

// badgePage serves another site's page that embeds the profile's badges
// as <img>, the way a forum signature does, and returns its address.
func badgePage(t *testing.T, profile, query string) string {
	t.Helper()
	page := `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A forum</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family:sans-serif;margin:1rem"><h1>A forum post</h1><p>My computers crunch for science.</p>
<p>SVG: <img id="svg" src="` + profile + `/badge.svg` + query + `" width="400" height="80" style="max-width:100%;height:auto" alt="badge as SVG"></p>
<p>PNG: <img id="png" src="` + profile + `/badge.png` + query + `" width="400" height="80" style="max-width:100%;height:auto" alt="badge as PNG"></p>
</body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
