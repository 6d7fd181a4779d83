package web_test

import (
	"bytes"
	"context"
	"image/png"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc/exporttest"
	"github.com/cobble-am/cobble/internal/boinctest"
	"github.com/cobble-am/cobble/internal/browsertest"
	"github.com/cobble-am/cobble/static"
	"github.com/cobble-am/cobble/views"
)

// screenshotPath is where a test saves a screenshot: a t.TempDir(), or the
// folder COBBLE_SCREENSHOT_DIR names, to keep them for a person to look at.
func screenshotPath(t *testing.T, name string) string {
	t.Helper()
	dir := os.Getenv("COBBLE_SCREENSHOT_DIR")
	if dir == "" {
		return filepath.Join(t.TempDir(), name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name)
}

// checkScreenshot checks that path holds a PNG of the browser's full width
// and at least minHeight pixels high.
func checkScreenshot(t *testing.T, path string, minHeight int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", path, err)
	}
	if cfg.Width != 1280 || cfg.Height < minHeight || cfg.Height > 20000 || len(data) < 10_000 {
		t.Errorf("screenshot %d×%d pixels, %d bytes; want 1280 wide, at least %d high, 10 kB",
			cfg.Width, cfg.Height, len(data), minHeight)
	}
}

func TestBrowserSignupLoginLogout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := browsertest.New(t)
	base := e.http.URL
	submit := "main form button[type=submit]"

	b.Open(t, base+"/signup")
	b.Fill(t, "#email", "ada@example.org")
	b.Fill(t, "#name", "Ada")
	b.Fill(t, "#password", "long-enough")
	b.Click(t, submit)
	if got := b.URL(t); got != base+"/signup/sent" || !strings.Contains(b.Text(t, "h1"), "Check your email") {
		t.Fatalf("after sign-up the browser is on %s, want the page that sends the volunteer to their mail", got)
	}
	b.Open(t, base+e.signupLink())
	b.Fill(t, "#password", "long-enough")
	b.Click(t, submit)
	if got := b.URL(t); got != base+"/" {
		t.Fatalf("after following the sign-up link the browser is on %s, want the dashboard", got)
	}
	if got := b.Text(t, "h1"); got != "Welcome, Ada" {
		t.Errorf("dashboard heading %q", got)
	}
	if got, want := b.Text(t, "main pre"), "boinccmd --join_acct_mgr http://127.0.0.1:1/ ada@example.org 'your password'"; got != want {
		t.Errorf("boinccmd line %q, want %q", got, want)
	}
	shot := screenshotPath(t, "dashboard.png")
	b.Screenshot(t, shot)
	checkScreenshot(t, shot, 900)

	b.Click(t, "header.site form button") // Log out
	if b.URL(t) != base+"/" || b.Count(t, "a[href='/login']") == 0 || strings.Contains(b.Text(t, "main"), "Welcome, Ada") {
		t.Fatalf("after logging out: %s, %q", b.URL(t), b.Text(t, "h1"))
	}

	b.Open(t, base+"/login")
	b.Fill(t, "#email", "ada@example.org")
	b.Fill(t, "#password", "wrong-password")
	b.Click(t, submit)
	if b.Status() != http.StatusUnprocessableEntity || b.Text(t, "[role=alert]") != "That email and password do not match an account." {
		t.Errorf("wrong password: status %d, page %q", b.Status(), b.Text(t, "main"))
	}
	if got := b.Eval(t, "document.querySelector('#email').value"); got != "ada@example.org" {
		t.Errorf("the log-in form forgot the email: %q", got)
	}

	b.Fill(t, "#password", "long-enough")
	b.Click(t, submit)
	if b.URL(t) != base+"/" || b.Text(t, "h1") != "Welcome, Ada" {
		t.Errorf("after logging in: %s, %q", b.URL(t), b.Text(t, "h1"))
	}
}

// chartPage serves a page of daily charts, with Cobble's stylesheet.
func chartPage(t *testing.T, charts map[string]views.Chart, order []string) *httptest.Server {
	t.Helper()
	assets, err := static.Load()
	if err != nil {
		t.Fatal(err)
	}
	page := views.Page{Title: "Charts", SiteName: "Cobble Test", CSS: assets.Path("style.css")}
	body := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		for _, id := range order {
			c := charts[id]
			if _, err := io.WriteString(w, `<section id="`+id+`"><h2>`+templ.EscapeString(c.Title)+`</h2>`); err != nil {
				return err
			}
			if err := views.DailyChart(c).Render(ctx, w); err != nil {
				return err
			}
			if _, err := io.WriteString(w, `</section>`); err != nil {
				return err
			}
		}
		return nil
	})
	mux := http.NewServeMux()
	mux.Handle(static.Prefix, assets)
	mux.HandleFunc("GET /charts", func(w http.ResponseWriter, r *http.Request) {
		ctx := templ.WithChildren(r.Context(), body)
		if err := views.Layout(page).Render(ctx, w); err != nil {
			t.Errorf("render: %v", err)
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// sampleCharts are a month of estimated CPU and GPU credit with the granted
// credit as a line, 420 days of credit by project, a single day with values
// a chart cannot draw, and a chart of no days; and the bars each should have.
func sampleCharts() (map[string]views.Chart, map[string]int) {
	first := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	days := func(n int) []time.Time {
		out := make([]time.Time, n)
		for i := range out {
			out[i] = first.AddDate(0, 0, i)
		}
		return out
	}
	cpu, gpu, granted := make([]float64, 30), make([]float64, 30), make([]float64, 30)
	for i := range 30 {
		cpu[i] = 1800 + 600*math.Sin(float64(i)/3)
		if i%4 != 3 {
			gpu[i] = 2500 + 40*float64(i)
		}
		granted[i] = 0.93 * (cpu[i] + gpu[i])
	}
	projects := []views.Series{}
	bars := 0
	for p := range 5 {
		v := make([]float64, 420)
		for d := range v {
			if (d/(60+20*p))%3 != 2 { // projects come and go
				v[d] = float64(300*(5-p)) + 200*math.Sin(float64(d+p*17)/9)
				bars++
			}
		}
		projects = append(projects, views.Series{Name: "Project " + strconv.Itoa(p+1) + "@home", Values: v, Class: "p" + strconv.Itoa(p)})
	}
	return map[string]views.Chart{
			"month": {Title: "Estimated and granted credit per day", Days: days(30), YLabel: "credit per day", Series: []views.Series{
				{Name: "CPU (estimated)", Values: cpu, Class: "cpu"},
				{Name: "GPU (estimated)", Values: gpu, Class: "gpu"},
				{Name: "Granted", Values: granted, Kind: views.Line, Class: "granted"},
			}},
			"projects": {Title: "Credit by project", Days: days(420), YLabel: "credit per day", Series: projects},
			"today": {Title: "Today", Days: days(1), Series: []views.Series{
				{Name: "CPU", Values: []float64{12.5}, Class: "cpu"},
				{Name: "GPU", Values: []float64{math.NaN()}, Class: "gpu"},
				{Name: "Granted", Values: []float64{-3}, Kind: views.Line, Class: "granted"},
			}},
			"none": {Title: "No history yet", Series: []views.Series{{Name: "CPU", Class: "cpu"}}},
		}, map[string]int{
			"month": 30 + 23, "projects": bars, "today": 1, "none": 0,
		}
}

func TestBrowserRendersDailyChart(t *testing.T) {
	t.Parallel()
	charts, bars := sampleCharts()
	srv := chartPage(t, charts, []string{"month", "projects", "today", "none"})
	b := browsertest.New(t)
	b.Open(t, srv.URL+"/charts")
	if b.Status() != http.StatusOK {
		t.Fatalf("status %d", b.Status())
	}
	for id, want := range bars {
		if got := b.Count(t, "#"+id+" svg.chart .bars rect"); got != want {
			t.Errorf("%s: %d bars in the browser, want %d", id, got, want)
		}
		// Drawn: the browser gives the chart a box, and the bars size.
		if w := b.Eval(t, "document.querySelector('#"+id+" svg.chart').getBoundingClientRect().width > 600"); w != "true" {
			t.Errorf("%s: the chart is not laid out wide", id)
		}
	}
	if got := b.Count(t, "#month circle.dot"); got != 30 {
		t.Errorf("%d points on the granted line, want 30", got)
	}
	if got := b.Eval(t, "document.querySelector('#month polyline').points.numberOfItems"); got != "30" {
		t.Errorf("the granted line has %s points, want 30", got)
	}
	// Colours come from the stylesheet.
	for sel, want := range map[string]string{
		"#month .bars.cpu rect":     "rgb(47, 111, 94)",
		"#month .line.granted .dot": "rgb(31, 77, 65)",
		"#projects .bars.p2 rect":   "rgb(91, 127, 166)",
	} {
		if got := b.Eval(t, "getComputedStyle(document.querySelector('"+sel+"')).fill"); got != want {
			t.Errorf("%s: fill %s, want %s", sel, got, want)
		}
	}
	if got := b.Text(t, "#month .legend"); !strings.Contains(got, "GPU (estimated)") {
		t.Errorf("legend %q", got)
	}
	if got := b.Text(t, "#none .empty"); got != "No days to show." {
		t.Errorf("an empty chart says %q", got)
	}
	shot := screenshotPath(t, "charts.png")
	b.Screenshot(t, shot)
	checkScreenshot(t, shot, 900)
	t.Logf("screenshot: %s", shot)
}

// An admin logs in, finds a project in the reconciliation overview, runs
// it now, follows the run's progress, and reads the project's report.
func TestBrowserAdminReconciliation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	stats := exportServer(t, []exporttest.Host{{ID: 1004, UserID: 3, TotalCredit: 50}, {ID: 9, UserID: 3, TotalCredit: 10}})
	p := e.project(accounting.Project{URL: fixtureURL, Name: "Fixture Project", StatsURL: stats.URL + "/stats/"})
	e.user("vol@example.org", "secret-pass")
	_, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	e.rpc(join.followUp(fixture(t, "3-sync-with-ec.request.xml", "", "")))
	if _, err := e.store.Accounts.CreateUser(context.Background(), accounting.NewUser{Email: "admin@example.org",
		Password: "long-enough", IsAdmin: true}); err != nil {
		t.Fatal(err)
	}
	b := browsertest.New(t)
	b.Open(t, e.http.URL+"/login")
	b.Fill(t, "#email", "admin@example.org")
	b.Fill(t, "#password", "long-enough")
	b.Click(t, "button[type=submit]")
	b.Open(t, e.http.URL+"/admin/reconciliation")
	if got := b.Text(t, "main"); !strings.Contains(got, "Fixture Project") || !strings.Contains(got, "never reconciled") {
		t.Fatalf("overview:\n%s", got)
	}
	b.Click(t, "a[href='/admin/projects/"+strconv.FormatInt(p.ID, 10)+"/reconciliation']")
	b.Click(t, "#run-now")
	if !strings.Contains(b.URL(t), "/admin/runs/") {
		t.Fatalf("Run now led to %s", b.URL(t))
	}
	runURL := b.URL(t)
	boinctest.WaitFor(t, "the run to finish", 20*time.Second, func() bool {
		b.Open(t, runURL)
		return b.Text(t, "#run-status") != "running"
	})
	if status := b.Text(t, "#run-status"); status != "ok" {
		t.Fatalf("run ended %q:\n%s", status, b.Text(t, "main"))
	}
	if scanned := b.Text(t, "#run-scanned"); scanned != "2" {
		t.Errorf("hosts scanned %q, want 2", scanned)
	}
	if got := b.Text(t, "#orphans"); !strings.Contains(got, "9") {
		t.Errorf("the run page does not list the orphan (host 9): %q", got)
	}
	b.Open(t, e.http.URL+"/admin/projects/"+strconv.FormatInt(p.ID, 10)+"/reconciliation")
	if n := b.Count(t, "svg[role=img]"); n != 2 {
		t.Errorf("%d charts on the project report, want 2", n)
	}
	if got := b.Text(t, "#orphans"); !strings.Contains(got, "9") {
		t.Errorf("the orphan (host 9 of Cobble's account) is not listed: %q", got)
	}
	shot := screenshotPath(t, "admin-project.png")
	b.Screenshot(t, shot)
	checkScreenshot(t, shot, 900)
	b.Click(t, "a[href^='/admin/hosts/']")
	if got := b.Text(t, "main"); !strings.Contains(got, "c4771a3760054c4e7da2f2662c8a484c") {
		t.Errorf("host page:\n%s", got)
	}
	shot = screenshotPath(t, "admin-host.png")
	b.Screenshot(t, shot)
}
