package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"net/url"
	"time"

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
	// next one up to an hour (default a minute).
	RetryAfter time.Duration
	// MaxAttempts is how many times a message is tried before it is given
	// up (default 8: about two hours of retries).
	MaxAttempts int
	// Poll is how often the outbox is looked at (default 2 s).
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

// mailer delivers the outbox. Several mailers (one per instance) share one
// outbox: each message is claimed by one of them at a time.
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
	m.cfg.RetryAfter = cmpDur(cfg.RetryAfter, time.Minute)
	m.cfg.Poll = cmpDur(cfg.Poll, 2*time.Second)
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

// loop delivers due messages until ctx ends.
func (m *mailer) loop(ctx context.Context) {
	t := time.NewTicker(m.cfg.Poll)
	defer t.Stop()
	for {
		for m.deliverDue(ctx) > 0 && ctx.Err() == nil {
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// deliverDue claims a due message and delivers it, returning how many it
// claimed (0 or 1).
func (m *mailer) deliverDue(ctx context.Context) int {
	// One message a claim, so that its lease outlasts its delivery
	// whatever the batch; a late outcome is refused anyway (ErrConflict).
	lease := 2*m.cfg.Timeout + time.Minute
	until := time.Now().Add(lease) // no later than the lease's end
	ms, err := m.store.Mail.ClaimMail(ctx, 1, lease)
	if err != nil {
		if ctx.Err() == nil {
			m.log.Warn("mail: reading the outbox", "err", err)
		}
		return 0
	}
	for _, msg := range ms {
		m.deliver(ctx, msg, until)
	}
	return len(ms)
}

// recordTimeout bounds one try at recording an outcome.
const recordTimeout = 10 * time.Second

// deliver sends one message, claimed until then, and records the outcome:
// sent, to be retried after a growing wait, or given up after MaxAttempts.
func (m *mailer) deliver(ctx context.Context, mm accounting.Mail, until time.Time) {
	msg, err := m.compose(mm)
	permanent := err != nil // a message that cannot be made never will be
	if err == nil {
		sendCtx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
		err = m.transport.send(sendCtx, msg)
		cancel()
	}
	if err == nil {
		m.record(mm, "sent", m.markSent(ctx, mm, until))
		return
	}
	// The outcome is recorded even when ctx ended meanwhile.
	recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	retry := time.Duration(0)
	result := "failed"
	if !permanent && mm.Attempts < m.cfg.MaxAttempts {
		retry, result = min(m.cfg.RetryAfter<<min(mm.Attempts-1, 10), time.Hour), "retry"
	}
	m.log.Warn("mail: delivery failed", "id", mm.ID, "kind", mm.Kind, "attempt", mm.Attempts, "err", err)
	m.record(mm, result, m.store.Mail.MarkMailFailed(recordCtx, mm, err.Error(), retry))
}

// markSent records that a message claimed until then was delivered. While
// the database is unavailable it tries again, after pauses growing from
// markPause to markMaxPause, for as long as the claim lasts: a delivery
// not recorded by then is made again, once the claim has run out, by
// whichever sender claims the message next. Once ctx ends (the server is
// stopping) it tries once more, and no longer.
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

// record counts an outcome, unless it could not be stored (the message is
// then claimed again once its lease ends).
func (m *mailer) record(mm accounting.Mail, result string, err error) {
	if err != nil {
		m.log.Warn("mail: recording a delivery", "id", mm.ID, "err", err)
		return
	}
	m.observe(mm.Kind, result)
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

// alertLoop queues due alerts, checks for failing computers, and forgets
// expired links, every period until ctx ends.
func alertLoop(ctx context.Context, store *accounting.Store, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := store.Mail.QueueAlerts(ctx, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("mail: queueing alerts", "err", err)
		} else if n > 0 {
			log.Info("mail: alerts queued", "messages", n)
		}
		// Failing computers: episodes, their events and alert mails.
		if err := store.Computers.CheckFailing(ctx, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("failing computers: checking", "err", err)
		}
		if _, err := store.Accounts.DeleteExpiredTokens(ctx); err != nil && ctx.Err() == nil {
			log.Warn("mail: deleting expired links", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
