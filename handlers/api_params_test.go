package handlers

import (
	"errors"
	"net/http/httptest"
	"testing"
	"time"
)

func TestETagMatches(t *testing.T) {
	tag := `"abc"`
	for _, tt := range []struct {
		header string
		want   bool
	}{
		{"", false}, {`"abc"`, true}, {`W/"abc"`, true}, {`"x", "abc"`, true}, {`*`, true},
		{`"abcd"`, false}, {`abc`, false}, {`"x","y"`, false},
	} {
		if got := etagMatches(tt.header, tag); got != tt.want {
			t.Errorf("If-None-Match %q: %v, want %v", tt.header, got, tt.want)
		}
	}
}

// dayRange defaults to the 30 days up to today, and names the wrong
// parameters first to last.
func TestDayRange(t *testing.T) {
	today := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	for _, tt := range []struct {
		query    string
		from, to string
		bad      string // the first parameter named, "" when valid
	}{
		{"", "2026-10-30", "2026-11-28", ""},
		{"to=2026-01-31", "2026-01-02", "2026-01-31", ""},
		{"from=2026-11-28&to=2026-11-28", "2026-11-28", "2026-11-28", ""},
		{"from=2023-11-28", "2023-11-28", "2026-11-28", ""},
		{"from=2023-11-27", "", "", "from"},
		{"from=2026-11-29", "", "", "from"},
		{"from=x&to=y", "", "", "from"},
		{"to=2026-02-29", "", "", "to"},
	} {
		from, to, err := dayRange(httptest.NewRequest("GET", "/api/v1/days?"+tt.query, nil), today)
		var p *apiProblem
		switch {
		case tt.bad == "" && (err != nil || !from.Equal(day(tt.from)) || !to.Equal(day(tt.to))):
			t.Errorf("%q: %v–%v, %v; want %s–%s", tt.query, from, to, err, tt.from, tt.to)
		case tt.bad != "" && (!errors.As(err, &p) || p.Status != 422 || p.InvalidParams[0].Name != tt.bad):
			t.Errorf("%q: %v, want 422 naming %s", tt.query, err, tt.bad)
		}
	}
}
