package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"net/url"
	"time"

	"github.com/riverqueue/river"
	gomail "github.com/wneessen/go-mail"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/views"
)

// MailConfig says how messages leave the outbox.
type MailConfig struct {
	// SMTPURL is the SMTP server (see ParseSMTPURL); empty: none.
	SMTPURL string
	// From is the sender, an address with or without a name
	// ("Cobble <am@example.org>"); empty: the account manager's name at
	// noreply@ the base URL's host.
	From string
	// DevMailbox delivers into the development mailbox (/dev/mail) when
	// there is no SMTP server: 'cobble dev' sets it. Without either,
	// messages stay queued, and the admin pages say so.
	DevMailbox bool
	// Timeout bounds one delivery (default DefaultMailTimeout).
	Timeout time.Duration
	// RetryAfter is the wait before the second attempt, doubled for each
	// next one up to an hour (default DefaultMailRetryAfter).
	RetryAfter time.Duration
	// MaxAttempts is how many times a message is tried before it is given
	// up (default 8: about two hours of retries).
	MaxAttempts int
	// Poll is how often the mail queue is looked at for jobs the instance
	// was not told of (default DefaultMailPoll).
	Poll time.Duration
}

// transport is where a mailer delivers.
type transport interface {
	name() string // "smtp" or "mailbox", as the outbox records it
	send(ctx context.Context, msg *gomail.Msg) error
}

// mailboxTransport keeps messages in the outbox for /dev/mail.
type mailboxTransport struct{}

func (mailboxTransport) name() string                            { return "mailbox" }
func (mailboxTransport) send(context.Context, *gomail.Msg) error { return nil }

// mailer delivers the outbox's messages, one River job each (mailWorker).
// Several mailers (one per instance) share one outbox: River gives each job
// to one of them at a time, and each message is claimed by one at a time.
type mailer struct {
	store     *accounting.Store
	transport transport
	site      views.MailSite
	from      *mail.Address
	host      string // the Message-ID's domain
	cfg       MailConfig
	log       *slog.Logger
	observe   func(kind accounting.MailKind, result string)
}

// newMailer returns the mailer cfg asks for, or nil when messages are to
// stay queued.
func newMailer(cfg MailConfig, site views.MailSite, store *accounting.Store, log *slog.Logger,
	observe func(accounting.MailKind, string)) (*mailer, error) {
	base, err := url.Parse(site.BaseURL)
	if err != nil {
		return nil, err
	}
	from, err := mailFrom(cfg.From, site.Name, base.Hostname())
	if err != nil {
		return nil, err
	}
	m := &mailer{store: store, site: site, from: from, host: base.Hostname(), cfg: cfg, log: log, observe: observe}
	m.cfg.Timeout = cmpDur(cfg.Timeout, DefaultMailTimeout)
	m.cfg.RetryAfter = cmpDur(cfg.RetryAfter, DefaultMailRetryAfter)
	m.cfg.Poll = cmpDur(cfg.Poll, DefaultMailPoll)
	if m.cfg.MaxAttempts <= 0 {
		m.cfg.MaxAttempts = 8
	}
	switch {
	case cfg.SMTPURL != "":
		u, err := ParseSMTPURL(cfg.SMTPURL)
		if err != nil {
			return nil, err
		}
		m.transport = smtpTransport{url: u, helo: m.host}
	case cfg.DevMailbox:
		m.transport = mailboxTransport{}
	default:
		return nil, nil
	}
	return m, nil
}

// mailFrom parses the sender's address, defaulting to noreply@host.
func mailFrom(from, name, host string) (*mail.Address, error) {
	if from == "" {
		return &mail.Address{Name: name, Address: "noreply@" + host}, nil
	}
	a, err := mail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("the sender address %q is not an email address", from)
	}
	return a, nil
}

func cmpDur(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// mailWorker works the mail queue's jobs: each delivers one message.
type mailWorker struct {
	river.WorkerDefaults[accounting.MailJob]
	m *mailer
}

// Work delivers the job's message, unless it is no longer queued. A
// failure to be tried again is its error: River runs the job again after
// NextRetry; a message given up cancels the job.
func (w *mailWorker) Work(ctx context.Context, job *river.Job[accounting.MailJob]) error {
	return w.m.work(ctx, job.Args.ID, job.Attempt)
}

// NextRetry is when a failed delivery is tried again: after RetryAfter,
// doubled for each attempt since, up to an hour.
func (w *mailWorker) NextRetry(job *river.Job[accounting.MailJob]) time.Time {
	return time.Now().Add(w.m.retryAfter(job.Attempt))
}

// retryAfter is the wait after the attempt-th failed delivery.
func (m *mailer) retryAfter(attempt int) time.Duration {
	return min(m.cfg.RetryAfter<<min(max(attempt-1, 0), 10), time.Hour)
}

// work claims the message id for its job's attempt-th run and delivers
// it. A message already sent or given up is left alone. A message another
// claim holds is waited for (the job is snoozed until the claim runs out):
// the claim of a sender whose instance died, whose job River's rescuer
// gave this one; a claim that ends with the message sent leaves this job
// nothing to do.
func (m *mailer) work(ctx context.Context, id int64, attempt int) error {
	if id == 0 {
		return nil // the job of a request that queued no message (accounting.MailJob)
	}
	// The claim's lease outlasts the delivery; a late outcome is refused
	// anyway (ErrConflict).
	lease := mailLease(m.cfg.Timeout)
	until := time.Now().Add(lease) // no later than the lease's end
	mm, err := m.store.Mail.TakeMail(ctx, id, lease)
	if errors.Is(err, accounting.ErrNotFound) {
		return m.waitClaim(ctx, id)
	}
	if err != nil {
		return fmt.Errorf("taking message %d: %w", id, err)
	}
	return m.deliver(ctx, mm, attempt, until)
}

// recordTimeout bounds one try at recording an outcome.
const recordTimeout = 10 * time.Second

// deliver sends one message, claimed until then, and records the outcome:
// sent; to be tried again (its error, for River); or given up, after
// MaxAttempts or when it can never be made (a cancelled job).
func (m *mailer) deliver(ctx context.Context, mm accounting.Mail, attempt int, until time.Time) error {
	msg, err := m.compose(mm)
	permanent := err != nil // a message that cannot be made never will be
	if err == nil {
		sendCtx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
		err = m.transport.send(sendCtx, msg)
		cancel()
	}
	if err == nil {
		return m.record(mm, "sent", m.markSent(ctx, mm, until), nil)
	}
	// The outcome is recorded even when ctx ended meanwhile.
	recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	retry, result, outcome := time.Duration(0), "failed", river.JobCancel(err)
	if !permanent && mm.Attempts < m.cfg.MaxAttempts {
		retry, result, outcome = m.retryAfter(attempt), "retry", err
	}
	m.log.Warn("mail: delivery failed", "id", mm.ID, "kind", mm.Kind, "attempt", mm.Attempts, "err", err)
	return m.record(mm, result, m.store.Mail.MarkMailFailed(recordCtx, mm, err.Error(), retry), outcome)
}

// markSent records that a message claimed until then was delivered. While
// the database is unavailable it tries again, after pauses growing from
// markPause to markMaxPause, for as long as the claim and the job last: a
// delivery not recorded by then is made again, once the claim has run
// out, by whichever sender claims the message next. Once ctx ends (the
// job's timeout, mailJobTimeout, or the server stopping) it tries once
// more, and no longer.
func (m *mailer) markSent(ctx context.Context, mm accounting.Mail, until time.Time) error {
	pause := markPause
	for {
		recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		err := m.store.Mail.MarkMailSent(recordCtx, mm, m.transport.name())
		cancel()
		if err == nil || !errors.Is(err, accounting.ErrUnavailable) || ctx.Err() != nil ||
			time.Now().Add(pause).After(until) {
			return err
		}
		m.log.Warn("mail: recording a delivery, trying again", "id", mm.ID, "in", pause, "err", err)
		wait := time.NewTimer(pause)
		select {
		case <-ctx.Done():
		case <-wait.C:
		}
		wait.Stop()
		pause = min(2*pause, markMaxPause)
	}
}

// The pauses between markSent's tries.
const (
	markPause    = 250 * time.Millisecond
	markMaxPause = 5 * time.Second
)

// record counts an outcome and returns the job's, unless it could not be
// stored: then the job fails, and its next run finds the message queued
// once its claim has run out (or the stray-mail round gives it a job).
func (m *mailer) record(mm accounting.Mail, result string, err, outcome error) error {
	if err != nil {
		m.log.Warn("mail: recording a delivery", "id", mm.ID, "err", err)
		return fmt.Errorf("recording message %d: %w", mm.ID, err)
	}
	m.observe(mm.Kind, result)
	return outcome
}

// compose renders an outbox message into a MIME message: plain text with
// an HTML alternative, a Date, a Message-ID that stays the same on every
// attempt, Auto-Submitted, and for alerts the one-click unsubscribe
// headers. Addresses and the subject are encoded by the mail library.
func (m *mailer) compose(mm accounting.Mail) (*gomail.Msg, error) {
	c, err := views.RenderMail(m.site, mm)
	if err != nil {
		return nil, err
	}
	msg := gomail.NewMsg()
	msg.FromMailAddress(m.from)
	if err := msg.To(mm.To); err != nil {
		return nil, fmt.Errorf("recipient: %w", err)
	}
	msg.Subject(c.Subject)
	msg.SetDateWithValue(time.Now())
	msg.SetMessageIDWithValue(fmt.Sprintf("cobble-%d-%d@%s", mm.ID, mm.CreatedAt.Unix(), m.host))
	msg.SetGenHeader("Auto-Submitted", "auto-generated")
	if c.Unsubscribe != "" {
		msg.SetGenHeader(gomail.HeaderListUnsubscribe, "<"+c.Unsubscribe+">")
		msg.SetGenHeader(gomail.HeaderListUnsubscribePost, "List-Unsubscribe=One-Click")
	}
	msg.SetBodyString(gomail.TypeTextPlain, c.Text)
	msg.AddAlternativeString(gomail.TypeTextHTML, c.HTML)
	return msg, nil
}
