package web

import (
	"context"
	"maps"
	"net/http"
	"time"

	"github.com/alexedwards/scs/v2"
)

// saveSessions loads each request's session and saves it as the response
// starts, as scs's LoadAndSave does, with two differences. Saving gets
// sessionSaveGrace of its own, past the request's deadline: the session
// records what the request did (a password changed, a log-in), and a
// change made just before the deadline must not be answered 503. And a
// session that cannot be saved gives the visitor the session's error page
// (sm.ErrorFunc) alone, with the headers of before the handler ran, where
// LoadAndSave writes that page and then the handler's status and page.
func saveSessions(sm *scs.SessionManager) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("Vary", "Cookie")
			var token string
			if c, err := r.Cookie(sm.Cookie.Name); err == nil {
				token = c.Value
			}
			ctx, err := sm.Load(r.Context(), token)
			if err != nil {
				sm.ErrorFunc(w, r, err)
				return
			}
			r = r.WithContext(ctx)
			sw := &sessionWriter{ResponseWriter: w, r: r, sm: sm, before: w.Header().Clone()}
			next.ServeHTTP(sw, r)
			sw.save()
		})
	}
}

// sessionSaveGrace bounds saving a session once its request is done; the
// server's write timeout leaves room for it past the request's deadline.
const sessionSaveGrace = 5 * time.Second

// sessionWriter saves the session before the first byte of the response.
type sessionWriter struct {
	http.ResponseWriter
	r      *http.Request
	sm     *scs.SessionManager
	before http.Header // the headers before the handler ran

	saved  bool // save ran
	failed bool // and wrote the error page: the handler's writes go nowhere
}

// save saves the session, once, and sets or clears its cookie. When the
// session cannot be saved, it writes the session's error page instead of
// the handler's response, and says false.
func (w *sessionWriter) save() bool {
	if w.saved {
		return !w.failed
	}
	w.saved = true
	ctx := w.r.Context()
	switch w.sm.Status(ctx) {
	case scs.Modified:
		save, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionSaveGrace)
		defer cancel()
		token, expiry, err := w.sm.Commit(save)
		if err != nil {
			w.failed = true
			h := w.ResponseWriter.Header()
			clear(h)
			maps.Copy(h, w.before)
			w.sm.ErrorFunc(w.ResponseWriter, w.r, err)
			return false
		}
		w.sm.WriteSessionCookie(ctx, w.ResponseWriter, token, expiry)
	case scs.Destroyed:
		w.sm.WriteSessionCookie(ctx, w.ResponseWriter, "", time.Time{})
	}
	return true
}

func (w *sessionWriter) WriteHeader(code int) {
	if w.save() {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *sessionWriter) Write(b []byte) (int, error) {
	if !w.save() {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
