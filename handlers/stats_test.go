package handlers

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// A statistics file is unchanged for a request that names its ETag (weak
// or strong, among others) or, without If-None-Match, whose
// If-Modified-Since is not before its build; If-None-Match decides when
// both are given (RFC 9110, 13.2.2).
func TestStatsUnchanged(t *testing.T) {
	built := time.Date(2026, 12, 7, 3, 4, 5, 600, time.UTC)
	f := accounting.StatsFile{Name: "user.gz", ETag: `"abc"`, BuiltAt: built}
	at := func(d time.Duration) string { return built.Add(d).Format(http.TimeFormat) }
	for _, c := range []struct {
		match, since string
		want         bool
	}{
		{"", "", false},
		{`"abc"`, "", true},
		{`W/"abc"`, "", true},
		{`"x", "abc"`, "", true},
		{`"x"`, "", false},
		{`"x"`, at(time.Hour), false},
		{"", at(0), true},
		{"", at(time.Hour), true},
		{"", at(-time.Second), false},
		{"", "yesterday", false},
	} {
		r := httptest.NewRequest("GET", "/stats/user.gz", nil)
		if c.match != "" {
			r.Header.Set("If-None-Match", c.match)
		}
		if c.since != "" {
			r.Header.Set("If-Modified-Since", c.since)
		}
		if got := statsUnchanged(r, f); got != c.want {
			t.Errorf("If-None-Match %q, If-Modified-Since %q: %v, want %v", c.match, c.since, got, c.want)
		}
	}
}
