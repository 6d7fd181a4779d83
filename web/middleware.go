package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/go-chi/chi/v5"

	"github.com/cobble-am/cobble/handlers"
	"github.com/cobble-am/cobble/internal/primary"
)

// maxFormBody bounds what a page form may post.
const maxFormBody = 64 << 10

// middleware holds what the cross-cutting handlers need.
type middleware struct {
	log         *slog.Logger
	sessions    *scs.SessionManager
	crossOrigin func(http.Handler) http.Handler
	ping        func(context.Context) error
	primary     *primary.Watcher // which server is the primary
	metrics     *metrics
	timeout     time.Duration  // each request's deadline
	version     string         // the build's version on one line, or ""
	proxies     []netip.Prefix // trusted proxies, whose X-Request-Id is kept
	replica     bool           // a read replica takes some reads (readYourWrites)
}

// readYourWrites is the readYourWrites middleware when there is a read
// replica, else nothing.
func (m middleware) readYourWrites(next http.Handler) http.Handler {
	if !m.replica {
		return next
	}
	return readYourWrites(next)
}

// deadline gives each request's context a deadline: the database calls
// made with it fail once it passes, and the handler answers 503.
func (m middleware) deadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), m.timeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// logRequests writes one line per request: method, route pattern, path,
// status, bytes and duration. The path is handlers.LogPath's, which never
// holds a secret: the route pattern stands for a path with a token in it.
// The status is the one sent; when the reply could not be written (the
// client went away, or the server's write timeout closed the connection),
// the line says so with write_error.
func (m middleware) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		route := routePattern(r)
		attrs := []slog.Attr{slog.String("method", r.Method), slog.String("route", route),
			slog.String("path", handlers.LogPath(route, r.URL.Path)), slog.Int("status", rec.status),
			slog.Int("bytes", rec.bytes), slog.Duration("duration", time.Since(start))}
		level := slog.LevelInfo
		if rec.writeErr != nil {
			level = slog.LevelWarn
			attrs = append(attrs, slog.String("write_error", rec.writeErr.Error()))
		}
		m.log.LogAttrs(context.WithoutCancel(r.Context()), level, "request", attrs...)
	})
}

// routePattern returns the pattern of the route that r matched, or "".
func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		return rc.RoutePattern()
	}
	return ""
}

// recoverPanics turns a panic into a logged 500 instead of a dropped connection.
func (m middleware) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				m.log.ErrorContext(r.Context(), "panic", "path", handlers.LogPath(routePattern(r), r.URL.Path), "panic", v,
					"stack", string(debug.Stack()))
				http.Error(w, "Cobble hit an internal error; it has been logged. If you report this, quote: "+
					handlers.RequestID(r.Context()), http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

func (m middleware) securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:")
		next.ServeHTTP(w, r)
	})
}

// health answers 200 while the process serves, whatever the database does:
// it tells a supervisor whether to restart Cobble. Whether Cobble can do
// its work is ready's question.
func (m middleware) health(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte("ok\n"))
}

// maxUploadBody bounds a file upload (an admin's project list).
const maxUploadBody = 1 << 20

// limitForms caps a page's request body: maxUploadBody for a file upload,
// maxFormBody for anything else.
func limitForms(next http.Handler) http.Handler {
	small, large := limitBody(maxFormBody)(next), limitBody(maxUploadBody)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
			large.ServeHTTP(w, r)
			return
		}
		small.ServeHTTP(w, r)
	})
}

// ready answers 200 when PostgreSQL answers within a second, 503 otherwise:
// a load balancer sends no traffic to an instance that cannot serve it.
// The body's first line says which; the next names the build's version,
// and the last the primary database server (the last one seen, when it
// does not answer).
func (m middleware) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	state, status := "ready", http.StatusOK
	if err := m.ping(ctx); err != nil {
		state, status = "database unavailable", http.StatusServiceUnavailable
	}
	if m.version != "" {
		state += "\nCobble " + m.version
	}
	m.primary.Check(ctx)
	state += "\n" + primaryLine(m.primary.Status())
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	w.Write([]byte(state + "\n"))
}

// limitBody caps the request body at n bytes.
func limitBody(n int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, n)
			next.ServeHTTP(w, r)
		})
	}
}

type statusRecorder struct {
	http.ResponseWriter
	status, bytes int
	wrote         bool
	writeErr      error // the first failed write
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	s.wrote = true
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	if err != nil && s.writeErr == nil {
		s.writeErr = err
	}
	return n, err
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
