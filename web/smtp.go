package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// DefaultMailTimeout bounds one delivery: connecting, talking and sending.
const DefaultMailTimeout = 30 * time.Second

// ParseSMTPURL checks an SMTP server's URL: smtp://[user:pass@]host[:port]
// (STARTTLS; required when there are credentials, so that they never travel
// in clear; port 587 by default) or smtps://[user:pass@]host[:port]
// (implicit TLS; port 465 by default). smtp://host:25 without credentials
// is a local relay.
func ParseSMTPURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return nil, errors.New("the SMTP URL must look like smtp://user:pass@host:587, smtps://user:pass@host:465 " +
			"or smtp://host:25")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("the SMTP URL's port %q is not a port number", p)
		}
	}
	return u, nil
}

// smtpTransport delivers messages to an SMTP server, one connection per
// message.
type smtpTransport struct {
	url  *url.URL
	helo string
}

func (t smtpTransport) name() string { return "smtp" }

// options are the client's settings for the server's URL.
func (t smtpTransport) options(timeout time.Duration) []gomail.Option {
	opts := []gomail.Option{gomail.WithTimeout(timeout), gomail.WithHELO(t.helo)}
	user, pass := t.url.User.Username(), ""
	if p, ok := t.url.User.Password(); ok {
		pass = p
	}
	port := t.url.Port()
	switch {
	case t.url.Scheme == "smtps":
		opts = append(opts, gomail.WithSSL())
		port = cmp.Or(port, "465")
	case user != "":
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
		port = cmp.Or(port, "587")
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
		port = cmp.Or(port, "587")
	}
	n, _ := strconv.Atoi(port) // checked by ParseSMTPURL
	opts = append(opts, gomail.WithPort(n))
	if user != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(user), gomail.WithPassword(pass))
	}
	return opts
}

// send delivers msg, within ctx's deadline.
func (t smtpTransport) send(ctx context.Context, msg *gomail.Msg) error {
	timeout := DefaultMailTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d)
	}
	c, err := gomail.NewClient(t.url.Hostname(), t.options(timeout)...)
	if err != nil {
		return err
	}
	return c.DialAndSendWithContext(ctx, msg)
}
