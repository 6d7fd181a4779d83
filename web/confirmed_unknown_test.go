package web_test

import (
	"encoding/json"
	"html"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A day no project export covers yet has no confirmed credit known: the
// API says null there (and a number on the days that are covered), by
// project and by computer, and the day's page says "not yet known"
// rather than 0 (issue 45, item 8). Ada's projects' latest export is of
// three days ago.
func TestConfirmedNotKnownIsNotZero(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	api := newAPIClient(t, e.http.URL, makeToken(t, e.adaClient, e.http.URL, "my script"))
	today := e.store.Ledger.Today(time.Now(), "UTC")
	covered := today.AddDate(0, 0, -3)
	for _, by := range []string{"project", "computer"} {
		var d struct {
			Days []struct {
				Day       string
				Confirmed json.RawMessage
			}
		}
		api.get("/api/v1/days?from="+today.AddDate(0, 0, -6).Format(time.DateOnly)+"&to="+
			today.Format(time.DateOnly)+"&by="+by+"&limit=100").json(t, &d)
		var known, unknown int
		for _, day := range d.Days {
			after := day.Day > covered.Format(time.DateOnly)
			switch null := string(day.Confirmed) == "null"; {
			case after && !null:
				t.Errorf("by %s, %s (after the last export's day %s): confirmed %s, want null",
					by, day.Day, covered.Format(time.DateOnly), day.Confirmed)
			case !after && null:
				t.Errorf("by %s, %s: confirmed null on a day an export covers", by, day.Day)
			case after:
				unknown++
			default:
				known++
			}
		}
		if known == 0 || unknown == 0 {
			t.Errorf("by %s: %d days known, %d not: the test sees both or nothing", by, known, unknown)
		}
	}
	path := "/computers/" + strconv.FormatInt(e.adaHosts[0].ID, 10) + "/days/" + today.Format(time.DateOnly)
	_, page, _ := do(t, e.adaClient, "GET", e.http.URL+path, nil, nil)
	text := html.UnescapeString(page)
	if !strings.Contains(text, "Confirmed credit for the day: not yet known") {
		t.Errorf("%s does not say the day's confirmed credit is not yet known:\n%s", path, page)
	}
}

// A day's page relates each export's grant to the day: the hours since the
// export before, those on the day, and the day's share (issue 45, item 10).
func TestDayPageApportionsTheGrant(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	day := e.store.Ledger.Today(time.Now(), "UTC").AddDate(0, 0, -10)
	path := "/computers/" + strconv.FormatInt(e.adaHosts[0].ID, 10) + "/days/" + day.Format(time.DateOnly)
	_, page, _ := do(t, e.adaClient, "GET", e.http.URL+path, nil, nil)
	text := html.UnescapeString(page)
	if !strings.Contains(text, "Cobble spreads a grant evenly over the time between two statistics: of the ") ||
		!strings.Contains(text, ", 24 fall on this day, so its share of the grant is ") {
		t.Errorf("%s does not relate the export's grant to the day:\n%s", path, page)
	}
}
