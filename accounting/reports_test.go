package accounting_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// A volunteer's report about a day is stored once it passes its checks;
// bad input stores nothing; the open reports and the reports a minute are
// limited. The admin's answer is audited, reaches the volunteer's list,
// is mailed when asked for, and closes the report.
func TestDayReports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t)
	h.sync(time.Hour, &accounting.Counters{CPUEC: 1, CPUTime: 10})
	var userID, hostID, projectID int64
	if err := h.pool.QueryRow(ctx, `SELECT user_id, host_id, project_id FROM host_projects`).Scan(&userID, &hostID, &projectID); err != nil {
		t.Fatal(err)
	}
	today := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	now := h.now
	send := func(nr accounting.NewDayReport, at time.Time) error {
		_, err := h.s.Reports.SendReport(ctx, userID, hostID, nr, today, at)
		return err
	}
	good := accounting.NewDayReport{Day: "2026-05-01", ProjectID: projectID, Text: "The credit of this day\nlooks too low.", MailAnswer: true}
	for _, c := range []struct {
		name  string
		nr    accounting.NewDayReport
		field string
	}{
		{"a day after today", accounting.NewDayReport{Day: "2026-05-02", ProjectID: projectID, Text: "x"}, "day"},
		{"not a day", accounting.NewDayReport{Day: "yesterday", ProjectID: projectID, Text: "x"}, "day"},
		{"another project", accounting.NewDayReport{Day: "2026-05-01", ProjectID: projectID + 99, Text: "x"}, "project"},
		{"empty", accounting.NewDayReport{Day: "2026-05-01", ProjectID: projectID, Text: "  "}, "text"},
		{"100 KB", accounting.NewDayReport{Day: "2026-05-01", ProjectID: projectID, Text: strings.Repeat("a", 100<<10)}, "text"},
		{"markup", accounting.NewDayReport{Day: "2026-05-01", ProjectID: projectID, Text: "<script>alert(1)</script>"}, "text"},
		{"control", accounting.NewDayReport{Day: "2026-05-01", ProjectID: projectID, Text: "bell\x07"}, "text"},
		{"bidi", accounting.NewDayReport{Day: "2026-05-01", ProjectID: projectID, Text: "abc\u202edef"}, "text"},
	} {
		var invalid *accounting.ValidationError
		if err := send(c.nr, now); !errors.As(err, &invalid) || invalid.Fields[c.field].IsZero() {
			t.Errorf("%s: %v, want a message on %s", c.name, err, c.field)
		}
	}
	if rs, err := h.s.Reports.ComputerReports(ctx, userID, hostID); err != nil || len(rs) != 0 {
		t.Fatalf("refused reports were stored: %+v, %v", rs, err)
	}
	// The answer by mail needs a confirmed address (issue 45, item 11).
	var unconfirmed *accounting.ValidationError
	if err := send(good, now); !errors.As(err, &unconfirmed) || unconfirmed.Fields["mail_answer"].IsZero() {
		t.Errorf("mail to an unconfirmed address: %v, want a message on mail_answer", err)
	}
	if _, err := h.pool.Exec(ctx, `UPDATE users SET email_confirmed_at = now() WHERE id = $1`, userID); err != nil {
		t.Fatal(err)
	}
	if err := send(good, now); err != nil {
		t.Fatal(err)
	}
	// A flood: after a few in a minute, ErrLimited, and nothing more stored.
	var limited int
	for range 50 {
		if err := send(good, now); errors.Is(err, accounting.ErrLimited) {
			limited++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	rs, err := h.s.Reports.ComputerReports(ctx, userID, hostID)
	if err != nil || limited < 45 || len(rs) >= 5 {
		t.Fatalf("50 reports in a minute: %d limited, %d stored (%v)", limited, len(rs), err)
	}
	// Later, the open reports are limited to MaxOpenReports.
	for i := 0; len(rs) < accounting.MaxOpenReports; i++ {
		if err := send(good, now.Add(time.Duration(i+2)*time.Minute)); err != nil {
			t.Fatal(err)
		}
		rs, _ = h.s.Reports.ComputerReports(ctx, userID, hostID)
	}
	var invalid *accounting.ValidationError
	if err := send(good, now.Add(time.Hour)); !errors.As(err, &invalid) || invalid.Fields["text"].IsZero() {
		t.Errorf("a sixth open report: %v", err)
	}

	// The admin answers and closes the oldest.
	if _, err := h.pool.Exec(ctx, `UPDATE users SET email_confirmed_at = now() WHERE id = $1`, userID); err != nil {
		t.Fatal(err)
	}
	oldest := rs[len(rs)-1]
	admin := accounting.Actor{Name: "admin@example.org"}
	if err := h.s.Reports.AnswerReport(ctx, admin, oldest.ID, "<b>", false, now); !errors.As(err, &invalid) {
		t.Errorf("markup in an answer: %v", err)
	}
	if err := h.s.Reports.AnswerReport(ctx, admin, oldest.ID+1000, "Fine.", true, now); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("no such report: %v", err)
	}
	if err := h.s.Reports.AnswerReport(ctx, admin, oldest.ID, "The project's export was late; it is fine now.", true, now); err != nil {
		t.Fatal(err)
	}
	rs, _ = h.s.Reports.ComputerReports(ctx, userID, hostID)
	got := rs[len(rs)-1]
	if got.ID != oldest.ID || got.Open() || got.Answer == "" || got.AnsweredAt == nil {
		t.Errorf("after the answer: %+v", got)
	}
	var audits, mails int
	if err := h.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM audit_log WHERE kind = 'report_answer'),
		(SELECT count(*) FROM mail_outbox WHERE kind = 'report_answer')`).Scan(&audits, &mails); err != nil {
		t.Fatal(err)
	}
	if audits != 1 || mails != 1 {
		t.Errorf("%d audit entries, %d mails; want one of each", audits, mails)
	}
	queue, err := h.s.Reports.Queue(ctx, 50)
	if err != nil || len(queue) != accounting.MaxOpenReports || !queue[0].Open() || queue[len(queue)-1].Open() {
		t.Errorf("the queue: %d reports (%v), open first", len(queue), err)
	}
	// One closed: the volunteer may send another.
	if err := send(good, now.Add(2*time.Hour)); err != nil {
		t.Errorf("a report after one was closed: %v", err)
	}
}
