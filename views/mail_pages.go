package views

import (
	"strconv"

	"github.com/cobble-am/cobble/accounting"
)

// AdminMailPage is the outbox as admins see it: counts, one page of
// messages, and how messages leave this instance. It never holds a link.
type AdminMailPage struct {
	Queue accounting.MailQueue
	Mails []accounting.Mail
	// Status is the filter: one status, or "" for every message.
	Status accounting.MailStatus
	// Mode is how messages leave: "smtp", "mailbox" or "" (they stay
	// queued).
	Mode string
}

// AdminUserMail is what the admin's page of a volunteer says about email.
type AdminUserMail struct {
	// Confirmed says whether the volunteer confirmed the address.
	Confirmed bool
	// ResetSent says a reset link was just queued for the volunteer.
	ResetSent bool
	// NoSMTP says messages stay queued: no SMTP server is configured.
	NoSMTP bool
	// Problem is why the last action could not be done, or "".
	Problem string
}

// DevMailPage is the development mailbox: the messages delivered to it,
// newest first.
type DevMailPage struct {
	Messages []DevMessage
	// Queued is how many messages are still on their way.
	Queued int64
}

// DevMessage is one message of the development mailbox, rendered as it
// was sent. OK is false when it can no longer be rendered.
type DevMessage struct {
	Mail    accounting.Mail
	Content MailContent
	OK      bool
}

// NewDevMailPage renders the messages ms for the development mailbox.
func NewDevMailPage(site MailSite, ms []accounting.Mail, queued int64) DevMailPage {
	d := DevMailPage{Queued: queued, Messages: make([]DevMessage, len(ms))}
	for i, m := range ms {
		c, err := RenderMail(site, m)
		d.Messages[i] = DevMessage{Mail: m, Content: c, OK: err == nil}
	}
	return d
}

// mailStatuses are the filter's choices on the admin's mail page.
var mailStatuses = []accounting.MailStatus{accounting.MailQueued, accounting.MailSent, accounting.MailFailed}

// noSMTPText warns that nothing leaves without an SMTP server.
const noSMTPText = "No SMTP server is configured (--smtp-url): messages stay queued, password resets among them, until one is set."

// mailModeText says how messages leave, for a mode other than "".
func mailModeText(mode string) string {
	if mode == "mailbox" {
		return "This development instance delivers into the local mailbox at /dev/mail."
	}
	return "Mail goes out through the SMTP server set with --smtp-url."
}

// mailWaitingText warns of messages queued longer than MailLate.
func mailWaitingText(n int64) string {
	late := strconv.Itoa(int(accounting.MailLate.Minutes())) + " minutes"
	if n == 1 {
		return "1 message has waited over " + late + " to be sent."
	}
	return count(n) + " messages have waited over " + late + " to be sent."
}

// mailOnTheWay says how many messages the development mailbox still awaits.
func mailOnTheWay(n int64) string {
	if n == 1 {
		return "1 message is on its way; reload in a moment."
	}
	return count(n) + " messages are on their way; reload in a moment."
}

// mailStatusClass colours a message's status like a run's.
func mailStatusClass(s accounting.MailStatus) string {
	switch s {
	case accounting.MailSent:
		return "status-ok"
	case accounting.MailFailed:
		return "status-failed"
	}
	return "status-running"
}
