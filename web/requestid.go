package web

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"

	"github.com/cobble-am/cobble/handlers"
)

// requestIDHeader carries a request's id: it is sent back on every
// response, and taken from a trusted proxy that sends one.
const requestIDHeader = "X-Request-Id"

// requestID gives each request an id, so that a volunteer's report can be
// found in the log: it goes into the request's context (read with
// handlers.RequestID), onto every line logged with that context, and back
// to the client as X-Request-Id. The id is 26 random base32 characters,
// or the X-Request-Id a trusted proxy sent, when that is 1 to 64 of
// A-Z a-z 0-9 . _ -. Anyone else's X-Request-Id is ignored: a client
// could otherwise make its requests look like another's in the log.
func (m middleware) requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(requestIDHeader)
		if !validRequestID(id) || !m.fromTrustedProxy(r) {
			id = rand.Text()
		}
		w.Header().Set(requestIDHeader, id)
		next.ServeHTTP(w, r.WithContext(handlers.WithRequestID(r.Context(), id)))
	})
}

// validRequestID says whether id is 1 to 64 of A-Z a-z 0-9 . _ -: safe to
// log and to show on a page as it is.
func validRequestID(id string) bool {
	if len(id) < 1 || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// fromTrustedProxy says whether the request's direct peer is one of the
// trusted proxies.
func (m middleware) fromTrustedProxy(r *http.Request) bool {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	addr := peer.Addr().Unmap()
	return slices.ContainsFunc(m.proxies, func(p netip.Prefix) bool { return p.Contains(addr) })
}

// requestIDs is a log handler that adds to each record logged with a
// request's context the request's id, as request_id.
type requestIDs struct{ slog.Handler }

// withRequestIDs returns log, adding request ids to what it logs.
func withRequestIDs(log *slog.Logger) *slog.Logger {
	return slog.New(requestIDs{log.Handler()})
}

// Handle adds the request's id to rec and passes it on.
func (h requestIDs) Handle(ctx context.Context, rec slog.Record) error {
	if id := handlers.RequestID(ctx); id != "" {
		rec.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, rec)
}

// WithAttrs returns the handler with attrs, still adding request ids.
func (h requestIDs) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDs{h.Handler.WithAttrs(attrs)}
}

// WithGroup returns the handler with a group, still adding request ids.
func (h requestIDs) WithGroup(name string) slog.Handler {
	return requestIDs{h.Handler.WithGroup(name)}
}
