package web_test

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
	"github.com/cobble-am/cobble/internal/locale"
)

// publicEnv is a server with one volunteer whose private details carry
// unique markers: the email, a computer's host name, its nickname, its
// location's name and its CPID.
type publicEnv struct {
	*env
	ada     accounting.User
	client  *http.Client // Ada's session
	markers []string
}

// newPublicEnv makes Ada, 40 days of her history on a biology and an
// astronomy project, with the markers planted, and folds the rollups.
func newPublicEnv(t *testing.T) *publicEnv {
	t.Helper()
	ctx := context.Background()
	e := &publicEnv{env: newEnv(t), markers: []string{"mkemailq7", "mkhostz4", "mknickw2", "mkplacev9", "mkcpidx3"}}
	var err error
	e.ada, err = e.store.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada." + e.markers[0] + "@example.org",
		Name: "Ada", Password: "ada-password"})
	if err != nil {
		t.Fatal(err)
	}
	p1 := e.project(accounting.Project{URL: "https://bio.example.org/", Name: "Bio@Home", Keywords: []int{11}})
	p2 := e.project(accounting.Project{URL: "https://sky.example.org/", Name: "Sky@Home", Keywords: []int{1}})
	today := e.store.Ledger.Today(time.Now(), "UTC")
	if _, err := demodata.Seed(ctx, e.pool, demodata.Spec{UserID: e.ada.ID, Projects: []int64{p1.ID, p2.ID},
		Days: 40, End: today, ConfirmedLag: 1, Computers: []demodata.Computer{
			{Name: "box-" + e.markers[1], NCPUs: 4, PFPOps: 3e9, ClientVersion: "7.20.5"}}}); err != nil {
		t.Fatal(err)
	}
	hosts, err := e.store.Computers.Computers(ctx, e.ada.ID, today)
	if err != nil || len(hosts) != 1 {
		t.Fatalf("Ada's computers: %v, %v", hosts, err)
	}
	h := hosts[0].ID
	for _, step := range []error{
		e.store.Computers.SetComputerName(ctx, e.ada.ID, h, "nick-"+e.markers[2]),
		e.store.Computers.SaveLocation(ctx, e.ada.ID, "place-"+e.markers[3], ""),
		e.store.Computers.SetComputerLocation(ctx, e.ada.ID, h, "place-"+e.markers[3]),
	} {
		if step != nil {
			t.Fatal(step)
		}
	}
	if _, err := e.pool.Exec(ctx, `UPDATE hosts SET host_cpid = $1 WHERE id = $2`, "cpid-"+e.markers[4], h); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Ledger.RebuildRollups(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	e.client = e.session(t, e.ada.Email, "ada-password")
	return e
}

// setPublic posts Ada's public settings and wants status.
func (e *publicEnv) setPublic(t *testing.T, form url.Values, status int) string {
	t.Helper()
	got, body, _ := do(t, e.client, "POST", e.http.URL+"/settings/public", form, nil)
	if got != status {
		t.Fatalf("POST /settings/public %v: status %d, want %d", form, got, status)
	}
	return body
}

// everything ticks every part of a public profile.
func everything(handle string) url.Values {
	return url.Values{"handle": {handle}, "public": {"1"}, "show_totals": {"1"}, "show_projects": {"1"},
		"show_areas": {"1"}, "show_chart": {"1"}, "list_me": {"1"}}
}

// issue posts the certificate form and returns the certificate's path.
func (e *publicEnv) issue(t *testing.T, from, to string) string {
	t.Helper()
	status, _, h := do(t, e.client, "POST", e.http.URL+"/certificates",
		url.Values{"name": {"Ada Lovelace"}, "from": {from}, "to": {to}}, nil)
	loc := h.Get("Location")
	if status != http.StatusSeeOther || !regexp.MustCompile(`^/certificates/[a-z2-7]{26}$`).MatchString(loc) {
		t.Fatalf("POST /certificates: status %d, Location %q", status, loc)
	}
	return loc
}

// variable takes out of a 404 page what differs between requests: the
// request's id and the page's own path.
func variable(body, path string) string {
	body = regexp.MustCompile(`[A-Z2-7]{26}`).ReplaceAllString(body, "REQUEST-ID")
	return strings.ReplaceAll(body, path, "PATH")
}

// With the profile off, every public route of the handle answers the 404
// of an unknown handle, byte for byte but the request id and the path;
// the leaderboards do not list it.
func TestPublicOffIsNotFound(t *testing.T) {
	t.Parallel()
	e := newPublicEnv(t)
	e.setPublic(t, everything("ada-l"), http.StatusSeeOther)
	off := everything("ada-l")
	off.Del("public")
	e.setPublic(t, off, http.StatusSeeOther)
	visitor := e.browser()
	for _, suffix := range []string{"", "/badge.svg", "/badge.png"} {
		status, body, _ := do(t, visitor, "GET", e.http.URL+"/v/ada-l"+suffix, nil, nil)
		uStatus, unknown, _ := do(t, visitor, "GET", e.http.URL+"/v/no-one-here"+suffix, nil, nil)
		if status != http.StatusNotFound || uStatus != http.StatusNotFound {
			t.Errorf("/v/ada-l%s: %d, unknown: %d", suffix, status, uStatus)
		}
		if variable(body, "/v/ada-l"+suffix) != variable(unknown, "/v/no-one-here"+suffix) {
			t.Errorf("/v/ada-l%s: the 404 differs from an unknown handle's:\n%s\n----\n%s", suffix, body, unknown)
		}
	}
	_, boards, _ := do(t, visitor, "GET", e.http.URL+"/leaderboards", nil, nil)
	if strings.Contains(boards, "ada-l") {
		t.Error("the leaderboards list a private profile")
	}
}

// Until an instance's first computation of the leaderboards ends (held
// here by a lock on the profiles), their page says, after a few seconds,
// that they are being computed: a 503 with Retry-After, in the visitor's
// language, never a request held to its deadline.
func TestLeaderboardsBeingComputed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	lock, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(ctx)
	if _, err := lock.Exec(ctx, `LOCK TABLE public_profiles IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string]string{"en": "Being computed", "de": "Wird berechnet"} {
		status, body, h := do(t, e.browser(), "GET", e.http.URL+"/leaderboards", nil,
			http.Header{"Accept-Language": {lang}})
		if status != http.StatusServiceUnavailable || h.Get("Retry-After") != "30" || !strings.Contains(body, want) {
			t.Errorf("%s: status %d, Retry-After %q, want 503, 30 and %q:\n%s", lang, status, h.Get("Retry-After"), want, body)
		}
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, body, _ := do(t, e.browser(), "GET", e.http.URL+"/leaderboards", nil, nil)
		if status == http.StatusOK && strings.Contains(body, "Leaderboards") {
			return
		}
		if status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("after the lock was released: status %d", status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Handles malformed, reserved or taken are 422 with the handle's message,
// and change nothing.
func TestPublicHandleRefused(t *testing.T) {
	t.Parallel()
	e := newPublicEnv(t)
	bob := e.user("bob@example.org", "bob-password")
	if err := e.store.Public.SetPublicProfile(context.Background(), bob.ID,
		accounting.PublicProfile{Handle: "taken-one", Public: true}); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"Ada", "ab", "admin", "api", "settings", "login", "taken-one", "a b", "ada\u00e4"} {
		body := e.setPublic(t, everything(h), http.StatusUnprocessableEntity)
		if !strings.Contains(body, `id="handle-error"`) {
			t.Errorf("handle %q: no message on the handle", h)
		}
	}
	if p, err := e.store.Public.PublicProfile(context.Background(), e.ada.ID); err != nil || p.Handle != "" {
		t.Errorf("Ada's profile after refusals: %+v, %v", p, err)
	}
}

// Nothing private appears in any public response: the profile with every
// part ticked, both badges, the leaderboards, the certificate's page and
// its PDF's text, read with pdftotext. The PDF states the certified
// figures, and the PNG decodes at its stated size.
func TestPublicResponsesHoldNothingPrivate(t *testing.T) {
	t.Parallel()
	e := newPublicEnv(t)
	e.setPublic(t, everything("ada-l"), http.StatusSeeOther)
	today := e.store.Ledger.Today(time.Now(), "UTC")
	cert := e.issue(t, today.AddDate(0, 0, -20).Format(time.DateOnly), today.Format(time.DateOnly))
	visitor := e.browser()
	bodies := map[string]string{}
	for _, path := range []string{"/v/ada-l", "/v/ada-l/badge.svg", "/v/ada-l/badge.png", "/leaderboards",
		"/leaderboards?area=9", "/leaderboards?area=1", cert, cert + ".pdf"} {
		status, body, _ := do(t, visitor, "GET", e.http.URL+path, nil, nil)
		if status != http.StatusOK {
			t.Fatalf("GET %s: status %d", path, status)
		}
		bodies[path] = body
	}
	bodies["pdf text"] = pdfText(t, []byte(bodies[cert+".pdf"]))
	for path, body := range bodies {
		for _, m := range e.markers {
			if strings.Contains(strings.ToLower(body), m) {
				t.Errorf("%s holds the private marker %s", path, m)
			}
		}
	}
	c, err := e.store.Public.Certificate(context.Background(), strings.TrimPrefix(cert, "/certificates/"))
	if err != nil {
		t.Fatal(err)
	}
	l := locale.English()
	for _, want := range []string{"Ada Lovelace", l.Credit(c.Confirmed), l.Credit(c.Estimated), "Bio@Home", "Sky@Home", c.Code} {
		if !strings.Contains(bodies["pdf text"], want) {
			t.Errorf("the PDF's text lacks %q:\n%s", want, bodies["pdf text"])
		}
	}
	img, err := png.Decode(bytes.NewReader([]byte(bodies["/v/ada-l/badge.png"])))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 400 || b.Dy() != 80 {
		t.Errorf("badge.png is %v, want 400×80", b)
	}
	if !strings.Contains(bodies["/v/ada-l/badge.svg"], `width="400" height="80"`) {
		t.Error("badge.svg does not state 400×80")
	}
}

// pdfText is the text of a PDF, as pdftotext reads it.
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatal("pdftotext is needed (scripts/deps.sh poppler-utils)")
	}
	cmd := exec.Command("pdftotext", "-layout", "-", "-")
	cmd.Stdin = bytes.NewReader(pdf)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}
