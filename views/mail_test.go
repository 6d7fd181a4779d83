package views

import (
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// Every kind the outbox allows renders, with its link in both bodies, an
// unsubscribe link exactly for alerts, and people's words escaped in HTML.
func TestRenderMailEveryKind(t *testing.T) {
	t.Parallel()
	site := MailSite{Name: "Cobble", BaseURL: "https://am.example.org/"}
	data := accounting.MailData{Name: "Ada <script>", Email: "new@example.org", OldEmail: "old@example.org", Days: 3,
		Silent: []accounting.SilentComputer{{Name: "lab-pc", LastContact: time.Now()}},
		Week:   &accounting.Totals{Estimated: 1234.5}, Notes: []string{"lab-pc has not contacted Cobble for 3 days."}}
	for _, kind := range accounting.MailKinds {
		c, err := RenderMail(site, accounting.Mail{ID: 1, Kind: kind, Secret: "TOKEN", Data: data})
		if err != nil {
			t.Errorf("%s: %v", kind, err)
			continue
		}
		if c.Subject == "" || !strings.Contains(c.Text, "Cobble") || strings.Contains(c.HTML, "<script>") {
			t.Errorf("%s: subject %q, text %q", kind, c.Subject, c.Text)
		}
		if c.Link != "" && (!strings.Contains(c.Text, c.Link) || !strings.Contains(c.HTML, c.Link)) {
			t.Errorf("%s: link %q missing from a body", kind, c.Link)
		}
		if (c.Unsubscribe != "") != kind.IsAlert() || (kind.IsAlert() && c.Unsubscribe != site.BaseURL+"unsubscribe/TOKEN") {
			t.Errorf("%s: unsubscribe %q", kind, c.Unsubscribe)
		}
		if strings.HasPrefix(kind.String(), "Message (") {
			t.Errorf("%s has no name for people", kind)
		}
	}
	if _, err := RenderMail(site, accounting.Mail{Kind: accounting.MailPasswordReset}); err == nil {
		t.Error("a reset without its token rendered")
	}
}
