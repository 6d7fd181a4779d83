package accounting

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// A stored pause the RPC cannot use is logged once per instance and the
// RPC replies without it; an until time that passed ends the pause and
// resumes a suspended client.
func TestPauseDecisions(t *testing.T) {
	now := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Minute), now.Add(time.Hour)
	for _, c := range []struct {
		name  string
		state pauseState
		want  pauseDecision
	}{
		{"none", pauseState{mode: "none"}, pauseDecision{Mode: PauseNone}},
		{"resume pending", pauseState{mode: "none", resumePending: true}, pauseDecision{Mode: PauseNone, SendResume: true, SayResumed: true}},
		{"resumed after a wind-down", pauseState{mode: "none", resumeNotice: true}, pauseDecision{Mode: PauseNone, SayResumed: true}},
		{"wind down", pauseState{mode: "wind_down", until: &future}, pauseDecision{Mode: PauseWindDown}},
		{"wind down after a pause", pauseState{mode: "wind_down", resumePending: true}, pauseDecision{Mode: PauseWindDown, SendResume: true}},
		{"pause", pauseState{mode: "pause", resumePending: true}, pauseDecision{Mode: PausePause}},
		{"pause ended", pauseState{mode: "pause", until: &past, resumePending: true}, pauseDecision{Mode: PauseNone, SendResume: true, Ended: true}},
		{"wind down ended", pauseState{mode: "wind_down", until: &past}, pauseDecision{Mode: PauseNone, Ended: true}},
		{"unknown", pauseState{mode: "hibernate", resumePending: true}, pauseDecision{Mode: PauseNone, Odd: true}},
	} {
		if got := c.state.decide(now); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	var logged bytes.Buffer
	s := &SyncStore{&core{opts: Options{Log: slog.New(slog.NewTextHandler(&logged, nil))}}}
	for range 3 {
		h := Host{ID: 7, pause: pauseState{mode: "hibernate"}}
		d := plan(planInput{Req: SyncRequest{Now: now}, Loc: time.UTC, Pause: h.pause}).Pause
		if d.Mode != PauseNone {
			t.Errorf("an unusable pause: %+v", d)
		}
		s.notePause(h, d)
	}
	if n := strings.Count(logged.String(), "stored pause state unusable"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, logged.String())
	}
}
