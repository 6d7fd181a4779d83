package handlers

import (
	"net/http"
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// APIEvents answers GET /api/v1/events: what accounting noticed about the
// volunteer's computers (clamped claims, counter resets, stale reports,
// unusable counters, implausible claims, granted credit that went down),
// newest first, a page at a time; the first page also carries the
// warnings the dashboard shows now.
func (a *API) APIEvents(r *http.Request, u *accounting.User) (any, error) {
	limit, err := pageLimit(r, defaultPage, maxPage)
	if err != nil {
		return nil, err
	}
	after, err := eventCursor(r)
	if err != nil {
		return nil, err
	}
	es, err := a.api.APIEvents(r.Context(), u.ID, after, limit+1)
	if err != nil {
		return nil, err
	}
	out := jsonEvents{Warnings: []jsonWarning{}, Events: []jsonEvent{}}
	if after.ID == 0 {
		if out.Warnings, err = a.apiWarnings(r, u); err != nil {
			return nil, err
		}
	}
	for i, e := range es {
		if i == limit {
			last := es[i-1]
			out.NextCursor = orNull(makeCursor("e", strconv.FormatInt(last.At.UnixMicro(), 10), strconv.FormatInt(last.ID, 10)))
			break
		}
		out.Events = append(out.Events, jsonEvent{ID: e.ID, At: e.At.UTC(), Kind: string(e.Kind),
			ComputerID: e.ComputerID, Project: orNull(e.ProjectName), Message: e.Sentence()})
	}
	return out, nil
}

// apiWarnings are the volunteer's warnings now, in English.
func (a *API) apiWarnings(r *http.Request, u *accounting.User) ([]jsonWarning, error) {
	today := a.ledger.Today(a.now(), u.TimeZone)
	cs, err := a.computers.Computers(r.Context(), u.ID, today)
	if err != nil {
		return nil, err
	}
	s, err := a.ledger.Summary(r.Context(), u.ID, today)
	if err != nil {
		return nil, err
	}
	out := []jsonWarning{}
	for _, w := range accounting.Warnings(cs, s, a.now()) {
		out = append(out, jsonWarning{Kind: string(w.Kind), Message: w.Msg.String()})
	}
	return out, nil
}

// eventCursor reads the cursor of events: the last event's time (Unix
// microseconds) and id; the zero cursor when there is none.
func eventCursor(r *http.Request) (accounting.EventCursor, error) {
	parts, err := readCursor(r, "e", 2)
	if err != nil || parts == nil {
		return accounting.EventCursor{}, err
	}
	at, err1 := strconv.ParseInt(parts[0], 10, 64)
	id, err2 := strconv.ParseInt(parts[1], 10, 64)
	when := time.UnixMicro(at).UTC()
	if err1 != nil || err2 != nil || id <= 0 || when.Year() < 1970 || when.Year() > 9999 {
		return accounting.EventCursor{}, badCursor // not a time an event is stored at
	}
	return accounting.EventCursor{At: when, ID: id}, nil
}
