package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
)

// untilDeadline is how long a wait may last: up to a little before the
// test's own deadline (go test -timeout), else fallback.
func untilDeadline(t *testing.T, fallback time.Duration) time.Duration {
	if d, ok := t.Deadline(); ok {
		return max(time.Until(d)-5*time.Second, time.Second)
	}
	return fallback
}

// An admin's answer to a report whose volunteer asked for it by mail
// reaches the volunteer over SMTP, with the answer in it, and its outbox
// row is sent: the answer carries no link token, and needs none.
func TestReportAnswerIsMailed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newMailEnv(t, nil)
	ada := e.user("ada@example.org", "ada-password")
	if _, err := e.pool.Exec(ctx, `UPDATE users SET email_confirmed_at = now() WHERE id = $1`, ada.ID); err != nil {
		t.Fatal(err)
	}
	p := e.project(accounting.Project{URL: "https://one.example.org/", Name: "One"})
	today := e.store.Ledger.Today(time.Now(), "UTC")
	if _, err := demodata.Seed(ctx, e.pool, demodata.Spec{UserID: ada.ID, Projects: []int64{p.ID}, Days: 3, End: today,
		Computers: []demodata.Computer{{Name: "alpha", NCPUs: 4, PFPOps: 3e9, ClientVersion: "7.20.5"}}}); err != nil {
		t.Fatal(err)
	}
	cs, err := e.store.Computers.Computers(ctx, ada.ID, today)
	if err != nil || len(cs) != 1 {
		t.Fatalf("Ada's computers: %v, %v", cs, err)
	}
	r, err := e.store.Reports.SendReport(ctx, ada.ID, cs[0].ID, accounting.NewDayReport{Day: today.Format(time.DateOnly),
		ProjectID: p.ID, Text: "The credit of this day looks too low.", MailAnswer: true}, today, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	const answer = "The project's export was late; the day is complete now."
	if err := e.store.Reports.AnswerReport(ctx, accounting.Actor{Name: "admin@example.org"}, r.ID, answer, true, time.Now()); err != nil {
		t.Fatal(err)
	}
	row := e.waitRow(accounting.MailReportAnswer, untilDeadline(t, 60*time.Second), "sent or given up",
		func(r outboxRow) bool { return r.Status != "queued" })
	if row.Status != "sent" {
		t.Fatalf("the answer's message: %v, want sent", row)
	}
	var got []string
	for _, m := range e.relay.Messages() {
		if len(m.To) == 1 && m.To[0] == "ada@example.org" && strings.Contains(m.Text, answer) {
			got = append(got, subject(t, m))
		}
	}
	if len(got) != 1 {
		t.Errorf("%d messages to Ada hold the answer (%q), want 1", len(got), got)
	}
}
