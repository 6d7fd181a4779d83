package handlers

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The API's pages: a client asks for up to limit items and, to go on,
// passes the next_cursor of the page before. Cursors are opaque: a kind
// letter and the last item's sort key, in URL-safe base64.

// pageLimit reads the query's limit: def when absent, else a whole number
// from 1 to most (422 naming "limit" otherwise).
func pageLimit(r *http.Request, def, most int) (int, error) {
	s := r.URL.Query().Get("limit")
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > most {
		return 0, invalid("limit", "a whole number from 1 to "+strconv.Itoa(most))
	}
	return n, nil
}

// makeCursor returns the cursor of kind after the item with the given
// sort key parts.
func makeCursor(kind string, parts ...string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + ":" + strings.Join(parts, ":")))
}

// readCursor reads the query's cursor of kind into its n parts; nil when
// there is none. A cursor that is not one of kind's is 422 naming
// "cursor".
func readCursor(r *http.Request, kind string, n int) ([]string, error) {
	s := r.URL.Query().Get("cursor")
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	parts := strings.Split(string(b), ":")
	if err != nil || len(parts) != n+1 || parts[0] != kind {
		return nil, badCursor
	}
	return parts[1:], nil
}

// badCursor is the problem of a cursor the API did not give.
var badCursor = invalid("cursor", "not a cursor this list gave; start again without one")

// idCursor reads a cursor of kind that holds one id: 0 when there is none.
func idCursor(r *http.Request, kind string) (int64, error) {
	parts, err := readCursor(r, kind, 1)
	if err != nil || parts == nil {
		return 0, err
	}
	id, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || id < 0 {
		return 0, badCursor
	}
	return id, nil
}

// maxDaysRange is the longest range of days one request may ask for.
const maxDaysRange = 3 // years

// dayRange reads the query's from and to (YYYY-MM-DD, both included): to
// is today by default, from the 30th day up to to. A date that does not
// read, from after to, or a range over maxDaysRange years is 422 naming
// the parameters.
func dayRange(r *http.Request, today time.Time) (from, to time.Time, err error) {
	q := r.URL.Query()
	var bad []string
	to, from = today, time.Time{}
	if s := q.Get("to"); s != "" {
		if to, err = time.Parse(time.DateOnly, s); err != nil {
			bad = append(bad, "to", "not a date as YYYY-MM-DD")
		}
	}
	if s := q.Get("from"); s != "" {
		if from, err = time.Parse(time.DateOnly, s); err != nil {
			bad = append([]string{"from", "not a date as YYYY-MM-DD"}, bad...)
		}
	} else {
		from = to.AddDate(0, 0, -29)
	}
	switch {
	case len(bad) > 0:
		return from, to, invalid(bad...)
	case from.After(to):
		return from, to, invalid("from", "after to", "to", "before from")
	case from.Before(to.AddDate(-maxDaysRange, 0, 0)):
		return from, to, invalid("from", "more than 3 years before to", "to", "more than 3 years after from")
	}
	return from, to, nil
}
