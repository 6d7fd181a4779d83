package accounting

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"

	"github.com/cobble-am/cobble/internal/locale"
)

// requestLang is the language of the page a message is asked for on: the
// one ctx carries.
func requestLang(ctx context.Context) string { return locale.From(ctx).Code }

// queueMail writes a message to the outbox inside tx, with the River job
// that delivers it (a MailJob, enqueueMail), so that it is sent if and
// only if the change that causes it commits. It is written in the
// language the account chose, else in lang (the page's, requestLang, or
// "" for English). Every message is queued through it, but for the two
// single statements that write their message themselves (sign-up, password
// reset), which enqueue its job alike.
func (s *core) queueMail(ctx context.Context, tx pgx.Tx, kind MailKind, userID int64, to string, data MailData, secret, lang string) error {
	js, err := json.Marshal(data)
	if err != nil {
		return err
	}
	var sec *string
	if secret != "" {
		sec = &secret
	}
	var id int64
	err = tx.QueryRow(ctx, `INSERT INTO mail_outbox (kind, user_id, recipient, data, secret, language)
		VALUES ($1, $2, $3, $4, $5, coalesce((SELECT nullif(language, '') FROM users WHERE id = $2), $6))
		RETURNING id`,
		kind, userID, to, js, sec, lang).Scan(&id)
	if err != nil {
		return err
	}
	return s.enqueueMail(ctx, tx, dueMail{id: id, kind: kind})
}

// dueMail is a queued message's job to insert: the message's id, when it
// is due if that is later than now (nil: at once), and its kind (for the
// job's priority, mailPriority; "" for a message someone waits for). An
// id of 0 is the job of a request that queued no message (RequestSignUp,
// RequestPasswordReset): it does nothing when worked.
type dueMail struct {
	id   int64
	at   *time.Time
	kind MailKind
}

// The priorities of River's jobs in the mail queue: a worker free to take
// a job takes the first of the highest priority (1 comes first, then 2).
const (
	mailPriorityAwaited = 1 // a link or notice someone is waiting for
	mailPriorityAlert   = 2 // an alert or summary, which nobody waits for
)

// mailPriority is the priority of the job of a message of kind: an alert
// goes after every message someone waits for, so that a burst of weekly
// summaries does not keep a volunteer who asked for a password reset
// waiting until it has gone out.
func mailPriority(kind MailKind) int {
	if kind.IsAlert() {
		return mailPriorityAlert
	}
	return mailPriorityAwaited
}

// enqueueMail inserts in tx, with River's own insert, the MailJob of each
// message, in the queue MailQueueName: River works a job once tx commits,
// and never if it rolls back. A job due later is scheduled for then; an
// alert's job goes after the others (mailPriority).
func (s *core) enqueueMail(ctx context.Context, tx pgx.Tx, due ...dueMail) error {
	if len(due) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(due))
	for i, d := range due {
		opts := &river.InsertOpts{Queue: MailQueueName, MaxAttempts: MailJobAttempts, Priority: mailPriority(d.kind)}
		if d.at != nil {
			opts.ScheduledAt = *d.at
		}
		params[i] = river.InsertManyParams{Args: MailJob{ID: d.id}, InsertOpts: opts}
	}
	_, err := s.jobs.InsertManyTx(ctx, tx, params)
	return err
}

// EnqueueStrayMail gives a River job to each queued message that has none
// waiting or running, due when the message is: a message whose job ended
// while its outcome could not be recorded, or one left by hand. It returns
// how many it gave one; instances may run it at once.
func (s *MailStore) EnqueueStrayMail(ctx context.Context) (int, error) {
	var n int
	err := s.tx(ctx, func(tx pgx.Tx) error {
		// A message due within the scheduler's period is available at
		// once, as River does for a retry.
		rows, _ := tx.Query(ctx, `
			SELECT m.id, CASE WHEN m.next_attempt_at > now() + interval '5 seconds' THEN m.next_attempt_at END, m.kind
			FROM mail_outbox m
			WHERE m.status = 'queued' AND NOT EXISTS (
				SELECT 1 FROM river_job j
				WHERE j.kind = $1 AND j.args @> jsonb_build_object('id', m.id) AND j.finalized_at IS NULL)
			ORDER BY m.id LIMIT 1000
			FOR UPDATE OF m SKIP LOCKED`, MailJob{}.Kind())
		stray, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (dueMail, error) {
			var d dueMail
			err := row.Scan(&d.id, &d.at, &d.kind)
			return d, err
		})
		if err != nil {
			return err
		}
		n = len(stray)
		return s.enqueueMail(ctx, tx, stray...)
	})
	return n, op("enqueue stray mail", err)
}

// mailColumns are the outbox columns that fill a Mail, in scanMail's order.
const mailColumns = `id, kind, coalesce(user_id, 0), recipient, data, coalesce(secret, ''), status, attempts,
	last_error, created_at, sent_at, coalesce(transport, ''), language`

func scanMail(row pgx.CollectableRow) (Mail, error) {
	var m Mail
	var data []byte
	err := row.Scan(&m.ID, &m.Kind, &m.UserID, &m.To, &data, &m.Secret, &m.Status, &m.Attempts,
		&m.LastError, &m.CreatedAt, &m.SentAt, &m.Transport, &m.Language)
	if err == nil {
		err = json.Unmarshal(data, &m.Data)
	}
	return m, err
}

// TakeMail claims the queued message id for its River job: no other
// sender (in this or another instance) takes it until lease has passed or
// it is marked, and the claim counts as an attempt. A message that is no
// longer queued (sent or given up), or that another claim holds, is
// ErrNotFound: its job has nothing to do.
func (s *MailStore) TakeMail(ctx context.Context, id int64, lease time.Duration) (Mail, error) {
	rows, _ := s.pool.Query(ctx, `
		UPDATE mail_outbox SET claimed_until = now() + $2::interval, attempts = attempts + 1
		WHERE id = $1 AND status = 'queued' AND (claimed_until IS NULL OR claimed_until < now())
		RETURNING `+mailColumns, id, lease)
	m, err := pgx.CollectExactlyOneRow(rows, scanMail)
	if errors.Is(err, pgx.ErrNoRows) {
		err = ErrNotFound
	}
	return m, op("take mail", err)
}

// MailClaimedUntil returns when the claim on the queued message id runs
// out: a job that finds the message claimed (TakeMail's ErrNotFound) by a
// sender that may have died (River's rescuer gave the job to another
// instance) waits for then. A message that is no longer queued, or that
// no claim holds, is ErrNotFound.
func (s *MailStore) MailClaimedUntil(ctx context.Context, id int64) (time.Time, error) {
	var until time.Time
	err := s.pool.QueryRow(ctx, `SELECT claimed_until FROM mail_outbox
		WHERE id = $1 AND status = 'queued' AND claimed_until >= now()`, id).Scan(&until)
	if errors.Is(err, pgx.ErrNoRows) {
		err = ErrNotFound
	}
	return until, op("mail claimed until", err)
}

// MarkMailSent records that a claimed message was delivered by transport.
// The link's token is forgotten, except in the development mailbox, which
// shows the message as it was sent. Only the latest claim of the message
// may mark it: a claim whose lease ran out and that another sender took
// since is ErrConflict, and changes nothing.
func (s *MailStore) MarkMailSent(ctx context.Context, claimed Mail, transport string) error {
	tag, err := s.pool.Exec(ctx, `
		UPDATE mail_outbox SET status = 'sent', sent_at = now(), claimed_until = NULL, last_error = '',
			transport = $3, secret = CASE WHEN $3 = 'mailbox' THEN secret END
		WHERE id = $1 AND attempts = $2 AND status = 'queued'`, claimed.ID, claimed.Attempts, transport)
	return op("mark mail sent", claimHeld(tag, err))
}

// MarkMailFailed records a failed attempt at a claimed message. With retry
// above zero the message is tried again after it; otherwise it is given up,
// and its link's token forgotten. As for MarkMailSent, only the latest
// claim may mark the message.
func (s *MailStore) MarkMailFailed(ctx context.Context, claimed Mail, reason string, retry time.Duration) error {
	tag, err := s.pool.Exec(ctx, `
		UPDATE mail_outbox SET claimed_until = NULL, last_error = $3,
			status = CASE WHEN $4 THEN 'queued' ELSE 'failed' END,
			next_attempt_at = CASE WHEN $4 THEN now() + $5::interval ELSE next_attempt_at END,
			secret = CASE WHEN $4 THEN secret END
		WHERE id = $1 AND attempts = $2 AND status = 'queued'`,
		claimed.ID, claimed.Attempts, CleanText(printableOnly(reason), 500), retry > 0, retry)
	return op("mark mail failed", claimHeld(tag, err))
}

// claimHeld is ErrConflict when a mark changed no row: the claim it was
// made under is no longer the latest.
func claimHeld(tag pgconn.CommandTag, err error) error {
	if err == nil && tag.RowsAffected() == 0 {
		return ErrConflict
	}
	return err
}

// MailList returns messages of the outbox, newest first.
func (s *MailStore) MailList(ctx context.Context, f MailFilter) ([]Mail, error) {
	if f.Limit <= 0 {
		f.Limit = 200
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+mailColumns+` FROM mail_outbox
		WHERE ($1 = '' OR status = $1) AND ($2 = '' OR transport = $2)
		ORDER BY id DESC LIMIT $3`, string(f.Status), f.Transport, f.Limit)
	ms, err := pgx.CollectRows(rows, scanMail)
	return ms, op("mail list", err)
}

// MailQueueState counts the outbox's messages by status.
func (s *MailStore) MailQueueState(ctx context.Context) (MailQueue, error) {
	var q MailQueue
	var oldest *time.Time
	err := s.pool.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE status = 'queued'), count(*) FILTER (WHERE status = 'sent'),
		       count(*) FILTER (WHERE status = 'failed'),
		       count(*) FILTER (WHERE status = 'queued' AND created_at < now() - $1::interval),
		       min(created_at) FILTER (WHERE status = 'queued')
		FROM mail_outbox`, MailLate).Scan(&q.Queued, &q.Sent, &q.Failed, &q.Waiting, &oldest)
	if oldest != nil {
		q.Oldest = *oldest
	}
	return q, op("mail queue", err)
}

// MailQueueDepth counts the queued messages (for metrics).
func (s *MailStore) MailQueueDepth(ctx context.Context) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM mail_outbox WHERE status = 'queued'`).Scan(&n)
	return n, op("mail queue depth", err)
}
