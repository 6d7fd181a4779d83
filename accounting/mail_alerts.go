package accounting

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/locale"
)

// MailState returns the volunteer's email state and alert choices.
func (s *MailStore) MailState(ctx context.Context, userID int64) (MailState, error) {
	var m MailState
	var days *int
	var pending *string
	err := s.pool.QueryRow(ctx, `
		SELECT email_confirmed_at IS NOT NULL, alert_silence_days, weekly_summary, alert_failing,
		       (SELECT email FROM user_tokens t WHERE t.user_id = u.id AND purpose = 'email_change' AND expires_at > now())
		FROM users u WHERE id = $1`, userID).Scan(&m.Confirmed, &days, &m.Alerts.Weekly, &m.Alerts.Failing, &pending)
	if days != nil {
		m.Alerts.SilenceDays = *days
	}
	if pending != nil {
		m.PendingEmail = *pending
	}
	return m, op("mail state", dbErr(err))
}

// SetAlerts stores a volunteer's alert choices. Alerts go only to a
// confirmed address.
func (s *MailStore) SetAlerts(ctx context.Context, userID int64, a Alerts) error {
	if err := a.Validate(); err != nil {
		return op("set alerts", err)
	}
	var days *int
	if a.SilenceDays > 0 {
		days = &a.SilenceDays
	}
	tag, err := s.pool.Exec(ctx, `UPDATE users SET alert_silence_days = $2, weekly_summary = $3, alert_failing = $4
		WHERE id = $1`, userID, days, a.Weekly, a.Failing)
	if err == nil && tag.RowsAffected() == 0 {
		err = ErrNotFound
	}
	return op("set alerts", err)
}

// Unsubscribe follows an alert's unsubscribe link: that alert is turned
// off. The link keeps working, so that following it again changes nothing.
// With apply unset it only checks the link. It returns the alert.
func (s *MailStore) Unsubscribe(ctx context.Context, token string, apply bool) (Alert, error) {
	var a Alert
	err := s.tx(ctx, func(tx pgx.Tx) error {
		t, err := takeToken(ctx, tx, token, TokenUnsubscribe, false)
		if err != nil {
			return err
		}
		a = Alert(*t.Alert)
		if !apply {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE users SET
			alert_silence_days = CASE WHEN $2 = 'silence' THEN NULL ELSE alert_silence_days END,
			weekly_summary = weekly_summary AND $2 <> 'weekly',
			alert_failing = alert_failing AND $2 <> 'failing'
			WHERE id = $1`, t.UserID, a)
		return err
	})
	return a, op("unsubscribe", err)
}

// alertLock is the advisory lock under which one instance at a time
// queues alerts.
const alertLock int64 = 0x636f62626c61 // "cobbla"

// QueueAlerts queues the alerts that are due, each in the transaction that
// records it as sent: one silence alert per volunteer for the computers
// that went silent (one per silence), and weekly summaries. It returns how
// many messages it queued. Several instances may call it at once.
func (s *MailStore) QueueAlerts(ctx context.Context, now time.Time) (int, error) {
	n := 0
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var got bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, alertLock).Scan(&got); err != nil || !got {
			return err
		}
		var err error
		n, err = s.queueSilenceAlerts(ctx, tx)
		return err
	})
	if err != nil {
		return n, op("queue alerts", err)
	}
	w, err := s.queueWeeklySummaries(ctx, now)
	return n + w, op("queue alerts", err)
}

// queueSilenceAlerts mails each volunteer who asked for it the connected
// computers silent past their threshold that were not mailed about since
// their last contact. Computers silent for over 30 days past it were
// silent before the alert could have told (they are left alone).
func (s *core) queueSilenceAlerts(ctx context.Context, tx pgx.Tx) (int, error) {
	rows, _ := tx.Query(ctx, `
		SELECT u.id, u.email, u.name, u.language, u.alert_silence_days, h.id, coalesce(nullif(h.nickname, ''), h.domain_name), h.last_rpc_at
		FROM hosts h JOIN users u ON u.id = h.user_id
		WHERE u.alert_silence_days IS NOT NULL AND u.email_confirmed_at IS NOT NULL AND u.disabled_at IS NULL
		  AND h.last_rpc_at < now() - make_interval(days => u.alert_silence_days)
		  AND h.last_rpc_at > now() - make_interval(days => u.alert_silence_days + 30)
		  AND (h.silence_alerted_at IS NULL OR h.silence_alerted_at < h.last_rpc_at)
		  AND EXISTS (SELECT 1 FROM am_tokens t WHERE t.host_id = h.id)
		ORDER BY u.id, h.last_rpc_at`)
	type due struct {
		user        User
		days        int
		hostID      int64
		host        string
		lastContact time.Time
	}
	dues, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (due, error) {
		var d due
		err := r.Scan(&d.user.ID, &d.user.Email, &d.user.Name, &d.user.Language, &d.days, &d.hostID, &d.host, &d.lastContact)
		return d, err
	})
	if err != nil {
		return 0, err
	}
	queued := 0
	for i := 0; i < len(dues); {
		d := dues[i]
		data := MailData{Name: d.user.Name, Days: d.days}
		var ids []int64
		for ; i < len(dues) && dues[i].user.ID == d.user.ID; i++ {
			c := Computer{ID: dues[i].hostID, Name: dues[i].host}
			data.Silent = append(data.Silent, SilentComputer{Name: c.Label(), LastContact: dues[i].lastContact})
			ids = append(ids, dues[i].hostID)
		}
		if _, err := tx.Exec(ctx, `UPDATE hosts SET silence_alerted_at = now() WHERE id = ANY($1)`, ids); err != nil {
			return queued, err
		}
		if err := s.queueAlert(ctx, tx, MailSilenceAlert, AlertSilence, d.user, data); err != nil {
			return queued, err
		}
		queued++
	}
	return queued, nil
}

// queueAlert queues an alert with a fresh unsubscribe link inside tx.
func (s *core) queueAlert(ctx context.Context, tx pgx.Tx, kind MailKind, a Alert, u User, data MailData) error {
	alert := string(a)
	token, err := putToken(ctx, tx, u.ID, TokenUnsubscribe, u.Email, UnsubscribeValid, nil, &alert)
	if err != nil {
		return err
	}
	return s.queueMail(ctx, tx, kind, u.ID, u.Email, data, token, u.Language)
}

// queueWeeklySummaries queues the summaries that are due, each volunteer
// in a transaction of their own.
func (s *MailStore) queueWeeklySummaries(ctx context.Context, now time.Time) (int, error) {
	queued := 0
	for {
		done, err := s.queueOneSummary(ctx, now)
		if err != nil || done {
			return queued, err
		}
		queued++
	}
}

// queueOneSummary queues the summary of one volunteer whose summary is
// due; done is true when none is.
func (s *MailStore) queueOneSummary(ctx context.Context, now time.Time) (done bool, err error) {
	err = s.tx(ctx, func(tx pgx.Tx) error {
		var u User
		err := tx.QueryRow(ctx, `
			SELECT id, email, name, time_zone, language FROM users
			WHERE weekly_summary AND email_confirmed_at IS NOT NULL AND disabled_at IS NULL
			  AND (weekly_summary_at IS NULL OR weekly_summary_at < now() - interval '7 days')
			ORDER BY weekly_summary_at NULLS FIRST, id LIMIT 1
			FOR UPDATE SKIP LOCKED`).Scan(&u.ID, &u.Email, &u.Name, &u.TimeZone, &u.Language)
		if errors.Is(err, pgx.ErrNoRows) {
			done = true
			return nil
		}
		if err != nil {
			return err
		}
		data, err := s.summaryData(ctx, u, now)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET weekly_summary_at = now() WHERE id = $1`, u.ID); err != nil {
			return err
		}
		return s.queueAlert(ctx, tx, MailWeeklySummary, AlertWeekly, u, data)
	})
	return done, err
}

// summaryData is what the notices feed says of the volunteer's week.
func (s *MailStore) summaryData(ctx context.Context, u User, now time.Time) (MailData, error) {
	today := s.ledger.Today(now, u.TimeZone)
	sum, err := s.ledger.Summary(ctx, u.ID, today)
	if err != nil {
		return MailData{}, err
	}
	computers, err := s.computers.Computers(ctx, u.ID, today)
	if err != nil {
		return MailData{}, err
	}
	data := MailData{Name: u.Name, Week: &sum.Last7}
	for _, w := range Warnings(computers, sum, now) {
		data.Notes = append(data.Notes, w.Msg.In(locale.Default().Lookup(u.Language)))
	}
	return data, nil
}
