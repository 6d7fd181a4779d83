package views

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// Every kind of event, with and without a project, has its sentence in
// every language, naming the project when there is one.
func TestEventMessages(t *testing.T) {
	c := func(v float64) *accounting.Counters { return &accounting.Counters{CPUEC: v} }
	details := map[accounting.EventKind]accounting.EventDetail{
		accounting.EventStaleReport:     {Before: c(1500), After: c(1200.5)},
		accounting.EventClamp:           {Requested: c(12345), Clamped: c(2345)},
		accounting.EventImplausibleHost: {Claims: []string{"4096 CPUs"}},
		accounting.EventCreditDecrease:  {Decrease: 1234.5, TotalCredit: 98765},
	}
	kinds := append([]accounting.EventKind{"mystery"}, accounting.EventKinds...)
	for _, k := range kinds {
		for _, project := range []string{"", "Einstein@Home"} {
			e := accounting.Event{Kind: k, ProjectName: project, Detail: details[k]}
			for _, l := range locale.Default().Langs() {
				got := e.Msg().In(l)
				if strings.Contains(got, "⟦") || project != "" && k != accounting.EventImplausibleHost && !strings.Contains(got, project) {
					t.Errorf("%s, project %q, in %s: %q", k, project, l.Code, got)
				}
			}
		}
	}
}

// TestVolunteerPagesInGerman renders the dashboard's history, a
// computer's page and the projects page with German in the context: their
// words, numbers and dates are German.
func TestVolunteerPagesInGerman(t *testing.T) {
	de := locale.Default().Get("de")
	if de == nil {
		t.Fatal("no German catalog")
	}
	ctx := locale.With(context.Background(), de)
	day := time.Date(2026, 3, 6, 0, 0, 0, 0, time.UTC)
	h := History{From: day.AddDate(0, 0, -29), To: day, Days: 30, BasePath: "/",
		Rows:       []accounting.HistoryDay{{Day: day, ProjectID: 1, ProjectName: "Rosetta", CPUEC: 12345.5, Confirmed: 1000}},
		ExportDays: map[int64]time.Time{1: day.AddDate(0, 0, -2)}}
	now := day.Add(30 * time.Hour)
	contact := now.Add(-3 * time.Hour)
	comp := accounting.Computer{ID: 7, Name: "box", NCPUs: 8, Connected: true, CreatedAt: day, LastRPCAt: &contact}
	var b strings.Builder
	if err := Dashboard(Page{User: &accounting.User{Name: "Ada"}}, DashboardPage{History: h, TimeZone: "Europe/Berlin",
		Connect: Connect{AMURL: "https://cobble.example/", Email: "ada@example.org"}}).Render(ctx, &b); err != nil {
		t.Fatal(err)
	}
	if err := Computer(Page{SiteName: "Cobble"}, ComputerPage{Computer: comp, History: h, Now: now,
		Events:   []accounting.Event{{At: day, Kind: accounting.EventReset, ProjectName: "Rosetta"}},
		Projects: []accounting.ComputerProject{{Name: "Rosetta", Since: day, Estimated: 1234.5, Active: true, Assigned: true, Attached: true, Reason: accounting.ReasonKeyword}},
	}).Render(ctx, &b); err != nil {
		t.Fatal(err)
	}
	if err := Projects(Page{}, []accounting.VolunteerProject{{Name: "Rosetta", Computers: 2, Estimated: 12345.5, CPUHours: 2.5}}).Render(ctx, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Willkommen, Ada", "Dein täglicher Verlauf", "Tage zählen in deiner Zeitzone (Europe/Berlin)",
		"12.345,5",     // credit, German separators
		"6. März 2026", // a day in the table
		"Bestätigte Credits sind bis zum 4. März 2026 bekannt",
		"Geschätzte Credits pro Tag, letzte 30 Tage, insgesamt 12,3 Tsd., Höchstwert am 6. März 2026", // the chart's text alternative
		"Fr., 6. März 2026 — Geschätzt, CPU: 12.345,5",                                                // a day's tooltip
		"Werkzeuge → Kontoverwaltung benutzen",
		"vor 3 Std.", "8 CPUs", "Verbunden seit", "Die Zähler von BOINC für Rosetta haben wieder bei null begonnen",
		"Es passt zu einem Forschungsgebiet", "1.235", "Diesen Computer trennen",
		"Deine Projekte", "2,5", "CPU-Std.",
		// The history table's labels on a phone, for the stylesheet.
		`style="--label-1: &#34;Geschätzt&#34;; --label-2: &#34;Bestätigt&#34;; --label-3: &#34;CPU-Std.&#34;;`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the German pages lack %q", want)
		}
	}
	for _, english := range []string{"Your daily history", "not known yet", "Estimated credit", "Connect a computer", "days ago", "CPU hours"} {
		if strings.Contains(out, english) {
			t.Errorf("the German pages say %q", english)
		}
	}
}
