package views

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/cobble-am/cobble/accounting"
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

// RenderMail renders an outbox message. The link's token is the message's
// secret; a message that needs one and lacks it (already sent, say) is an
// error.
func RenderMail(site MailSite, m accounting.Mail) (MailContent, error) {
	link := func(path string) string { return site.BaseURL + path + m.Secret }
	needsLink := m.Kind != accounting.MailEmailChanged && m.Kind != accounting.MailSignupTaken
	if needsLink && m.Secret == "" {
		return MailContent{}, fmt.Errorf("message %d (%s) has no token left to send", m.ID, m.Kind)
	}
	subject, b := mailWords(site, m, link)
	c := MailContent{Subject: subject, Link: b.Link}
	if m.Kind.IsAlert() {
		c.Unsubscribe = link("unsubscribe/")
		b.Footer = "You receive this because you asked for it in your settings. To stop it, open " +
			c.Unsubscribe + " or change your settings at " + site.BaseURL + "settings."
	} else {
		b.Footer = "This message was sent by " + site.Name + ", a BOINC account manager, at " + site.BaseURL +
			". It is sent automatically; replies are not read."
	}
	c.Text = b.text()
	var html bytes.Buffer
	if err := mailHTML(subject, b).Render(context.Background(), &html); err != nil {
		return MailContent{}, err
	}
	c.HTML = html.String()
	return c, nil
}

// mailWords says what a message of m's kind says.
func mailWords(site MailSite, m accounting.Mail, link func(string) string) (string, mailBody) {
	d := m.Data
	b := mailBody{Greeting: greeting(d.Name)}
	switch m.Kind {
	case accounting.MailWelcome, accounting.MailConfirm:
		if m.Kind == accounting.MailWelcome {
			b.Before = []string{"Welcome to " + site.Name + ". Your account works already: connect your computers " +
				"with BOINC Manager's \"Use account manager\" and this email address."}
		}
		b.Before = append(b.Before, "Please confirm that this address is yours. Confirming lets "+site.Name+
			" send you the alerts you choose, and shows that nobody else signed up with your address.")
		b.LinkLabel, b.Link = "Confirm my address", link("email/confirm/")
		b.After = []string{"The link works for 7 days. If you did not sign up, ignore this message; " +
			"to take the account over, ask for a new password at " + site.BaseURL + "password/forgot."}
		return "Confirm your email address for " + site.Name, b
	case accounting.MailSignup:
		b.Before = []string{"Welcome to " + site.Name + ". Someone, probably you, signed up with this address. " +
			"Follow the link to finish: you enter the password you chose, and your account is ready."}
		b.LinkLabel, b.Link = "Finish signing up", link("signup/finish/")
		b.After = []string{"The link works for 24 hours. Then connect your computers with BOINC Manager's " +
			"\"Use account manager\" and this email address. If you did not sign up, ignore this message: no account is made."}
		return "Finish signing up for " + site.Name, b
	case accounting.MailSignupTaken:
		b.Before = []string{"Someone tried to sign up for " + site.Name + " with this address, which has an account already. " +
			"No new account was made, and nothing about yours changed.",
			"If it was you: log in at " + site.BaseURL + "login, or if you forgot your password, set a new one at " +
				site.BaseURL + "password/forgot.",
			"If it was not you, ignore this message."}
		return "Someone tried to sign up for " + site.Name + " with your address", b
	case accounting.MailPasswordReset:
		b.Before = []string{"Someone, probably you, asked to set a new password for your " + site.Name + " account."}
		if d.ByAdmin {
			b.Before = []string{"An administrator of " + site.Name + " sent you this link to set a new password."}
		}
		b.LinkLabel, b.Link = "Set a new password", link("password/reset/")
		b.After = []string{"The link works once, for one hour. Your computers keep working; there is nothing to change on them. " +
			"If you did not ask for this, ignore this message: your password stays as it is."}
		return "Set a new password for " + site.Name, b
	case accounting.MailEmailChange:
		b.Greeting = "Hello,"
		b.Before = []string{"Someone asked to use " + d.Email + " for the " + site.Name + " account of " + d.OldEmail +
			". The change takes effect when you follow this link."}
		b.LinkLabel, b.Link = "Use this address", link("email/confirm/")
		b.After = []string{"The link works for 24 hours. If you did not ask for this, ignore this message; nothing changes."}
		return "Confirm your new email address for " + site.Name, b
	case accounting.MailEmailChanged:
		b.Before = []string{"The email address of your " + site.Name + " account is now " + d.Email +
			". Use it to log in, also in BOINC Manager.",
			"If you did not make this change, ask for a new password at " + site.BaseURL + "password/forgot " +
				"and write to the administrators."}
		return "Your " + site.Name + " email address was changed", b
	case accounting.MailSilenceAlert:
		return silenceWords(site, d, b)
	case accounting.MailWeeklySummary:
		return weeklyWords(site, d, b)
	}
	b.Before = []string{"(A message of an unknown kind.)"}
	return site.Name, b
}

func greeting(name string) string {
	if strings.TrimSpace(name) == "" {
		return "Hello,"
	}
	return "Hello " + name + ","
}

func silenceWords(site MailSite, d accounting.MailData, b mailBody) (string, mailBody) {
	days := plural(int64(d.Days), "day", "days")
	subject := "A computer has stopped contacting " + site.Name
	lead := "This computer has not contacted " + site.Name + " for " + days + " or more:"
	question := "Is BOINC still running on it?"
	if len(d.Silent) > 1 {
		subject = fmt.Sprintf("%d computers have stopped contacting %s", len(d.Silent), site.Name)
		lead = "These computers have not contacted " + site.Name + " for " + days + " or more:"
		question = "Is BOINC still running on them?"
	}
	b.Before = []string{lead}
	for _, c := range d.Silent {
		b.Items = append(b.Items, c.Name+" (last contact "+when(c.LastContact)+")")
	}
	b.After = []string{question + " You hear about each silence once: nothing more is sent until a computer " +
		"is back and falls silent again. Your computers: " + site.BaseURL + "computers"}
	return subject, b
}

func weeklyWords(site MailSite, d accounting.MailData, b mailBody) (string, mailBody) {
	var w accounting.Totals
	if d.Week != nil {
		w = *d.Week
	}
	b.Before = []string{"Your computers' last 7 days with " + site.Name + ":"}
	b.Items = []string{
		credit(w.Estimated) + " estimated credit (" + credit(w.Confirmed) + " confirmed by the projects so far)",
		fmt.Sprintf("%.1f CPU hours, %.1f GPU hours", w.CPUHours, w.GPUHours),
		plural(w.JobsOK, "job", "jobs") + " done, " + plural(w.JobsError, "job", "jobs") + " failed",
	}
	b.After = append(b.After, d.Notes...)
	b.LinkLabel, b.Link = "Open your dashboard", site.BaseURL
	return "Your week with " + site.Name, b
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
