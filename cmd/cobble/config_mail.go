package main

import (
	"flag"
	"fmt"
	"net/mail"

	"github.com/cobble-am/cobble/web"
)

// mailFlags say how Cobble sends email.
type mailFlags struct {
	smtpURL, from string
}

func (f *mailFlags) register(fs *flag.FlagSet, env environment) {
	fs.StringVar(&f.smtpURL, "smtp-url", env.getenv("COBBLE_SMTP_URL"),
		"the SMTP server mail goes out through: smtp://user:pass@host:587 (STARTTLS), smtps://user:pass@host:465, "+
			"or smtp://host:25 for a local relay (env COBBLE_SMTP_URL; default: none, messages wait in the outbox)")
	fs.StringVar(&f.from, "mail-from", env.getenv("COBBLE_MAIL_FROM"),
		"the `address` mail comes from, such as \"Cobble <am@example.org>\" (env COBBLE_MAIL_FROM; "+
			"default: the name at noreply@ the base URL's host)")
}

// apply checks the flags and sets cfg.Mail.
func (f *mailFlags) apply(cfg *web.Config) error {
	if f.smtpURL != "" {
		if _, err := web.ParseSMTPURL(f.smtpURL); err != nil {
			return fmt.Errorf("%w: --smtp-url: %v", errUsage, err)
		}
	}
	if f.from != "" {
		if _, err := mail.ParseAddress(f.from); err != nil {
			return fmt.Errorf("%w: --mail-from %q is not an email address", errUsage, f.from)
		}
	}
	cfg.Mail.SMTPURL, cfg.Mail.From = f.smtpURL, f.from
	return nil
}
