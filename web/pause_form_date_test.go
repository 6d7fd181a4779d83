package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"
)

// A dated pause is kept in a computer's form, so that saving again keeps
// its date; "Work as usual" with a date left in the field ignores the date.
func TestPauseFormKeepsItsDate(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	id := itoa(e.adaHosts[0].ID)
	day := e.store.Ledger.Today(time.Now(), "UTC").AddDate(0, 0, 3).Format(time.DateOnly)
	pause := e.http.URL + "/computers/" + id + "/pause"
	if status, _, _ := do(t, e.adaClient, "POST", pause, url.Values{"mode": {"wind_down"}, "until": {day}}, nil); status != http.StatusSeeOther {
		t.Fatalf("POST pause: %d", status)
	}
	_, page, _ := do(t, e.adaClient, "GET", e.http.URL+"/computers/"+id, nil, nil)
	if !regexp.MustCompile(`<input id="pause-until" type="date" name="until"[^>]*value="` + day + `"`).MatchString(page) {
		t.Errorf("the computer's pause form does not keep the date %s", day)
	}
	for _, until := range []string{day, "2001-01-01", "soon"} {
		status, body, _ := do(t, e.adaClient, "POST", pause, url.Values{"mode": {"resume"}, "until": {until}}, nil)
		if status != http.StatusSeeOther {
			t.Errorf("resume with until %q: %d\n%s", until, status, body)
		}
	}
	c, err := e.store.Computers.Computers(context.Background(), e.ada.ID, e.store.Ledger.Today(time.Now(), "UTC"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range c {
		if h.ID == e.adaHosts[0].ID && (h.PauseMode != "none" || h.PauseUntil != nil) {
			t.Errorf("after resume: %s, %v", h.PauseMode, h.PauseUntil)
		}
	}
}
