package handlers

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// The JSON API under /api/v1/: a volunteer's own data, read with a
// personal API token (Authorization: Bearer TOKEN). Every answer is JSON
// with an ETag (If-None-Match answers 304) and Cache-Control: private;
// every error is an RFC 9457 problem (api_problem.go). No CORS headers are
// sent: a page of another site cannot read the API with a visitor's token.

// APIRequestsPerMinute is how many requests one token may send in a
// minute by default (Config.APIPerMinute), counted in PostgreSQL so that
// every instance shares the count.
const APIRequestsPerMinute = 120

// apiWindow is the rate limit's window.
const apiWindow = time.Minute

// APIFunc answers one API request of the volunteer the token names: the
// value to send as JSON, or an error (an *apiProblem, ErrNotFound, or the
// server's own failure).
type APIFunc func(r *http.Request, u *accounting.User) (any, error)

// API adapts h to http.Handler: it authenticates the bearer token, counts
// the request against the token's limit, and writes h's answer or error.
func (a *API) API(h APIFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := a.apiCaller(r)
		if err != nil {
			a.apiError(w, r, err)
			return
		}
		if !a.rateHeaders(w, c) {
			a.apiError(w, r, problemLimited)
			return
		}
		v, err := h(r, &c.User)
		if err != nil {
			a.apiError(w, r, err)
			return
		}
		a.writeJSON(w, r, v)
	}
}

// apiCaller authenticates r's bearer token: any failure to, a missing
// header as much as a revoked token, is problemUnauthorized.
func (a *API) apiCaller(r *http.Request) (accounting.APICaller, error) {
	scheme, secret, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return accounting.APICaller{}, problemUnauthorized
	}
	now := a.now()
	c, err := a.api.AuthenticateAPI(r.Context(), strings.TrimSpace(secret), a.clientAddrText(r),
		now.Truncate(apiWindow), now)
	if errors.Is(err, accounting.ErrNotFound) {
		return c, problemUnauthorized
	}
	return c, err
}

// rateHeaders writes the token's RateLimit-Policy and RateLimit headers
// (the IETF's draft "RateLimit header fields for HTTP") and reports whether
// the request is within the limit; when it is not, it adds Retry-After.
func (a *API) rateHeaders(w http.ResponseWriter, c accounting.APICaller) bool {
	reset := int(c.Window.Add(apiWindow).Sub(a.now()).Seconds() + 0.999)
	reset = min(max(reset, 1), int(apiWindow/time.Second))
	limit := a.cfg.APIPerMinute
	left := max(limit-c.Requests, 0)
	h := w.Header()
	h.Set("RateLimit-Policy", `"token";q=`+strconv.Itoa(limit)+`;w=`+strconv.Itoa(int(apiWindow/time.Second)))
	h.Set("RateLimit", `"token";r=`+strconv.Itoa(left)+`;t=`+strconv.Itoa(reset))
	if c.Requests > limit {
		h.Set("Retry-After", strconv.Itoa(reset))
		return false
	}
	return true
}

// writeJSON writes v as JSON with its ETag, or 304 when the client's
// If-None-Match names that ETag already.
func (a *API) writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		a.apiError(w, r, err)
		return
	}
	body = append(body, '\n')
	h := w.Header()
	h.Set("Cache-Control", "private, no-cache")
	h.Set("Vary", "Authorization")
	if notModified(w, r, body) {
		return
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}
