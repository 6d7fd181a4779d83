package handlers

import (
	"net/http"
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/views"
)

// Audit shows the audit log, newest first, filtered by admin, kind and
// days, 50 entries a page.
func (a *Admin) Audit(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := accounting.AuditFilter{Actor: q.Get("actor"), Kind: accounting.AuditKind(q.Get("kind")), Limit: 50}
	f.From, _ = time.Parse(time.DateOnly, q.Get("from"))
	f.To, _ = time.Parse(time.DateOnly, q.Get("to"))
	f.Before, _ = strconv.ParseInt(q.Get("before"), 10, 64)
	entries, err := a.admin.Audit(r.Context(), f)
	if err != nil {
		return err
	}
	actors, err := a.admin.AuditActors(r.Context())
	if err != nil {
		return err
	}
	d := views.AuditPage{Filter: f, Entries: entries, Actors: actors, Query: q}
	a.render(w, r, http.StatusOK, views.Audit(a.page(r, "Audit log"), d))
	return nil
}
