package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/alexedwards/scs/v2/memstore"
)

// failingCommits is a session store whose commits fail, as when the
// request's deadline passed before its session could be saved.
type failingCommits struct{ *memstore.MemStore }

func (failingCommits) Commit(string, []byte, time.Time) error {
	return context.DeadlineExceeded
}

// countingWriter counts the statuses a handler chain writes.
type countingWriter struct {
	*httptest.ResponseRecorder
	statuses []int
}

func (c *countingWriter) WriteHeader(code int) {
	c.statuses = append(c.statuses, code)
	c.ResponseRecorder.WriteHeader(code)
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if len(c.statuses) == 0 {
		c.statuses = append(c.statuses, http.StatusOK)
	}
	return c.ResponseRecorder.Write(b)
}

// When a session cannot be saved as the page starts to be written, the
// visitor gets the session's error page alone: one status, one body, not
// the error page followed by a second status and the page.
func TestSessionSaveFailureWritesOneStatus(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"WriteHeader", "Write"} {
		sm := scs.New()
		sm.Store = failingCommits{memstore.New()}
		sm.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("the session's error: %v", err)
			}
			http.Error(w, "session error page", http.StatusServiceUnavailable)
		}
		h := saveSessions(sm)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sm.Put(r.Context(), "flash", "saved")
			if name == "WriteHeader" {
				w.Header().Set("Location", "/settings")
				w.WriteHeader(http.StatusSeeOther)
			}
			w.Write([]byte("the page"))
		}))
		w := &countingWriter{ResponseRecorder: httptest.NewRecorder()}
		h.ServeHTTP(w, httptest.NewRequest("POST", "/settings/password", nil))
		if len(w.statuses) != 1 || w.statuses[0] != http.StatusServiceUnavailable {
			t.Errorf("%s: statuses written %v, want [503]", name, w.statuses)
		}
		if body := w.Body.String(); strings.Contains(body, "the page") || !strings.Contains(body, "session error page") {
			t.Errorf("%s: body %q, want the session's error page alone", name, body)
		}
		if loc := w.Header().Get("Location"); loc != "" {
			t.Errorf("%s: the error page carries the page's Location %q", name, loc)
		}
	}
}

// deadlineStore is a session store whose commits fail once their context
// is done, as the PostgreSQL store's do.
type deadlineStore struct{ *memstore.MemStore }

func (d deadlineStore) FindCtx(_ context.Context, token string) ([]byte, bool, error) {
	return d.Find(token)
}

func (d deadlineStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.Commit(token, b, expiry)
}

func (d deadlineStore) DeleteCtx(_ context.Context, token string) error { return d.Delete(token) }

// A request whose work ended at its deadline still saves its session and
// answers what it did: the work happened.
func TestSessionSavedPastTheDeadline(t *testing.T) {
	t.Parallel()
	sm := scs.New()
	sm.Store = deadlineStore{memstore.New()}
	sm.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	}
	h := saveSessions(sm)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sm.Put(r.Context(), "flash", "saved")
		<-r.Context().Done()
		http.Redirect(w, r, "/settings", http.StatusSeeOther)
	}))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/settings/password", nil).WithContext(ctx))
	if w.Code != http.StatusSeeOther || !strings.Contains(w.Header().Get("Set-Cookie"), "session=") {
		t.Errorf("status %d, cookie %q: want 303 with the saved session's cookie (%s)", w.Code,
			w.Header().Get("Set-Cookie"), w.Body)
	}
}
