package accounting

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// EventKind says what accounting noticed about a host
// (accounting_events.kind).
type EventKind string

// The kinds of events accounting records.
const (
	EventReset           EventKind = "reset"            // counters started again from zero
	EventStaleReport     EventKind = "stale_report"     // an older report than the one stored
	EventClamp           EventKind = "clamp"            // a claim beyond the host's limits
	EventImplausibleHost EventKind = "implausible_host" // hardware claims Cobble could not believe
	EventBadCounters     EventKind = "bad_counters"     // counters that are not usable numbers
	EventCreditDecrease  EventKind = "credit_decrease"  // a project's granted credit went down
	EventFailing         EventKind = "failing"          // a failure episode began (CheckFailing)
	EventFailingCleared  EventKind = "failing_cleared"  // a failure episode ended
)

// EventKinds lists every kind, in the order pages explain them.
var EventKinds = []EventKind{EventReset, EventStaleReport, EventClamp, EventImplausibleHost,
	EventBadCounters, EventCreditDecrease, EventFailing, EventFailingCleared}

// String names the kind for people.
func (k EventKind) String() string {
	switch k {
	case EventReset:
		return "Counter reset"
	case EventStaleReport:
		return "Stale report"
	case EventClamp:
		return "Claim clamped"
	case EventImplausibleHost:
		return "Implausible computer"
	case EventBadCounters:
		return "Unusable counters"
	case EventCreditDecrease:
		return "Granted credit went down"
	case EventFailing:
		return "Failing"
	case EventFailingCleared:
		return "Failing no more"
	}
	return fmt.Sprintf("Event (%s)", string(k))
}

// EventDetail is what an event records beyond its kind, kept as JSON in
// accounting_events.detail; each kind uses some of the fields.
type EventDetail struct {
	// Before and After are the stored and the reported counters (reset,
	// stale_report).
	Before *Counters `json:"before,omitempty"`
	After  *Counters `json:"after,omitempty"`
	// Requested is what a report claimed, Clamped the part of it that was
	// not credited (clamp).
	Requested *Counters `json:"requested,omitempty"`
	Clamped   *Counters `json:"clamped,omitempty"`
	// Claims are the host's implausible claims (implausible_host).
	Claims []string `json:"claims,omitempty"`
	// Reported are the unusable counters as they came (bad_counters).
	Reported string `json:"reported,omitempty"`
	// Decrease is how much a host's total_credit in a project's export went
	// down, to TotalCredit, since the export of Since (credit_decrease).
	Decrease    float64    `json:"decrease,omitempty"`
	TotalCredit float64    `json:"total_credit,omitempty"`
	Since       *time.Time `json:"since,omitempty"`
	// Failure is what fails (failing, failing_cleared).
	Failure FailureKind `json:"failure,omitempty"`
}

// marshal returns d as accounting_events.detail keeps it. It fails only for
// a non-finite number.
func (d EventDetail) marshal() ([]byte, error) { return json.Marshal(d) }

// decodeEventDetail reads a stored detail of an event of kind k. A detail
// with fields EventDetail does not know, or without those the kind needs,
// is an error: it would read as zeros.
func decodeEventDetail(k EventKind, raw []byte) (EventDetail, error) {
	var d EventDetail
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return d, err
	}
	var complete bool
	switch k {
	case EventReset, EventStaleReport:
		complete = d.Before != nil && d.After != nil
	case EventClamp:
		complete = d.Requested != nil && d.Clamped != nil
	case EventImplausibleHost:
		complete = len(d.Claims) > 0
	case EventBadCounters:
		complete = d.Reported != ""
	case EventCreditDecrease:
		complete = d.Decrease > 0 && d.Since != nil
	case EventFailing, EventFailingCleared:
		complete = d.Failure != ""
	default:
		return d, fmt.Errorf("unknown kind %q", string(k))
	}
	if !complete {
		return d, errors.New("the detail lacks what a " + string(k) + " event records")
	}
	return d, nil
}

// Event is something accounting noticed about a host: a counter reset,
// a stale report, a clamped claim, an implausible host, bad counters, a
// credit decrease.
type Event struct {
	ID          int64
	At          time.Time
	Kind        EventKind
	ProjectName string // "" for events of the whole host
	Detail      EventDetail
}

// Msg tells what the event means, in plain words, for the volunteer and
// for admins, in their language.
func (e Event) Msg() locale.Msg {
	p, d := e.ProjectName, e.Detail
	// id names the message; with a project, its _project variant.
	id := func(base string) string {
		if p != "" {
			return base + "_project"
		}
		return base
	}
	switch e.Kind {
	case EventReset:
		return locale.M(id("events.reset"), "Project", p)
	case EventStaleReport:
		return locale.M(id("events.stale_report"), "Project", p, "After", creditOf(d.After), "Before", creditOf(d.Before))
	case EventClamp:
		var counted any = "–"
		if d.Requested != nil && d.Clamped != nil {
			counted = locale.Credit(d.Requested.Credit() - d.Clamped.Credit())
		}
		return locale.M(id("events.clamp"), "Project", p, "Requested", creditOf(d.Requested), "Counted", counted,
			"Clamped", creditOf(d.Clamped))
	case EventImplausibleHost:
		var what any = locale.M("events.its_hardware")
		if len(d.Claims) > 0 {
			what = strings.Join(d.Claims, "; ")
		}
		return locale.M("events.implausible_host", "Claims", what)
	case EventBadCounters:
		return locale.M(id("events.bad_counters"), "Project", p)
	case EventCreditDecrease:
		return locale.M(id("events.credit_decrease"), "Project", p, "Decrease", locale.Credit(d.Decrease),
			"Total", locale.Credit(d.TotalCredit))
	case EventFailing:
		return locale.M("failing.event", "Project", p, "What", failureWhat(d.Failure))
	case EventFailingCleared:
		return locale.M("failing.event_cleared", "Project", p, "What", failureWhat(d.Failure))
	}
	return locale.M(id("events.unknown"), "Project", p, "Kind", string(e.Kind))
}

// Sentence is Msg in English, for the admin pages.
func (e Event) Sentence() string { return e.Msg().String() }

// creditOf is the estimated credit of c as a message's value; a dash when
// c is missing.
func creditOf(c *Counters) any {
	if c == nil {
		return "–"
	}
	return locale.Credit(c.Credit())
}

// failureWhat names a failure for an event's sentence.
func failureWhat(k FailureKind) locale.Msg {
	switch k {
	case FailureJobs:
		return locale.M("failing.what_jobs")
	case FailureNothingGranted:
		return locale.M("failing.what_nothing_granted")
	}
	return locale.M("failing.what_project_silent")
}
