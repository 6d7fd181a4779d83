package web_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// A computer's pause shows in the API: the mode and the day its next RPC
// resumes it, or none while it waits for the volunteer.
func TestAPIShowsAPause(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	api := newAPIClient(t, e.http.URL, makeToken(t, e.adaClient, e.http.URL, "pause watcher"))
	ctx, now := context.Background(), time.Now()
	until := now.AddDate(0, 0, 10).Format(time.DateOnly)
	forms := map[int64]accounting.PauseForm{e.adaHosts[0].ID: {Mode: "wind_down"}, e.adaHosts[1].ID: {Mode: "pause", Until: until}}
	for id, f := range forms {
		if err := e.store.Computers.SetPause(ctx, e.ada.ID, id, f, now, "UTC"); err != nil {
			t.Fatal(err)
		}
	}
	for id, f := range forms {
		var c struct {
			Pause struct {
				Mode  string
				Until *time.Time
			}
		}
		api.get("/api/v1/computers/"+strconv.FormatInt(id, 10)).json(t, &c)
		if c.Pause.Mode != f.Mode || (c.Pause.Until == nil) != (f.Until == "") {
			t.Errorf("computer %d: pause %+v, want %+v", id, c.Pause, f)
		}
		if c.Pause.Until != nil && c.Pause.Until.Before(now.AddDate(0, 0, 9)) {
			t.Errorf("computer %d: resumes %s, want after %s", id, c.Pause.Until, until)
		}
	}
	if err := e.store.Computers.SetPause(ctx, e.ada.ID, e.adaHosts[0].ID, accounting.PauseForm{Mode: "resume"}, now, "UTC"); err != nil {
		t.Fatal(err)
	}
	var c struct{ Pause struct{ Mode string } }
	api.get("/api/v1/computers/"+strconv.FormatInt(e.adaHosts[0].ID, 10)).json(t, &c)
	if c.Pause.Mode != "none" {
		t.Errorf("after resume: mode %q, want none", c.Pause.Mode)
	}
}
