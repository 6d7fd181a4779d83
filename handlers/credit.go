package handlers

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/views"
)

// creditWindow reads ?window=: the days of one of the windows measured,
// reconcile.FairnessWindows[0] when absent; any other value is not found.
func creditWindow(r *http.Request) (int, error) {
	v := r.URL.Query().Get("window")
	if v == "" {
		return reconcile.FairnessWindows[0], nil
	}
	days, err := strconv.Atoi(v)
	if err != nil || !slices.Contains(reconcile.FairnessWindows, days) {
		return 0, accounting.ErrNotFound
	}
	return days, nil
}

// creditMeasure reads the stored measure over the request's window.
func (a *Public) creditMeasure(r *http.Request) (reconcile.Fairness, error) {
	days, err := creditWindow(r)
	if err != nil {
		return reconcile.Fairness{}, err
	}
	return a.fairness.Fairness(r.Context(), days)
}

// Credit is the public page on whether credit is fair (docs/CREDIT.md):
// aggregates only, served from the stored measure.
func (a *Public) Credit(w http.ResponseWriter, r *http.Request) error {
	f, err := a.creditMeasure(r)
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.Credit(a.page(r, tr(r, "credit.page_title")),
		views.CreditPage{Fairness: f, Windows: reconcile.FairnessWindows}))
	return nil
}

// CreditJSON is the measure as JSON, a contract documented in
// docs/CREDIT.md: scripts read these names.
func (a *Public) CreditJSON(w http.ResponseWriter, r *http.Request) error {
	f, err := a.creditMeasure(r)
	if err != nil {
		return err
	}
	body, err := json.MarshalIndent(creditDocument(f), "", "  ")
	if err != nil {
		return err
	}
	creditHeaders(w, "application/json", "json", f.WindowDays)
	w.Write(append(body, '\n'))
	return nil
}

// CreditCSV is the measure as CSV: a row per project, then a row per
// ordered pair, under the columns of creditCSVColumns.
func (a *Public) CreditCSV(w http.ResponseWriter, r *http.Request) error {
	f, err := a.creditMeasure(r)
	if err != nil {
		return err
	}
	creditHeaders(w, "text/csv; charset=utf-8", "csv", f.WindowDays)
	cw := csv.NewWriter(w)
	cw.Write(creditCSVColumns)
	for _, p := range f.Projects {
		cw.Write(projectCSV(f.WindowDays, p))
	}
	for _, p := range f.Pairs {
		cw.Write(pairCSV(f.WindowDays, p))
	}
	cw.Flush()
	return cw.Error()
}

// creditHeaders sets a download's type and name; the figures change only
// when measured again, so caches may keep them a few minutes.
func creditHeaders(w http.ResponseWriter, contentType, ext string, days int) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("Content-Disposition", `inline; filename="credit-`+strconv.Itoa(days)+`d.`+ext+`"`)
}

// creditTime is a measure's time in RFC 3339, or "" when never measured.
func creditTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// pullingShown is how many hosts a project's reconciliation page lists
// as pulling its credit fairness figures most.
const pullingShown = 10
