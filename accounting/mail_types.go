package accounting

import (
	"fmt"
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// Alert names a kind of message a volunteer chooses to receive.
type Alert string

// The alerts; both are off until the volunteer turns them on.
const (
	AlertSilence Alert = "silence" // a computer stopped contacting Cobble
	AlertWeekly  Alert = "weekly"  // the weekly summary
	AlertFailing Alert = "failing" // a computer failing on a project
)

// Alerts are a volunteer's alert choices.
type Alerts struct {
	SilenceDays int  // 0: off; otherwise mail when a computer is silent this many days
	Weekly      bool // mail the weekly summary
	Failing     bool // mail when a computer fails on a project (one mail per episode)
}

// Validate checks the choices (field "silence_days").
func (a Alerts) Validate() error {
	v := validation{}
	v.check(a.SilenceDays >= 0 && a.SilenceDays <= 60, "silence_days", locale.M("alerts.silence_days_range"))
	return v.err()
}

// MailState is what the settings page shows of a volunteer's email.
type MailState struct {
	Confirmed    bool
	PendingEmail string // an address waiting for its link to be followed
	Alerts       Alerts
}

// MailKind says what a message is for.
type MailKind string

// The kinds of messages Cobble sends.
const (
	MailWelcome       MailKind = "welcome"        // after sign-up, with a confirmation link
	MailConfirm       MailKind = "email_confirm"  // a confirmation link sent again
	MailPasswordReset MailKind = "password_reset" // a link to set a new password
	MailEmailChange   MailKind = "email_change"   // to a new address, with the link that makes it the account's
	MailEmailChanged  MailKind = "email_changed"  // to the old address, once a change took effect
	MailSilenceAlert  MailKind = "silence_alert"  // computers that stopped contacting Cobble
	MailWeeklySummary MailKind = "weekly_summary" // the notices feed's content, weekly
	MailSignup        MailKind = "signup"         // to an address without an account, with the link that makes it
	MailSignupTaken   MailKind = "signup_taken"   // to an account's owner: someone tried to sign up with the address
	MailReportAnswer  MailKind = "report_answer"  // an admin's answer to the volunteer's report about a day
	MailFailingAlert  MailKind = "failing_alert"  // a computer failing on a project
)

// IsAlert reports whether the volunteer chose to receive this kind, so that
// its messages carry an unsubscribe link.
func (k MailKind) IsAlert() bool {
	return k == MailSilenceAlert || k == MailWeeklySummary || k == MailFailingAlert
}

// NeedsToken reports whether messages of this kind carry a link with the
// outbox row's token (a confirmation, reset or sign-up link, or an alert's
// unsubscribe link), so that one whose token is gone cannot be sent. The
// messages that only tell (an address changed, an address taken, an
// admin's answer to a report) are queued without one.
func (k MailKind) NeedsToken() bool {
	return k != MailEmailChanged && k != MailSignupTaken && k != MailReportAnswer
}

// MailStatus is where a message is in its delivery.
type MailStatus string

// A message is queued until it is sent, or failed once its attempts ran out.
const (
	MailQueued MailStatus = "queued"
	MailSent   MailStatus = "sent"
	MailFailed MailStatus = "failed"
)

// MailData is what a message says beyond its kind; each kind uses some of
// the fields. It is kept as JSON in the outbox.
type MailData struct {
	Name     string           `json:"name,omitempty"`      // the volunteer's name, for the greeting
	Email    string           `json:"email,omitempty"`     // a new address (email_change, email_changed)
	OldEmail string           `json:"old_email,omitempty"` // the address before a change
	Days     int              `json:"days,omitempty"`      // silence_alert: the volunteer's threshold
	Silent   []SilentComputer `json:"silent,omitempty"`    // silence_alert
	Week     *Totals          `json:"week,omitempty"`      // weekly_summary: the last 7 days
	Notes    []string         `json:"notes,omitempty"`     // weekly_summary: the feed's warnings
	ByAdmin  bool             `json:"by_admin,omitempty"`  // password_reset: an admin sent it
	// Answer is an admin's answer to report ReportID (report_answer).
	Answer   string `json:"answer,omitempty"`
	ReportID int64  `json:"report_id,omitempty"`
	// Failing names the computer and project of a failing alert, and
	// what fails (failing_alert).
	Failing *FailingMail `json:"failing,omitempty"`
}

// FailingMail is what a failing alert says.
type FailingMail struct {
	Computer string      `json:"computer"`
	HostID   int64       `json:"host_id"`
	Project  string      `json:"project"`
	Kind     FailureKind `json:"kind"`
}

// SilentComputer is a computer named in a silence alert.
type SilentComputer struct {
	Name        string    `json:"name"`
	LastContact time.Time `json:"last_contact"`
}

// Mail is a message in the outbox.
type Mail struct {
	ID        int64
	Kind      MailKind
	UserID    int64
	To        string
	Data      MailData
	Secret    string // the token of the message's link; empty once sent or given up
	Status    MailStatus
	Attempts  int
	LastError string
	CreatedAt time.Time
	SentAt    *time.Time
	Transport string // "smtp" or "mailbox"
	// Language is the code of the catalog the message is written in ("en",
	// "de"; "" is English): the account's choice, else the language of the
	// page it was asked for on (queueMail).
	Language string
}

// MailFilter narrows the outbox list; zero values list everything.
type MailFilter struct {
	Status    MailStatus // one status, or all
	Transport string     // "mailbox" for the development mailbox
	Limit     int        // at most this many, newest first (default 200)
}

// MailQueue is the state of the outbox at a glance.
type MailQueue struct {
	Queued, Sent, Failed int64
	// Waiting is how many queued messages are older than MailLate.
	Waiting int64
	// Oldest is when the oldest queued message was written (zero: none).
	Oldest time.Time
}

// String names the kind for people.
func (k MailKind) String() string {
	switch k {
	case MailWelcome:
		return "Welcome and confirmation"
	case MailConfirm:
		return "Address confirmation"
	case MailPasswordReset:
		return "Password reset"
	case MailEmailChange:
		return "Email change"
	case MailEmailChanged:
		return "Email changed notice"
	case MailSilenceAlert:
		return "Silent computer alert"
	case MailWeeklySummary:
		return "Weekly summary"
	case MailSignup:
		return "Sign-up link"
	case MailSignupTaken:
		return "Sign-up with a taken address"
	case MailFailingAlert:
		return "Failing computer alert"
	case MailReportAnswer:
		return "Answer to a report"
	}
	return fmt.Sprintf("Message (%s)", string(k))
}

// DefaultSilenceDays is the silence alert's threshold a volunteer starts from.
const DefaultSilenceDays = 3

// MailKinds lists every kind, in the order pages show them.
var MailKinds = []MailKind{MailSignup, MailSignupTaken, MailWelcome, MailConfirm, MailPasswordReset,
	MailEmailChange, MailEmailChanged, MailSilenceAlert, MailWeeklySummary, MailFailingAlert, MailReportAnswer}

// MailLate is how long a queued message may wait before pages warn about it.
const MailLate = 15 * time.Minute

// MailJob is the River job that delivers one message of the outbox:
// River's insert writes it with the message, in the transaction of its
// cause (queueMail), and an instance's mailer works it. A job whose ID is
// 0 delivers nothing: the sign-up and password-reset requests insert one
// when they queued no message, so that they do the same work whether or
// not an address has an account.
type MailJob struct {
	ID int64 `json:"id"` // the message's row in mail_outbox; 0: none
}

// Kind names the job for River.
func (MailJob) Kind() string { return "mail" }

// MailQueueName is River's queue of MailJobs: only instances that send
// mail work it, so that without SMTP messages stay queued.
const MailQueueName = "mail"

// MailJobAttempts bounds River's tries at one MailJob. The
// mailer gives a message up sooner, after its own MaxAttempts, keeping the
// last error in the outbox; this is the backstop should it not.
const MailJobAttempts = 100
