package accounting

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// newToken returns a link's token, 32 random bytes in URL-safe base64, and
// the SHA-256 that is stored in its place.
func newToken() (string, []byte) {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	t := base64.RawURLEncoding.EncodeToString(b)
	return t, tokenHash(t)
}

// wellFormedToken reports whether s can be one of Cobble's tokens, so that
// anything else is refused before it reaches the database.
func wellFormedToken(s string) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == 32
}

// tokenRow is a mailed link's stored state.
type tokenRow struct {
	UserID          int64
	Email           string
	NewPasswordHash *string
	Alert           *string
	Expired         bool
}

// takeToken finds the live token of purpose inside tx, locks its row, and
// deletes it when consume is set. Unknown, malformed and expired tokens are
// ErrLinkInvalid (an expired one is deleted).
func takeToken(ctx context.Context, tx pgx.Tx, token string, purpose TokenPurpose, consume bool) (tokenRow, error) {
	if !wellFormedToken(token) {
		return tokenRow{}, ErrLinkInvalid
	}
	want := tokenHash(token)
	var stored []byte
	var t tokenRow
	err := tx.QueryRow(ctx, `
		SELECT token_hash, user_id, email, new_password_hash, alert, expires_at <= now()
		FROM user_tokens WHERE token_hash = $1 AND purpose = $2 FOR UPDATE`, want, purpose).
		Scan(&stored, &t.UserID, &t.Email, &t.NewPasswordHash, &t.Alert, &t.Expired)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && subtle.ConstantTimeCompare(stored, want) != 1) {
		return tokenRow{}, ErrLinkInvalid
	}
	if err != nil {
		return tokenRow{}, err
	}
	if consume || t.Expired {
		if _, err := tx.Exec(ctx, `DELETE FROM user_tokens WHERE token_hash = $1`, want); err != nil {
			return tokenRow{}, err
		}
	}
	if t.Expired {
		return tokenRow{}, ErrLinkInvalid
	}
	return t, nil
}

// putToken stores a new token of purpose for the account inside tx,
// replacing the live one of that purpose (unsubscribe links accumulate),
// and returns the token to mail.
func putToken(ctx context.Context, tx pgx.Tx, userID int64, purpose TokenPurpose, email string,
	valid time.Duration, newHash, alert *string) (string, error) {
	token, hash := newToken()
	conflict := `ON CONFLICT (user_id, purpose) WHERE purpose <> 'unsubscribe' DO UPDATE
		SET token_hash = EXCLUDED.token_hash, email = EXCLUDED.email, new_password_hash = EXCLUDED.new_password_hash,
		    created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`
	if purpose == TokenUnsubscribe {
		conflict = ""
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO user_tokens (token_hash, user_id, purpose, email, new_password_hash, alert, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, now() + $7::interval) `+conflict,
		hash, userID, purpose, email, newHash, alert, valid)
	return token, err
}

// mailsLastHour counts the messages of kinds queued for the account in the
// last hour, inside tx.
func mailsLastHour(ctx context.Context, tx pgx.Tx, userID int64, kinds ...MailKind) (int, error) {
	var n int
	err := tx.QueryRow(ctx, `SELECT count(*) FROM mail_outbox
		WHERE user_id = $1 AND kind = ANY($2) AND created_at > now() - interval '1 hour'`, userID, kinds).Scan(&n)
	return n, err
}

// DeleteExpiredTokens removes links that can no longer be used, sign-ups'
// among them, and returns how many.
func (s *AccountsStore) DeleteExpiredTokens(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM user_tokens WHERE expires_at < now()`)
	if err != nil {
		return 0, op("delete expired tokens", err)
	}
	signups, err := s.pool.Exec(ctx, `DELETE FROM signups WHERE expires_at < now()`)
	return tag.RowsAffected() + signups.RowsAffected(), op("delete expired tokens", err)
}

// randomToken returns 128 random bits as 32 hex digits.
func randomToken() string {
	b := make([]byte, 16)
	rand.Read(b) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b)
}

// tokenHash is what Cobble stores of a token: its SHA-256.
func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
