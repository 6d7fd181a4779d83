package accounting

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/locale"
)

// reportColumns are the columns scanReport reads, of day_reports r joined
// with projects p, users u and hosts h.
const reportColumns = `r.id, r.user_id, r.host_id, r.project_id, p.name, r.day, r.text, r.created_at,
	r.mail_answer, u.email_confirmed_at IS NOT NULL, r.answer, r.answered_at, r.closed_at, u.email, u.time_zone,
	coalesce(nullif(h.nickname, ''), nullif(h.domain_name, ''), 'computer ' || h.id)`

const reportJoins = ` FROM day_reports r JOIN projects p ON p.id = r.project_id JOIN users u ON u.id = r.user_id
	JOIN hosts h ON h.id = r.host_id AND h.user_id = r.user_id`

func scanReport(row pgx.CollectableRow) (DayReport, error) {
	var r DayReport
	err := row.Scan(&r.ID, &r.UserID, &r.HostID, &r.ProjectID, &r.ProjectName, &r.Day, &r.Text, &r.CreatedAt,
		&r.MailAnswer, &r.EmailConfirmed, &r.Answer, &r.AnsweredAt, &r.ClosedAt, &r.UserEmail, &r.UserTimeZone, &r.HostLabel)
	return r, err
}

// SendReport stores a volunteer's report about a day of one project on one
// of their computers (a day up to today, today a day from Today). Another
// volunteer's (or no) computer is ErrNotFound; a day that is not one or is
// after today, a project the computer never had, a text that is empty,
// too long or not plain, a sixth open report, or the answer asked for by
// mail while the volunteer's address is not confirmed is a
// *ValidationError and stores nothing; more than a few reports a minute is ErrLimited.
func (s *ReportsStore) SendReport(ctx context.Context, userID, hostID int64, nr NewDayReport, today, now time.Time) (DayReport, error) {
	var id int64
	err := s.tx(ctx, func(tx pgx.Tx) error {
		// The limits are the volunteer's, over all their computers: they
		// are counted under the volunteer's lock.
		if err := lockVolunteer(ctx, tx, userID); err != nil {
			return err
		}
		if err := lockComputer(ctx, tx, userID, hostID); err != nil {
			return err
		}
		day, err := checkNewReport(ctx, tx, userID, hostID, nr, today, now)
		if err != nil {
			return err
		}
		return tx.QueryRow(ctx, `
			INSERT INTO day_reports (user_id, host_id, project_id, day, text, created_at, mail_answer)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
			userID, hostID, nr.ProjectID, day, strings.TrimSpace(nr.Text), now, nr.MailAnswer).Scan(&id)
	})
	if err != nil {
		return DayReport{}, op("send report", err)
	}
	r, err := s.report(ctx, id)
	return r, op("send report", err)
}

// checkNewReport validates a report inside the transaction that stores
// it, the volunteer and their computer locked, and returns its day.
func checkNewReport(ctx context.Context, tx pgx.Tx, userID, hostID int64, nr NewDayReport, today, now time.Time) (time.Time, error) {
	var recent, open int
	var hasProject, confirmed bool
	err := tx.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE created_at > $3), count(*) FILTER (WHERE closed_at IS NULL),
			EXISTS (SELECT 1 FROM host_projects WHERE host_id = $2 AND user_id = $1 AND project_id = $4),
			EXISTS (SELECT 1 FROM users WHERE id = $1 AND email_confirmed_at IS NOT NULL)
		FROM day_reports WHERE user_id = $1`, userID, hostID, now.Add(-time.Minute), nr.ProjectID).
		Scan(&recent, &open, &hasProject, &confirmed)
	if err != nil {
		return time.Time{}, err
	}
	if recent >= reportsPerMinute {
		return time.Time{}, ErrLimited
	}
	v := validation{}
	day, derr := time.Parse(time.DateOnly, nr.Day)
	v.check(derr == nil && len(nr.Day) == len(time.DateOnly) && !day.After(today), "day", locale.M("reports.day"))
	v.check(hasProject, "project", locale.M("reports.project"))
	if m := checkReportText(nr.Text, MaxReportText); !m.IsZero() {
		v.check(false, "text", m)
	}
	v.check(open < MaxOpenReports, "text", locale.M("reports.too_many_open", "Max", MaxOpenReports))
	// Mail goes only to a confirmed address: asked for without one, it
	// would silently not go.
	v.check(!nr.MailAnswer || confirmed, "mail_answer", locale.M("reports.mail_unconfirmed"))
	return day, v.err()
}

// report reads one report.
func (s *ReportsStore) report(ctx context.Context, id int64) (DayReport, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+reportColumns+reportJoins+` WHERE r.id = $1`, id)
	r, err := pgx.CollectExactlyOneRow(rows, scanReport)
	return r, dbErr(err)
}

// ComputerReports lists the volunteer's reports about one of their
// computers, newest first (nothing for another volunteer's).
func (s *ReportsStore) ComputerReports(ctx context.Context, userID, hostID int64) ([]DayReport, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+reportColumns+reportJoins+`
		WHERE r.user_id = $1 AND r.host_id = $2 ORDER BY r.created_at DESC, r.id DESC LIMIT 50`, userID, hostID)
	rs, err := pgx.CollectRows(rows, scanReport)
	return rs, op("computer reports", err)
}

// Queue lists the admin's queue: the open reports, oldest first, then
// the last closed ones, newest first; at most limit of each.
func (s *ReportsStore) Queue(ctx context.Context, limit int) ([]DayReport, error) {
	rows, _ := s.pool.Query(ctx, `
		(SELECT `+reportColumns+reportJoins+` WHERE r.closed_at IS NULL ORDER BY r.created_at, r.id LIMIT $1)
		UNION ALL
		(SELECT `+reportColumns+reportJoins+` WHERE r.closed_at IS NOT NULL ORDER BY r.closed_at DESC, r.id DESC LIMIT $1)`,
		limit)
	rs, err := pgx.CollectRows(rows, scanReport)
	return rs, op("report queue", err)
}

// AnswerReport stores an admin's answer to a report and, with close set,
// closes it, audited in the same transaction; when the volunteer asked,
// the answer is mailed to their confirmed address. An answer too long or
// not plain text is a *ValidationError; no report is ErrNotFound.
func (s *ReportsStore) AnswerReport(ctx context.Context, who Actor, id int64, answer string, close bool, now time.Time) error {
	answer = strings.TrimSpace(answer)
	if m := checkAnswer(answer, close); !m.IsZero() {
		return op("answer report", &ValidationError{Fields: map[string]locale.Msg{"answer": m}})
	}
	return op("answer report", s.tx(ctx, func(tx pgx.Tx) error {
		var before DayReport
		var confirmed bool
		var name, lang string
		err := tx.QueryRow(ctx, `
			SELECT r.user_id, r.answer, r.closed_at, r.mail_answer, u.email, u.name, u.language,
				u.email_confirmed_at IS NOT NULL
			FROM day_reports r JOIN users u ON u.id = r.user_id WHERE r.id = $1 FOR UPDATE OF r`, id).
			Scan(&before.UserID, &before.Answer, &before.ClosedAt, &before.MailAnswer, &before.UserEmail, &name, &lang, &confirmed)
		if err != nil {
			return dbErr(err)
		}
		if answer == "" {
			answer = before.Answer
		}
		if _, err := tx.Exec(ctx, `
			UPDATE day_reports SET answer = $2, answered_by = $3,
				answered_at = CASE WHEN $2 <> answer THEN $4 ELSE answered_at END,
				closed_at = CASE WHEN $5 THEN coalesce(closed_at, $4) ELSE closed_at END
			WHERE id = $1`, id, answer, who.Name, now, close); err != nil {
			return err
		}
		err = audit(ctx, tx, who, AuditReportAnswer, fmt.Sprintf("report %d", id),
			map[string]any{"answer": before.Answer, "closed": before.ClosedAt != nil},
			map[string]any{"answer": answer, "closed": close || before.ClosedAt != nil})
		if err != nil || !before.MailAnswer || !confirmed || answer == before.Answer {
			return err
		}
		return s.queueMail(ctx, tx, MailReportAnswer, before.UserID, before.UserEmail,
			MailData{Name: name, Answer: answer, ReportID: id}, "", lang)
	}))
}

// checkAnswer returns the answer field's message, if any: an answer is
// plain text of at most MaxAnswerText characters, and may be empty only
// when the report is being closed.
func checkAnswer(answer string, close bool) locale.Msg {
	if answer == "" && close {
		return locale.Msg{}
	}
	return checkReportText(answer, MaxAnswerText)
}
