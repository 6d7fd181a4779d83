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

// A message queued in German renders in German: subject, both bodies,
// footer, link label, numbers and dates; no sentence of its English
// rendering is left in it.
func TestRenderMailInGerman(t *testing.T) {
	t.Parallel()
	site := MailSite{Name: "Cobble", BaseURL: "https://am.example.org/"}
	last := time.Date(2026, time.November, 25, 14, 5, 0, 0, time.UTC)
	data := accounting.MailData{Name: "Ada", Email: "new@example.org", OldEmail: "old@example.org", Days: 3,
		Silent: []accounting.SilentComputer{{Name: "lab-pc", LastContact: last}, {Name: "laptop", LastContact: last}},
		Week:   &accounting.Totals{Estimated: 1234.5, Confirmed: 1000, CPUHours: 12.25, JobsOK: 1, JobsError: 2},
		Notes:  []string{"lab-pc hat sich seit 3 Tagen nicht gemeldet."}}
	for _, kind := range accounting.MailKinds {
		m := accounting.Mail{ID: 1, Kind: kind, Secret: "TOKEN", Data: data, Language: "de"}
		de, err := RenderMail(site, m)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		m.Language = ""
		en, err := RenderMail(site, m)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if de.Subject == en.Subject || !strings.HasPrefix(de.Text, "Hallo") {
			t.Errorf("%s: German subject %q, text %q", kind, de.Subject, de.Text)
		}
		for _, line := range strings.Split(en.Text, "\n") {
			if len(strings.Fields(line)) >= 3 && line != data.Notes[0] && (strings.Contains(de.Text, line) || strings.Contains(de.HTML, line)) {
				t.Errorf("%s: the German message has the English %q", kind, line)
			}
		}
		if !strings.Contains(de.HTML, `<html lang="de">`) || (de.Link != "" && !strings.Contains(de.HTML, "Oder öffne diese Adresse:")) {
			t.Errorf("%s: German HTML %s", kind, de.HTML)
		}
		if !strings.Contains(de.Text, "Diese Nachricht kommt von Cobble, einem BOINC-Kontoverwalter") && !strings.Contains(de.Text, "Du bekommst diese Nachricht") {
			t.Errorf("%s: no German footer in %q", kind, de.Text)
		}
		switch kind {
		case accounting.MailWeeklySummary:
			for _, want := range []string{"1.235 geschätzte Credits", "12 CPU-Stunden", "1 Aufgabe erledigt, 2 Aufgaben fehlgeschlagen",
				"Deine Übersicht öffnen", "lab-pc hat sich seit 3 Tagen"} {
				if !strings.Contains(de.Text, want) {
					t.Errorf("weekly summary lacks %q: %s", want, de.Text)
				}
			}
		case accounting.MailSilenceAlert:
			for _, want := range []string{"2 Computer melden sich nicht mehr bei Cobble", "seit 3 Tagen oder länger",
				"lab-pc (letzter Kontakt 25. Nov. 2026, 14:05 UTC)"} {
				if !strings.Contains(de.Subject+"\n"+de.Text, want) {
					t.Errorf("silence alert lacks %q: %s", want, de.Text)
				}
			}
		}
	}
}
