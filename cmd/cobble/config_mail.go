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

// register adds the mail flags to fs, with defaults from the environment.
func (f *mailFlags) register(fs *flag.FlagSet, env environment) error {
	b := &binder{fs: fs, env: env}
	optSMTPURL.to(b, &f.smtpURL)
	optMailFrom.to(b, &f.from)
	return b.err
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
