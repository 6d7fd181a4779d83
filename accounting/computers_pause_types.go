package accounting

import (
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// PauseMode is what a computer is asked to do with its projects.
type PauseMode string

// The pause modes. The RPC's reply carries them on every project of the
// computer: PauseWindDown as <dont_request_more_work>, PausePause as
// <suspend>; PauseNone sends neither, and once after a pause
// <suspend>0</suspend>.
const (
	PauseNone     PauseMode = "none"      // working as usual
	PauseWindDown PauseMode = "wind_down" // finish the tasks in hand, fetch no new ones
	PausePause    PauseMode = "pause"     // suspend every project now
)

// maxPauseDays is how far ahead an "until" date may be.
const maxPauseDays = 366

// Pause is a computer's pause state: a mode and, optionally, when the
// computer's next RPC resumes it by itself.
type Pause struct {
	Mode  PauseMode
	Until *time.Time // nil: until the volunteer resumes
}

// Paused reports whether the computer is winding down or paused.
func (p Pause) Paused() bool { return p.Mode == PauseWindDown || p.Mode == PausePause }

// PauseForm is the pause form as posted: mode is "wind_down", "pause" or
// "resume"; until is empty or a date YYYY-MM-DD in the volunteer's time
// zone, the last day of the pause.
type PauseForm struct {
	Mode  string
	Until string
}

// Parse checks the form against today (the volunteer's calendar day, from
// LedgerStore.Today) and returns the pause it asks for, which ends at the
// start of the day after Until in loc. A mode not listed, a date that is
// not one, before today or more than a year ahead is a *ValidationError
// naming the field; resume ignores the date.
func (f PauseForm) Parse(today time.Time, loc *time.Location) (Pause, error) {
	var p Pause
	switch f.Mode {
	case "wind_down", "pause":
		p.Mode = PauseMode(f.Mode)
	case "resume":
		p.Mode = PauseNone
	default:
		return p, &ValidationError{Fields: map[string]locale.Msg{"mode": locale.M("pause.choose_mode")}}
	}
	if f.Until == "" || p.Mode == PauseNone {
		return p, nil // resuming ignores a date left in the field
	}
	day, err := time.Parse(time.DateOnly, f.Until)
	switch {
	case err != nil || len(f.Until) != len(time.DateOnly):
		return p, &ValidationError{Fields: map[string]locale.Msg{"until": locale.M("pause.until_date")}}
	case day.Before(today) || day.After(today.AddDate(0, 0, maxPauseDays)):
		return p, &ValidationError{Fields: map[string]locale.Msg{"until": locale.M("pause.until_range")}}
	}
	end := time.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, 0, loc)
	p.Until = &end
	return p, nil
}

// pauseState is a host's pause as the RPC reads it with the host row.
type pauseState struct {
	mode          string
	until         *time.Time
	resumePending bool
	// resumeNotice: the computer was told to work as usual after winding
	// down, and no RPC has said so yet.
	resumeNotice bool
}

// pauseDecision is what an RPC does with the host's pause state.
type pauseDecision struct {
	Mode PauseMode
	// SendResume asks the client to resume its suspended projects.
	SendResume bool
	// SayResumed: the reply says the computer works as usual again (a
	// resume, or the end of a wind-down, not said before).
	SayResumed bool
	// Ended means the pause's until time passed: the RPC clears it.
	Ended bool
	// Odd is set when the stored mode was not one Cobble knows; the RPC
	// then replies as if there were no pause.
	Odd bool
}

// decide returns what an RPC at now does with the stored pause state.
func (s pauseState) decide(now time.Time) pauseDecision {
	d := pauseDecision{Mode: PauseMode(s.mode), SendResume: s.resumePending}
	switch d.Mode {
	case PauseNone, "":
		d.Mode, d.SayResumed = PauseNone, s.resumePending || s.resumeNotice
		return d
	case PauseWindDown, PausePause:
	default:
		return pauseDecision{Mode: PauseNone, Odd: true}
	}
	if s.until != nil && !now.Before(*s.until) {
		d.Ended, d.SendResume = true, d.Mode == PausePause || s.resumePending
		d.Mode = PauseNone
		return d
	}
	if d.Mode == PausePause {
		d.SendResume = false
	}
	return d
}

// PauseReply is what the reply says to every project of the computer.
type PauseReply struct {
	Mode PauseMode
	// Resume asks the client to resume projects it suspended on Cobble's
	// word (<suspend>0</suspend>).
	Resume bool
}

// PauseSummary is how many of the volunteer's connected computers are
// paused or winding down, for the pages that pause them all at once.
type PauseSummary struct {
	Total       int // connected computers
	Paused      int
	WindingDown int
	// Mode is the mode every connected computer shares ("" when they
	// differ or none is connected); LastDay is the last day they share,
	// nil when they have none or different ones.
	Mode    PauseMode
	LastDay *time.Time
}

// SummarizePause counts the pauses of the computers' connected ones.
func SummarizePause(computers []Computer) PauseSummary {
	var s PauseSummary
	sameDay := true
	for _, c := range computers {
		if !c.Connected {
			continue
		}
		mode := c.PauseMode
		if mode != PauseWindDown && mode != PausePause {
			mode = PauseNone
		}
		switch {
		case s.Total == 0:
			s.Mode, s.LastDay = mode, c.PauseLastDay
		case s.Mode != mode:
			s.Mode = ""
		}
		if s.Total > 0 && !sameDate(s.LastDay, c.PauseLastDay) {
			sameDay = false
		}
		s.Total++
		s.Paused += b2i(mode == PausePause)
		s.WindingDown += b2i(mode == PauseWindDown)
	}
	if !sameDay || s.Mode == "" || s.Mode == PauseNone {
		s.LastDay = nil
	}
	return s
}

// sameDate reports whether a and b are both nil or the same instant.
func sameDate(a, b *time.Time) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Equal(*b)
}
