package web_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// confirmedLine matches the points of a chart's confirmed (granted) line.
var confirmedLine = regexp.MustCompile(`<g class="line granted"><polyline points="([^"]*)"`)

// phoneChart matches a phone's chart, drawn after each wide one.
var phoneChart = regexp.MustCompile(`(?s)<div class="chart-phone">.*?</svg></div>`)

// Confirmed credit lags: the demo's projects were last reconciled three
// days ago. The dashboard, the computer page and the admin host page end
// the confirmed line there instead of drawing 0 for the days after it,
// show a dash for them in their tables, and say up to which day it is known.
func TestConfirmedEndsAtTheLatestExport(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	today := e.store.Ledger.Today(time.Now(), "UTC")
	known := today.AddDate(0, 0, -3).Format(time.DateOnly)
	knownDay := today.AddDate(0, 0, -3).Format("2 Jan 2006") // the volunteer's pages write days in words
	host := strconv.FormatInt(e.adaHosts[0].ID, 10)
	admin := e.login("admin@example.org", true)
	for _, c := range []struct {
		client        *http.Client
		path, note    string
		lines, points int
		dashes        int
	}{
		{e.adaClient, "/", "Confirmed credit is known up to " + knownDay, 1, 27, 2 + 3},
		{e.adaClient, "/computers/" + host, "Confirmed credit is known up to " + knownDay, 1, 27, 3},
		// From the host's first day with granted credit, 39 days ago: the day
		// it joined, 40 days ago, has none, and the line starts after it.
		{admin, "/admin/hosts/" + host, "Granted credit is known up to " + known, 2, 37, 0},
	} {
		status, page, _ := do(t, c.client, "GET", e.http.URL+c.path, nil, nil)
		if status != 200 || !strings.Contains(page, c.note) {
			t.Errorf("%s: status %d, no %q", c.path, status, c.note)
		}
		// The wide charts' lines (a phone's chart of the same days follows each).
		lines := confirmedLine.FindAllStringSubmatch(phoneChart.ReplaceAllString(page, ""), -1)
		if len(lines) != c.lines {
			t.Fatalf("%s: %d confirmed lines, want %d", c.path, len(lines), c.lines)
		}
		for _, l := range lines {
			if n := len(strings.Fields(l[1])); n != c.points {
				t.Errorf("%s: the confirmed line has %d points, want %d (the last 3 days not known)", c.path, n, c.points)
			}
		}
		if n := strings.Count(page, `<abbr title="not known yet">–</abbr>`); n != c.dashes {
			t.Errorf("%s: %d cells say not known yet, want %d", c.path, n, c.dashes)
		}
	}
}
