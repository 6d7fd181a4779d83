package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// sessionSeenEvery is how stale a session's last-seen time may get: a
// request writes it only when it is older, so that it costs nothing on
// most requests.
const sessionSeenEvery = time.Minute

// expiredBatch bounds the rows of expired sessions one log-in removes.
const expiredBatch = 100

// StartSession records a new web session of the volunteer, started from
// the browser userAgent at address, and returns its id, which the session
// keeps. It also removes rows of sessions that expired: the volunteer's
// own, and a bounded batch of anyone's.
func (s *AccessStore) StartSession(ctx context.Context, userID int64, userAgent, address string) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `
		WITH mine AS (
			DELETE FROM user_sessions
			WHERE user_id = $1 AND (started_at < now() - $4::interval OR last_seen_at < now() - $5::interval)
		), anyones AS (
			DELETE FROM user_sessions WHERE id IN (
				SELECT id FROM user_sessions WHERE last_seen_at < now() - $5::interval LIMIT $6)
		)
		INSERT INTO user_sessions (user_id, user_agent, address) VALUES ($1, $2, $3)
		RETURNING id`,
		userID, CleanText(printableOnly(userAgent), 300), CleanText(address, 64),
		SessionLifetime, SessionIdle, expiredBatch).Scan(&id)
	return id, op("start session", dbErr(err))
}

// SessionUser returns the volunteer of web session sessionID, and notes
// that the session was seen from address (at most about once a minute).
// ErrNotFound when the account or the session is gone (ended by the
// volunteer, a password change or reset, or expired), ErrDisabled when an
// admin disabled the account: either way the session has ended. One
// statement, whatever the answer.
func (s *AccessStore) SessionUser(ctx context.Context, userID, sessionID int64, address string) (User, error) {
	rows, _ := s.pool.Query(ctx, `
		WITH seen AS (
			UPDATE user_sessions SET last_seen_at = now(), address = $3
			WHERE id = $2 AND user_id = $1 AND last_seen_at < now() - $4::interval
			  AND started_at > now() - $5::interval AND last_seen_at > now() - $6::interval
		)
		SELECT id, email, name, is_admin, time_zone, language, created_at, disabled_at IS NOT NULL AS disabled,
			EXISTS (SELECT FROM user_sessions s WHERE s.id = $2 AND s.user_id = $1
			        AND s.started_at > now() - $5::interval AND s.last_seen_at > now() - $6::interval) AS live
		FROM users WHERE id = $1`,
		userID, sessionID, CleanText(address, 64), sessionSeenEvery, SessionLifetime, SessionIdle)
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[sessionUserRow])
	switch {
	case err == nil && !r.Live:
		err = ErrNotFound
	case err == nil && r.Disabled:
		err = ErrDisabled
	}
	return r.User, op("session user", dbErr(err))
}

// sessionUserRow is a users row with whether the session asked about lives.
type sessionUserRow struct {
	userRow
	Live bool
}

// Sessions lists the volunteer's live web sessions, the most recently
// seen first.
func (s *AccessStore) Sessions(ctx context.Context, userID int64) ([]WebSession, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT id, started_at, last_seen_at, user_agent, address FROM user_sessions
		WHERE user_id = $1 AND started_at > now() - $2::interval AND last_seen_at > now() - $3::interval
		ORDER BY last_seen_at DESC, id DESC`, userID, SessionLifetime, SessionIdle)
	ws, err := pgx.CollectRows(rows, pgx.RowToStructByName[WebSession])
	return ws, op("sessions", err)
}

// EndSession ends one web session (a log-out). A session already gone is
// not an error.
func (s *AccessStore) EndSession(ctx context.Context, sessionID int64) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM user_sessions WHERE id = $1`, sessionID)
	return op("end session", err)
}

// EndOtherSessions ends every web session of the volunteer but keep (0:
// every one), on every instance: each is logged out at its next request.
// It returns how many it ended. It is the one way sessions are ended for
// the account's sake: the volunteer's "log out everywhere else", a
// password change and a password reset all come here.
func (s *AccessStore) EndOtherSessions(ctx context.Context, userID, keep int64) (int64, error) {
	n, err := endOtherSessions(ctx, s.pool, userID, keep)
	return n, op("end other sessions", err)
}

// endOtherSessions is EndOtherSessions with q, inside the transaction of
// the change that causes it.
func endOtherSessions(ctx context.Context, q execer, userID, keep int64) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM user_sessions WHERE user_id = $1 AND id <> $2`, userID, keep)
	return tag.RowsAffected(), err
}
