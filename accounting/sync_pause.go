package accounting

import (
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// The pause of an RPC (SyncStore.Sync): the host's pause state was read
// with the host row; the reply carries it on every project, its message
// tells the volunteer, and a pause whose until time passed ends here, in
// the write stage's batch (queueHostUpdate).
//
// How a 7.20 client applies the flags (client/acct_mgr.cpp): for a project
// it has, a reply without <dont_request_more_work> clears the flag, so a
// wind-down ends by leaving it out; <suspend> is applied only when present,
// so a pause ends only with an explicit <suspend>0</suspend>
// (resume_pending). A project it attaches from the reply takes
// <dont_request_more_work> and <suspend>1 too, so a project newly given to
// a paused computer starts paused.

// The plan decides the pause (plan.go, pauseState.decide), so that its
// property tests see it.

// notePause logs, once per instance, a stored pause mode that the plan's
// decision d did not know (the RPC then goes on without a pause).
func (s *SyncStore) notePause(h Host, d pauseDecision) {
	if d.Odd && s.oddPause.CompareAndSwap(false, true) && s.opts.Log != nil {
		s.opts.Log.Warn("stored pause state unusable; replying without it", "host", h.ID, "mode", h.pause.mode)
	}
}

// addPause puts the pause decision d into the reply res, with a message
// for the volunteer in the client's event log; until is the stored
// pause's end, if it has one.
func addPause(res *SyncResult, d pauseDecision, until *time.Time, loc *time.Location) {
	res.Pause = PauseReply{Mode: d.Mode, Resume: d.SendResume}
	var m locale.Msg
	switch {
	case d.Ended:
		m = locale.M("pause.rpc_ended")
	case d.Mode == PauseWindDown && until == nil:
		m = locale.M("pause.rpc_wind_down")
	case d.Mode == PauseWindDown:
		m = locale.M("pause.rpc_wind_down_until", "Day", locale.Day(lastDay(*until, loc)))
	case d.Mode == PausePause && until == nil:
		m = locale.M("pause.rpc_pause")
	case d.Mode == PausePause:
		m = locale.M("pause.rpc_pause_until", "Day", locale.Day(lastDay(*until, loc)))
	case d.SayResumed:
		m = locale.M("pause.rpc_resumed")
	default:
		return
	}
	res.Messages = append(res.Messages, m)
}

// lastDay is the last day of a pause ending at until, a day in loc.
func lastDay(until time.Time, loc *time.Location) time.Time {
	return CivilDay(until.In(loc).Add(-time.Second))
}
