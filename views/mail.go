package views

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// MailSite is what every message says of the account manager.
type MailSite struct {
	Name    string // the account manager's name
	BaseURL string // its pages, ending in "/"
}

// MailContent is a message ready to send: its subject, a plain-text body
// and the same in HTML.
type MailContent struct {
	Subject    string
	Text, HTML string
	// Link is the message's one action (empty for notices).
	Link string
	// Unsubscribe is the one-click unsubscribe URL of an alert (RFC 8058).
	Unsubscribe string
}

// mailBody is a message's words, from which both bodies are made.
type mailBody struct {
	Greeting  string
	Before    []string // paragraphs before the link
	Items     []string // a list after them
	LinkLabel string
	Link      string
	After     []string // paragraphs after the link
	Footer    string
}

// RenderMail renders an outbox message in its language (m.Language; ""
// or one Cobble lacks is English). The link's token is the message's
// secret; a message that needs one and lacks it (already sent, say) is an
// error.
func RenderMail(site MailSite, m accounting.Mail) (MailContent, error) {
	link := func(path string) string { return site.BaseURL + path + m.Secret }
	if m.Kind.NeedsToken() && m.Secret == "" {
		return MailContent{}, fmt.Errorf("message %d (%s) has no token left to send", m.ID, m.Kind)
	}
	l := locale.Default().Lookup(m.Language)
	subject, b := mailWords(l, site, m, link)
	c := MailContent{Subject: subject, Link: b.Link}
	if m.Kind.IsAlert() {
		c.Unsubscribe = link("unsubscribe/")
		b.Footer = l.T("mail.footer_alert", "Unsubscribe", c.Unsubscribe, "URL", site.BaseURL)
	} else {
		b.Footer = l.T("mail.footer", "Site", site.Name, "URL", site.BaseURL)
	}
	c.Text = b.text()
	var html bytes.Buffer
	if err := mailHTML(subject, b).Render(locale.With(context.Background(), l), &html); err != nil {
		return MailContent{}, err
	}
	c.HTML = html.String()
	return c, nil
}

// mailWords says in l what a message of m's kind says.
func mailWords(l *locale.Lang, site MailSite, m accounting.Mail, link func(string) string) (string, mailBody) {
	d := m.Data
	b := mailBody{Greeting: greeting(l, d.Name)}
	switch m.Kind {
	case accounting.MailWelcome, accounting.MailConfirm:
		if m.Kind == accounting.MailWelcome {
			b.Before = []string{l.T("mail.welcome_intro", "Site", site.Name)}
		}
		b.Before = append(b.Before, l.T("mail.confirm_ask", "Site", site.Name))
		b.LinkLabel, b.Link = l.T("mail.confirm_link"), link("email/confirm/")
		b.After = []string{l.T("mail.confirm_after", "URL", site.BaseURL)}
		return l.T("mail.confirm_subject", "Site", site.Name), b
	case accounting.MailSignup:
		b.Before = []string{l.T("mail.signup_intro", "Site", site.Name)}
		b.LinkLabel, b.Link = l.T("mail.signup_link"), link("signup/finish/")
		b.After = []string{l.T("mail.signup_after")}
		return l.T("mail.signup_subject", "Site", site.Name), b
	case accounting.MailSignupTaken:
		b.Before = []string{l.T("mail.taken_intro", "Site", site.Name), l.T("mail.taken_if_you", "URL", site.BaseURL),
			l.T("mail.taken_if_not")}
		return l.T("mail.taken_subject", "Site", site.Name), b
	case accounting.MailPasswordReset:
		b.Before = []string{l.T("mail.reset_intro", "Site", site.Name)}
		if d.ByAdmin {
			b.Before = []string{l.T("mail.reset_intro_admin", "Site", site.Name)}
		}
		b.LinkLabel, b.Link = l.T("mail.reset_link"), link("password/reset/")
		b.After = []string{l.T("mail.reset_after")}
		return l.T("mail.reset_subject", "Site", site.Name), b
	case accounting.MailEmailChange:
		b.Greeting = greeting(l, "")
		b.Before = []string{l.T("mail.change_intro", "Email", d.Email, "Site", site.Name, "OldEmail", d.OldEmail)}
		b.LinkLabel, b.Link = l.T("mail.change_link"), link("email/confirm/")
		b.After = []string{l.T("mail.change_after")}
		return l.T("mail.change_subject", "Site", site.Name), b
	case accounting.MailEmailChanged:
		b.Before = []string{l.T("mail.changed_intro", "Site", site.Name, "Email", d.Email),
			l.T("mail.changed_if_not", "URL", site.BaseURL)}
		return l.T("mail.changed_subject", "Site", site.Name), b
	case accounting.MailSilenceAlert:
		return silenceWords(l, site, d, b)
	case accounting.MailWeeklySummary:
		return weeklyWords(l, site, d, b)
	case accounting.MailFailingAlert:
		return failingWords(l, site, d, b)
	case accounting.MailReportAnswer:
		return answerWords(l, site, d, b)
	}
	b.Before = []string{l.T("mail.unknown_kind")}
	return site.Name, b
}

func greeting(l *locale.Lang, name string) string {
	if strings.TrimSpace(name) == "" {
		return l.T("mail.greeting_anonymous")
	}
	return l.T("mail.greeting", "Name", name)
}

func silenceWords(l *locale.Lang, site MailSite, d accounting.MailData, b mailBody) (string, mailBody) {
	n := len(d.Silent)
	days := locale.M("mail.days", "Count", d.Days)
	lead, after := l.T("mail.silence_lead_one", "Site", site.Name, "Days", days), l.T("mail.silence_after_one", "URL", site.BaseURL)
	if n > 1 {
		lead, after = l.T("mail.silence_lead_many", "Site", site.Name, "Days", days), l.T("mail.silence_after_many", "URL", site.BaseURL)
	}
	b.Before = []string{lead}
	for _, c := range d.Silent {
		b.Items = append(b.Items, l.T("mail.silence_item", "Computer", c.Name, "When", l.DateTime(c.LastContact.UTC())))
	}
	b.After = []string{after}
	return l.T("mail.silence_subject", "Count", n, "Site", site.Name), b
}

// answerWords gives an admin's answer to the volunteer's report.
func answerWords(l *locale.Lang, site MailSite, d accounting.MailData, b mailBody) (string, mailBody) {
	b.Before = []string{l.T("reports.mail_lead", "Site", site.Name)}
	b.Items = []string{d.Answer}
	b.LinkLabel, b.Link = l.T("reports.mail_link"), site.BaseURL+"computers"
	return l.T("reports.mail_subject", "Site", site.Name), b
}

// failingWords says what fails on which computer, and what to do.
func failingWords(l *locale.Lang, site MailSite, d accounting.MailData, b mailBody) (string, mailBody) {
	var f accounting.FailingMail
	if d.Failing != nil {
		f = *d.Failing
	}
	b.Before = []string{l.T("failing.mail_lead", "Site", site.Name, "Computer", f.Computer, "Project", f.Project)}
	b.Items = []string{failingAdvice(l, f.Kind)}
	b.LinkLabel, b.Link = l.T("failing.mail_link"), site.BaseURL+"computers/"+strconv.FormatInt(f.HostID, 10)
	return l.T("failing.mail_subject", "Computer", f.Computer, "Site", site.Name), b
}

// failingAdvice says what fails and what to do about it.
func failingAdvice(l *locale.Lang, k accounting.FailureKind) string {
	switch k {
	case accounting.FailureJobs:
		return l.T("failing.advice_jobs")
	case accounting.FailureNothingGranted:
		return l.T("failing.advice_nothing_granted")
	}
	return l.T("failing.advice_project_silent")
}

func weeklyWords(l *locale.Lang, site MailSite, d accounting.MailData, b mailBody) (string, mailBody) {
	var w accounting.Totals
	if d.Week != nil {
		w = *d.Week
	}
	b.Before = []string{l.T("mail.weekly_lead", "Site", site.Name)}
	b.Items = []string{
		l.T("mail.weekly_credit", "Estimated", locale.Credit(w.Estimated), "Confirmed", locale.Credit(w.Confirmed)),
		l.T("mail.weekly_hours", "CPU", hoursIn(l, w.CPUHours), "GPU", hoursIn(l, w.GPUHours)),
		l.T("mail.weekly_jobs", "Done", locale.M("mail.jobs", "Count", w.JobsOK),
			"Failed", locale.M("mail.jobs", "Count", w.JobsError)),
	}
	b.After = append(b.After, d.Notes...)
	b.LinkLabel, b.Link = l.T("mail.weekly_link"), site.BaseURL
	return l.T("mail.weekly_subject", "Site", site.Name), b
}

// text is the plain-text body.
func (b mailBody) text() string {
	var t strings.Builder
	t.WriteString(b.Greeting + "\n\n")
	for _, p := range b.Before {
		t.WriteString(p + "\n\n")
	}
	for _, it := range b.Items {
		t.WriteString("  - " + it + "\n")
	}
	if len(b.Items) > 0 {
		t.WriteString("\n")
	}
	if b.Link != "" {
		t.WriteString(b.LinkLabel + ":\n" + b.Link + "\n\n")
	}
	for _, p := range b.After {
		t.WriteString(p + "\n\n")
	}
	t.WriteString("-- \n" + b.Footer + "\n")
	return t.String()
}
