package web

import (
	"strings"
	"testing"

	gomail "github.com/wneessen/go-mail"
)

func TestParseSMTPURL(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "mail.example.org:25", "http://mail.example.org/", "smtp://", "smtp://:25",
		"smtp://mail.example.org:99999", "smtp://mail.example.org:x", "smtp://mail.example.org/path",
		"smtp://mail.example.org?tls=no", "smtp://mail.example.org\r\n:25"} {
		if _, err := ParseSMTPURL(bad); err == nil {
			t.Errorf("ParseSMTPURL(%q) took it", bad)
		}
	}
	tests := []struct {
		url, addr, policy string
	}{
		{"smtp://user:pass@mail.example.org:587", "mail.example.org:587", "TLSMandatory"},
		{"smtp://user:pass@mail.example.org", "mail.example.org:587", "TLSMandatory"},
		{"smtp://relay.example.org:25", "relay.example.org:25", "TLSOpportunistic"},
		{"smtps://user:pass@mail.example.org", "mail.example.org:465", ""},
	}
	for _, tt := range tests {
		u, err := ParseSMTPURL(tt.url)
		if err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		c, err := gomail.NewClient(u.Hostname(), smtpTransport{url: u, helo: "am.example.org"}.options(DefaultMailTimeout)...)
		if err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		if c.ServerAddr() != tt.addr || (tt.policy != "" && c.TLSPolicy() != tt.policy) {
			t.Errorf("%s: server %s, TLS policy %s; want %s, %s", tt.url, c.ServerAddr(), c.TLSPolicy(), tt.addr, tt.policy)
		}
	}
}

func TestMailFrom(t *testing.T) {
	t.Parallel()
	a, err := mailFrom("", "Cobble", "am.example.org")
	if err != nil || a.String() != `"Cobble" <noreply@am.example.org>` {
		t.Errorf("default sender %v %v", a, err)
	}
	for _, bad := range []string{"not an address", "a@example.org\r\nBcc: b@example.org"} {
		if _, err := mailFrom(bad, "Cobble", "am.example.org"); err == nil || !strings.Contains(err.Error(), "not an email address") {
			t.Errorf("sender %q: %v", bad, err)
		}
	}
}
