package handlers

import (
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/cobble-am/cobble/internal/locale"
)

// apiProblem is an API error as RFC 9457 describes it: a status, a title
// that is the same for every problem of its kind, a detail about this
// occurrence, and the parameters that were wrong. The API's words are
// English: scripts read them, and logs quote them.
type apiProblem struct {
	Type          string         `json:"type"`
	Title         string         `json:"title"`
	Status        int            `json:"status"`
	Detail        string         `json:"detail,omitempty"`
	InvalidParams []invalidParam `json:"invalid_params,omitempty"`
	RequestID     string         `json:"request_id,omitempty"`
}

// invalidParam names a query parameter that was wrong, and why.
type invalidParam struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

func (p *apiProblem) Error() string { return "API problem: " + strconv.Itoa(p.Status) + " " + p.Title }

// problem returns a problem of status with the title and detail.
func problem(status int, title, detail string) *apiProblem {
	return &apiProblem{Type: "about:blank", Title: title, Status: status, Detail: detail}
}

// The problems every API route may answer.
var (
	// problemUnauthorized answers a missing, malformed, made-up or revoked
	// token alike, in the same bytes but for the request's id.
	problemUnauthorized = problem(http.StatusUnauthorized, "Unauthorized",
		"Send a valid API token in the header Authorization: Bearer TOKEN. Volunteers make tokens on /settings/api.")
	problemLimited = problem(http.StatusTooManyRequests, "Too Many Requests",
		"This token sent more requests this minute than the API answers; wait the seconds Retry-After gives.")
	problemNotFound = problem(http.StatusNotFound, "Not Found",
		"There is no such resource among yours.")
	problemMethod = problem(http.StatusMethodNotAllowed, "Method Not Allowed",
		"The API only reads: use GET.")
	problemUnavailable = problem(http.StatusServiceUnavailable, "Service Unavailable",
		"The database is not answering; try again in a minute.")
	problemInternal = problem(http.StatusInternalServerError, "Internal Server Error",
		"Cobble failed to answer; the failure is logged. Quote the request_id if you report it.")
)

// invalid returns the 422 problem for wrong query parameters, naming each
// with its reason (name, reason, name, reason, ...).
func invalid(nameReasons ...string) *apiProblem {
	p := problem(http.StatusUnprocessableEntity, "Unprocessable Content", "A query parameter is not valid: see invalid_params.")
	for i := 0; i+1 < len(nameReasons); i += 2 {
		p.InvalidParams = append(p.InvalidParams, invalidParam{Name: nameReasons[i], Reason: nameReasons[i+1]})
	}
	return p
}

// problemOf returns the problem that answers err: an *apiProblem as it
// is; else err's row of errorTable (its own problem, or one of its status
// with the row's text in English); a *accounting.ValidationError as 422
// naming its fields; anything else as 500.
func problemOf(err error) *apiProblem {
	var p *apiProblem
	if errors.As(err, &p) {
		return p
	}
	if row, ok := errorRowOf(err); ok {
		if row.problem != nil {
			return row.problem
		}
		return problem(row.status, http.StatusText(row.status), row.msg.In(locale.English()))
	}
	if fields := formErrors(err); fields != nil {
		nameReasons := make([]string, 0, 2*len(fields))
		for _, name := range slices.Sorted(maps.Keys(fields)) {
			nameReasons = append(nameReasons, name, fields[name].In(locale.English()))
		}
		return invalid(nameReasons...)
	}
	return problemInternal
}

// apiError writes err as a problem (problemOf), logged once when it is
// the server's fault.
func (a *API) apiError(w http.ResponseWriter, r *http.Request, err error) {
	p := problemOf(err)
	if p.Status >= 500 {
		a.log.ErrorContext(r.Context(), "API failed", "path", LogPath(r.Pattern, r.URL.Path), "err", err)
	}
	out := *p
	out.RequestID = RequestID(r.Context())
	body, _ := json.Marshal(out) // plain strings and numbers: never fails
	h := w.Header()
	if p.Status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="Cobble API"`)
	}
	if p.Status == http.StatusMethodNotAllowed {
		h.Set("Allow", "GET")
	}
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	w.Write(append(body, '\n'))
}

// APINotFound answers an address under /api/v1/ that the API does not
// serve, as a problem.
func (a *API) APINotFound(w http.ResponseWriter, r *http.Request) { a.apiError(w, r, problemNotFound) }

// APIMethodNotAllowed answers a method the API does not serve (it only
// reads), as a problem.
func (a *API) APIMethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	a.apiError(w, r, problemMethod)
}
