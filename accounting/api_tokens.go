package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/locale"
)

// CreateAPIToken makes a personal API token named name for a volunteer and
// returns it with its secret, which is not stored (only its SHA-256 is).
// A name that is empty, too long or not plain text, or a volunteer who
// holds MaxAPITokens already, is a *ValidationError (field "name"); more
// than MaxAPITokenCreations in the hour that began at hour is ErrLimited;
// an unknown volunteer is ErrNotFound.
func (s *APIStore) CreateAPIToken(ctx context.Context, userID int64, name string, hour time.Time) (NewAPIToken, error) {
	v := validation{}
	name = cleanTokenName(v, name)
	if err := v.err(); err != nil {
		return NewAPIToken{}, op("create API token", err)
	}
	rest, _ := newToken()
	t := NewAPIToken{APIToken: APIToken{Name: name}, Secret: APISecretPrefix + rest}
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT id FROM users WHERE id = $1 FOR UPDATE`, userID).Scan(new(int64)); err != nil {
			return dbErr(err)
		}
		var made, held int
		if err := tx.QueryRow(ctx, `
			INSERT INTO api_token_creations AS c (user_id, window_start, n) VALUES ($1, $2, 1)
			ON CONFLICT (user_id) DO UPDATE SET
				n = CASE WHEN c.window_start >= excluded.window_start THEN c.n + 1 ELSE 1 END,
				window_start = greatest(c.window_start, excluded.window_start)
			RETURNING n, (SELECT count(*) FROM api_tokens WHERE user_id = $1)`,
			userID, hour.UTC()).Scan(&made, &held); err != nil {
			return err
		}
		if made > MaxAPITokenCreations {
			return ErrLimited
		}
		v.check(held < MaxAPITokens, "name", locale.M("api_tokens.too_many", "Max", MaxAPITokens))
		if err := v.err(); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `
			INSERT INTO api_tokens (user_id, name, secret_hash) VALUES ($1, $2, $3)
			RETURNING id, created_at`, userID, name, tokenHash(t.Secret)).Scan(&t.ID, &t.CreatedAt)
	})
	return t, op("create API token", err)
}

// APITokens lists a volunteer's API tokens, newest first.
func (s *APIStore) APITokens(ctx context.Context, userID int64) ([]APIToken, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT id, name, created_at, last_used_at, last_used_from FROM api_tokens
		WHERE user_id = $1 ORDER BY created_at DESC, id DESC`, userID)
	ts, err := pgx.CollectRows(rows, pgx.RowToStructByName[APIToken])
	return ts, op("API tokens", err)
}

// RevokeAPIToken deletes one of a volunteer's API tokens: its secret
// stops working at once, on every instance. Another volunteer's (or no)
// token is ErrNotFound.
func (s *APIStore) RevokeAPIToken(ctx context.Context, userID, tokenID int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM api_tokens WHERE user_id = $1 AND id = $2`, userID, tokenID)
	if err == nil && tag.RowsAffected() == 0 {
		err = ErrNotFound
	}
	return op("revoke API token", err)
}

// AuthenticateAPI finds the volunteer whose API token's secret is secret,
// counts the request against the token's minute that began at window, and
// notes the token's use at now from addr when it was last noted
// APITouchEvery ago or more: one statement, one round trip. A malformed,
// unknown or revoked secret, or a disabled volunteer's, is ErrNotFound
// (and nothing is written).
func (s *APIStore) AuthenticateAPI(ctx context.Context, secret, addr string, window, now time.Time) (APICaller, error) {
	if !WellFormedAPISecret(secret) {
		return APICaller{}, op("authenticate API", ErrNotFound)
	}
	c := APICaller{Window: window.UTC()}
	u := &c.User
	err := s.pool.QueryRow(ctx, `
		WITH t AS (
			SELECT a.id, a.user_id, a.last_used_at FROM api_tokens a JOIN users u ON u.id = a.user_id
			WHERE a.secret_hash = $1 AND u.disabled_at IS NULL),
		touched AS (
			UPDATE api_tokens a SET last_used_at = $4, last_used_from = $2 FROM t
			WHERE a.user_id = t.user_id AND a.id = t.id
				AND (t.last_used_at IS NULL OR t.last_used_at <= $4::timestamptz - $5::interval)
			RETURNING a.id),
		counted AS (
			INSERT INTO api_token_counts AS c (user_id, token_id, window_start, n)
			SELECT user_id, id, $3, 1 FROM t
			ON CONFLICT (user_id, token_id) DO UPDATE SET
				n = CASE WHEN c.window_start >= excluded.window_start THEN c.n + 1 ELSE 1 END,
				window_start = greatest(c.window_start, excluded.window_start)
			RETURNING n)
		SELECT u.id, u.email, u.name, u.is_admin, u.time_zone, u.language, u.created_at, t.id,
			(SELECT n FROM counted)
		FROM t JOIN users u ON u.id = t.user_id`,
		tokenHash(secret), CleanText(addr, 64), c.Window, now.UTC(), APITouchEvery).
		Scan(&u.ID, &u.Email, &u.Name, &u.IsAdmin, &u.TimeZone, &u.Language, &u.CreatedAt, &c.TokenID, &c.Requests)
	return c, op("authenticate API", dbErr(err))
}
