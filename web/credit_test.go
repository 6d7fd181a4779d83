package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
	"github.com/cobble-am/cobble/accounting/reconcile"
)

// creditEnv is Cobble with 6 volunteers of 4 computers each (one with a
// GPU) on projects One, Two and Three, a volunteer of 2 computers on Few,
// and a volunteer whose 3 computers' matches with One were not verified
// but whose ledgers hold absurd granted credit; the measure computed.
type creditEnv struct {
	*env
	emails   []string
	projects []accounting.Project
}

func newCreditEnv(t *testing.T) *creditEnv {
	t.Helper()
	e := &creditEnv{env: newEnv(t)}
	ctx := context.Background()
	for _, name := range []string{"One", "Two", "Three", "Few"} {
		e.projects = append(e.projects, e.project(accounting.Project{URL: "https://" + strings.ToLower(name) +
			".example.org/", Name: name}))
	}
	main := []int64{e.projects[0].ID, e.projects[1].ID, e.projects[2].ID}
	today := e.store.Ledger.Today(time.Now(), "UTC")
	for v := range 8 {
		email := fmt.Sprintf("credit-volunteer-%d@example.org", v)
		e.emails = append(e.emails, email)
		u := e.user(email, "a-password-1")
		s := demodata.Spec{UserID: u.ID, Projects: main, Days: 40, End: today, ConfirmedLag: 3}
		for c := range 4 {
			s.Computers = append(s.Computers, demodata.Computer{Name: fmt.Sprintf("box-%d-%d", v, c), NCPUs: 4,
				PFPOps: 3e9, ClientVersion: "8.0.2", GPUs: c / 3, GPUPeakFLOPS: 5e12})
		}
		switch v {
		case 6:
			s.Projects, s.Computers = []int64{e.projects[3].ID}, s.Computers[:2]
		case 7:
			s.Projects, s.Computers = main[:1], s.Computers[:3]
		}
		if _, err := demodata.Seed(ctx, e.pool, s); err != nil {
			t.Fatal(err)
		}
		if v == 7 {
			e.unverify(u.ID)
		}
	}
	rec := reconcile.New(e.store, e.pool, reconcile.Options{})
	for _, p := range e.projects {
		if err := rec.RefreshRatios(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Fairness.Measure(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

// unverify turns the volunteer's matches into unverified ones, as a run
// lists them, and gives their computers absurd granted credit.
func (e *creditEnv) unverify(userID int64) {
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO reconcile_unverified (run_id, host_id, user_id, project_hostid, reason)
			SELECT DISTINCT run_id, host_id, user_id, project_hostid, 'planted' FROM export_credit WHERE user_id = $1`,
		`DELETE FROM export_credit WHERE user_id = $1`,
		`UPDATE confirmed_ledger SET granted_micro = granted_micro * 1000 WHERE user_id = $1`,
	} {
		if _, err := e.pool.Exec(ctx, q, userID); err != nil {
			e.t.Fatal(err)
		}
	}
}

// creditJSONKeys are every key /credit.json may have: the contract's and
// the aggregates' names, none of a host or a volunteer.
var creditJSONKeys = []string{"window_days", "computed_at", "min_hosts", "min_volunteers", "hosts", "volunteers",
	"projects", "pairs", "url", "name", "exports", "enough_data", "ratio_median", "ratio_ci95", "ratio_iqr",
	"position", "share_above_1_1", "gpu_hosts", "cpu_hosts", "gpu_vs_cpu", "granted_per_cpu_hour",
	"granted_per_gpu_hour", "a", "b"}

// jsonKeys collects the keys of every object in v.
func jsonKeys(v any, into map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			into[k] = true
			jsonKeys(x, into)
		}
	case []any:
		for _, x := range v {
			jsonKeys(x, into)
		}
	}
}

// The measure's page and downloads name no host, volunteer, CPID or
// project host id, and the unverified matches do not count.
func TestCreditShowsAggregatesOnly(t *testing.T) {
	t.Parallel()
	e := newCreditEnv(t)
	var secrets []string
	rows, _ := e.pool.Query(context.Background(), `SELECT h.host_cpid, h.domain_name, hp.project_hostid::text
		FROM hosts h JOIN host_projects hp ON hp.host_id = h.id`)
	for rows.Next() {
		var cpid, name, hostid string
		if err := rows.Scan(&cpid, &name, &hostid); err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, cpid, name, hostid)
	}
	secrets = slices.DeleteFunc(append(secrets, e.emails...), func(s string) bool { return s == "" })
	if len(secrets) < 100 {
		t.Fatalf("only %d identifiers to look for", len(secrets))
	}
	for _, path := range []string{"/credit", "/credit?window=90", "/credit.json", "/credit.csv?window=90"} {
		status, body, _ := do(t, http.DefaultClient, "GET", e.http.URL+path, nil, nil)
		if status != 200 {
			t.Fatalf("%s: status %d", path, status)
		}
		for _, s := range secrets {
			if regexp.MustCompile(`\b` + regexp.QuoteMeta(s) + `\b`).MatchString(body) {
				t.Errorf("%s shows %q", path, s)
			}
		}
		if strings.Contains(body, "/admin/") || strings.Contains(body, "host_id") {
			t.Errorf("%s links to a host or names a host id", path)
		}
	}
	// The OpenAPI document describes /credit.json: each window's answer
	// matches it, and a window it does not name is a 404.
	api := newAPIClient(t, e.http.URL, "")
	for _, path := range []string{"/credit.json", "/credit.json?window=90", "/credit.json?window=30"} {
		if a := api.get(path); a.status != http.StatusOK {
			t.Errorf("%s: status %d", path, a.status)
		}
	}
	if a := api.get("/credit.json?window=7"); a.status != http.StatusNotFound {
		t.Errorf("/credit.json?window=7: status %d, want 404", a.status)
	}
	_, body, _ := do(t, http.DefaultClient, "GET", e.http.URL+"/credit.json", nil, nil)
	var doc any
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	jsonKeys(doc, keys)
	for k := range keys {
		if !slices.Contains(creditJSONKeys, k) {
			t.Errorf("/credit.json has the key %q", k)
		}
	}
}

// creditDoc is the part of /credit.json the tests read.
type creditDoc struct {
	WindowDays int             `json:"window_days"`
	Projects   []creditProject `json:"projects"`
	Pairs      []struct {
		A, B        string
		Hosts       int      `json:"hosts"`
		EnoughData  bool     `json:"enough_data"`
		RatioMedian *float64 `json:"ratio_median"`
	} `json:"pairs"`
}

// creditProject is a project of /credit.json, as the tests read it.
type creditProject struct {
	Name        string    `json:"name"`
	Hosts       int       `json:"hosts"`
	Volunteers  int       `json:"volunteers"`
	EnoughData  bool      `json:"enough_data"`
	RatioMedian *float64  `json:"ratio_median"`
	RatioCI95   []float64 `json:"ratio_ci95"`
	ShareAbove  *float64  `json:"share_above_1_1"`
	GPUvsCPU    *float64  `json:"gpu_vs_cpu"`
}

// The downloads follow the contract: per window, figures only above the
// threshold, verified hosts only, a CSV row per project and per pair; a
// window not kept is not found.
func TestCreditDownloads(t *testing.T) {
	t.Parallel()
	e := newCreditEnv(t)
	_, body, h := do(t, http.DefaultClient, "GET", e.http.URL+"/credit.json?window=90", nil, nil)
	var doc creditDoc
	if err := json.Unmarshal([]byte(body), &doc); err != nil || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		t.Fatalf("%v %q:\n%s", err, h.Get("Content-Type"), body)
	}
	if doc.WindowDays != 90 || len(doc.Projects) != 4 || len(doc.Pairs) != 12 {
		t.Fatalf("window %d, %d projects, %d pairs; want 90, 4, 12", doc.WindowDays, len(doc.Projects), len(doc.Pairs))
	}
	for _, p := range doc.Projects {
		few := p.Name == "Few"
		if p.EnoughData == few || (p.RatioMedian == nil) != few || (len(p.RatioCI95) == 2) == few {
			t.Errorf("%s: enough %v, median %v, interval %v", p.Name, p.EnoughData, p.RatioMedian, p.RatioCI95)
		}
		if !few && (p.Hosts != 24 || p.Volunteers != 6 || *p.RatioMedian > 1.1 || *p.RatioMedian < 0.8) {
			t.Errorf("%s: %d hosts of %d volunteers, median %v; want 24 verified of 6, near 0.95", p.Name, p.Hosts,
				p.Volunteers, *p.RatioMedian)
		}
	}
	for _, p := range doc.Pairs {
		few := strings.Contains(p.A+p.B, "few")
		if p.EnoughData == few || (p.RatioMedian == nil) != few {
			t.Errorf("pair %s ÷ %s: enough %v, median %v", p.A, p.B, p.EnoughData, p.RatioMedian)
		}
	}
	status, text, h := do(t, http.DefaultClient, "GET", e.http.URL+"/credit.csv", nil, nil)
	records, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if status != 200 || err != nil || len(records) != 1+4+12 || records[0][1] != "kind" || h.Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Errorf("CSV: status %d, %v, %d records:\n%s", status, err, len(records), text)
	}
	for _, bad := range []string{"7", "abc", "-30", "30x", "1e9"} {
		if status, _, _ := do(t, http.DefaultClient, "GET", e.http.URL+"/credit.json?window="+bad, nil, nil); status != 404 {
			t.Errorf("window %q: status %d, want 404", bad, status)
		}
	}
}

// A project's reconciliation page shows admins its fairness figures and
// the hosts that pull them most; a project below the threshold says so.
func TestCreditOnTheReconciliationPage(t *testing.T) {
	t.Parallel()
	e := newCreditEnv(t)
	admin := e.login("admin@example.org", true)
	_, page, _ := do(t, admin, "GET", e.http.URL+"/admin/projects/"+itoa(e.projects[0].ID)+"/reconciliation", nil, nil)
	figures := regexp.MustCompile(`(?s)<table class="data" id="fairness-figures">.*?</table>`).FindString(page)
	pulling := regexp.MustCompile(`(?s)<table class="data" id="fairness-pulling">.*?</table>`).FindString(page)
	if strings.Count(figures, "<tr>") != 3 || !strings.Contains(figures, "30 days") || !strings.Contains(figures, ">24<") {
		t.Errorf("One's figures:\n%s", figures)
	}
	if n := strings.Count(pulling, `href="/admin/hosts/`); n != 10 {
		t.Errorf("%d hosts pulling One's figures listed, want 10:\n%s", n, pulling)
	}
	if strings.Contains(pulling, "credit-volunteer-7@") {
		t.Errorf("an unverified host pulls the figures:\n%s", pulling)
	}
	_, page, _ = do(t, admin, "GET", e.http.URL+"/admin/projects/"+itoa(e.projects[3].ID)+"/reconciliation", nil, nil)
	if !strings.Contains(page, "Not enough data (fewer than 20 hosts or 5 volunteers)") || strings.Contains(page, "fairness-pulling") {
		t.Errorf("Few's page shows figures")
	}
}

// Before any measure, and with no verified hosts, the page says nothing
// has been measured and the downloads are empty but well-formed.
func TestCreditBeforeAnyMeasure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	status, page, _ := do(t, http.DefaultClient, "GET", e.http.URL+"/credit", nil, nil)
	if status != 200 || !strings.Contains(page, `id="credit-none"`) || strings.Contains(page, "credit-projects") {
		t.Errorf("status %d; the page before any measure:\n%s", status, page)
	}
	_, body, _ := do(t, http.DefaultClient, "GET", e.http.URL+"/credit.json?window=90", nil, nil)
	var doc map[string]any
	if err := json.Unmarshal([]byte(body), &doc); err != nil || doc["computed_at"] != "" ||
		len(doc["projects"].([]any)) != 0 || len(doc["pairs"].([]any)) != 0 {
		t.Errorf("%v: %s", err, body)
	}
}

// The page opens with its figures in plain words (issue 45, item 9): the
// range of the medians of the projects with enough data and of their GPU ÷
// CPU figures, read here from the measure's own download, and the projects
// left out; in English and German. The measure's projects grant about the
// same, and have too few GPU computers, so the stored measure is moved
// apart first: One grants 1.4 times as much, Two and Three pay GPUs more.
func TestCreditSummary(t *testing.T) {
	t.Parallel()
	e := newCreditEnv(t)
	for id, q := range map[int64]string{
		e.projects[0].ID: `UPDATE credit_projects SET ratio_median = ratio_median * 1.4 WHERE project_id = $1`,
		e.projects[1].ID: `UPDATE credit_projects SET gpu_vs_cpu = 2.1 WHERE project_id = $1`,
		e.projects[2].ID: `UPDATE credit_projects SET gpu_vs_cpu = 1.3 WHERE project_id = $1`,
	} {
		if _, err := e.pool.Exec(context.Background(), q, id); err != nil {
			t.Fatal(err)
		}
	}
	_, body, _ := do(t, http.DefaultClient, "GET", e.http.URL+"/credit.json?window=90", nil, nil)
	var doc creditDoc
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	ratio := func(p creditProject) *float64 { return p.RatioMedian }
	gpu := func(p creditProject) *float64 { return p.GPUvsCPU }
	lo, hi := extremes(doc.Projects, ratio)
	glo, ghi := extremes(doc.Projects, gpu)
	if lo.Name == hi.Name || glo.Name == ghi.Name {
		t.Fatalf("the test measure has no range: %s", body)
	}
	num := func(v *float64, sep string) string {
		return strings.Replace(strconv.FormatFloat(*v, 'f', 2, 64), ".", sep, 1)
	}
	for _, c := range []struct {
		lang  string
		wants []string
	}{
		{"en", []string{"over the last 90 days, the 3 projects with enough data granted between " + num(lo.RatioMedian, ".") +
			" × (" + lo.Name + ") and " + num(hi.RatioMedian, ".") + " × (" + hi.Name + ") the credit",
			"1 other project has too little data yet and is left out.",
			"were granted between " + num(glo.GPUvsCPU, ".") + " × (" + glo.Name + ") and " + num(ghi.GPUvsCPU, ".") +
				" × (" + ghi.Name + ") what computers using only their processors"}},
		{"de", []string{"die 3 Projekte mit genug Daten zwischen dem " + num(lo.RatioMedian, ",") + "-Fachen (" + lo.Name +
			") und dem " + num(hi.RatioMedian, ",") + "-Fachen (" + hi.Name + ") des Credits vergeben",
			"1 weiteres Projekt hat noch zu wenige Daten", "bekamen zwischen dem " + num(glo.GPUvsCPU, ",") +
				"-Fachen (" + glo.Name + ") und dem " + num(ghi.GPUvsCPU, ",") + "-Fachen (" + ghi.Name + ")"}},
	} {
		_, page, _ := do(t, http.DefaultClient, "GET", e.http.URL+"/credit?window=90", nil,
			http.Header{"Accept-Language": {c.lang}})
		summary := regexp.MustCompile(`(?s)<div class="notice" id="credit-summary">.*?</div>`).FindString(page)
		for _, want := range c.wants {
			if !strings.Contains(summary, want) {
				t.Errorf("%s: the summary does not say %q:\n%s", c.lang, want, summary)
			}
		}
	}
}

// extremes are the projects with the lowest and highest value of those
// that have one.
func extremes(ps []creditProject, value func(creditProject) *float64) (lo, hi creditProject) {
	for _, p := range ps {
		if v := value(p); v != nil {
			if lo.Name == "" || *v < *value(lo) {
				lo = p
			}
			if hi.Name == "" || *v > *value(hi) {
				hi = p
			}
		}
	}
	return lo, hi
}
