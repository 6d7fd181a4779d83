package accounting

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/locale"
)

// RequestSignUp asks for an account. It makes none: when no account has
// the address, it keeps the sign-up and mails the address a link that
// makes the account (FinishSignUp); when one has, it mails the owner a note
// that someone tried to sign up with it. Either way it answers the same,
// and does the same work: one password hash, one statement. Each kind of
// message is sent at most MailsPerHour times an hour to an address; past
// that, nothing is sent, and the answer is still the same: one
// transaction of one statement and one job's insert (a job that does
// nothing when no message was queued). Invalid fields are a
// ValidationError.
func (s *AccountsStore) RequestSignUp(ctx context.Context, nu NewUser) error {
	if err := nu.Validate(); err != nil {
		return op("request sign-up", err)
	}
	hash, err := s.hashPassword(boinc.PasswordHash(nu.Password, nu.Email))
	if err != nil {
		return op("request sign-up", err)
	}
	token, tokenHash := newToken()
	err = s.tx(ctx, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `
		WITH owner AS (
			SELECT id, email, name, language FROM users WHERE lower(email) = lower($1)
		), note AS (
			INSERT INTO mail_outbox (kind, user_id, recipient, data, language)
			SELECT 'signup_taken', o.id, o.email, jsonb_build_object('name', o.name), coalesce(nullif(o.language, ''), $8) FROM owner o
			WHERE (SELECT count(*) FROM mail_outbox m WHERE m.user_id = o.id AND m.kind = 'signup_taken'
			       AND m.created_at > now() - interval '1 hour') < $6
			RETURNING id
		), pending AS (
			INSERT INTO signups (token_hash, email, name, password_hash, expires_at, language)
			SELECT $2, $1, $3, $4, now() + $7::interval, $8
			WHERE NOT EXISTS (SELECT FROM owner)
			  AND (SELECT count(*) FROM mail_outbox m WHERE lower(m.recipient) = lower($1) AND m.kind = 'signup'
			       AND m.created_at > now() - interval '1 hour') < $6
			RETURNING email, name, language
		), link AS (
			INSERT INTO mail_outbox (kind, recipient, data, secret, language)
			SELECT 'signup', p.email, jsonb_build_object('name', p.name), $5, p.language FROM pending p
			RETURNING id
		)
		SELECT coalesce((SELECT id FROM note), (SELECT id FROM link), 0)`,
			nu.Email, tokenHash, nu.Name, hash, token, MailsPerHour, SignupValid, requestLang(ctx)).Scan(&id)
		if err != nil {
			return err
		}
		return s.enqueueMail(ctx, tx, dueMail{id: id}) // a job whether or not a message was queued
	})
	return op("request sign-up", err)
}

// CheckSignUp returns the sign-up a link makes, without using the link:
// ErrLinkInvalid when it does not work (unknown, used or expired).
func (s *AccountsStore) CheckSignUp(ctx context.Context, token string) (Signup, error) {
	var su Signup
	if !wellFormedToken(token) {
		return su, op("check sign-up", ErrLinkInvalid)
	}
	err := s.pool.QueryRow(ctx, `SELECT email, name FROM signups WHERE token_hash = $1 AND expires_at > now()`,
		tokenHash(token)).Scan(&su.Email, &su.Name)
	if errors.Is(err, pgx.ErrNoRows) {
		err = ErrLinkInvalid
	}
	return su, op("check sign-up", err)
}

// FinishSignUp follows a sign-up's link: with the password chosen at
// sign-up (field "password"), it makes the account, its address confirmed,
// and forgets every sign-up of the address. Asking for the password again
// keeps someone who signed up with another's address from getting an
// account made in their name by the owner's click. A link that does not
// work, or whose address has an account by now, is ErrLinkInvalid.
func (s *AccountsStore) FinishSignUp(ctx context.Context, token, password string) (User, error) {
	var u User
	if !wellFormedToken(token) {
		return u, op("finish sign-up", ErrLinkInvalid)
	}
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockSignupAddress(ctx, tx, token); err != nil {
			return err
		}
		var su Signup
		var stored, lang string
		err := tx.QueryRow(ctx, `SELECT email, name, password_hash, language FROM signups
			WHERE token_hash = $1 AND expires_at > now() FOR UPDATE`, tokenHash(token)).Scan(&su.Email, &su.Name, &stored, &lang)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrLinkInvalid // used, or another link of the address was followed meanwhile
		}
		if err != nil {
			return err
		}
		if password == "" || s.comparePassword([]byte(stored), []byte(boinc.PasswordHash(password, su.Email))) != nil {
			return &ValidationError{Fields: map[string]locale.Msg{"password": locale.M("errors.field.signup_password")}}
		}
		rows, _ := tx.Query(ctx, `
			INSERT INTO users (email, name, password_hash, email_confirmed_at, language) VALUES ($1, $2, $3, now(), $4)
			RETURNING id, email, name, is_admin, time_zone, language, created_at`, su.Email, su.Name, stored, lang)
		u, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[User])
		if errors.Is(dbErr(err), ErrConflict) {
			return ErrLinkInvalid // the address has an account by now
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM signups WHERE lower(email) = lower($1)`, su.Email)
		return err
	})
	return u, op("finish sign-up", err)
}

// signupLock is the first key of the advisory locks that FinishSignUp
// takes on an address ("sign" in ASCII); the second is the address's hash.
const signupLock = 0x7369676e

// lockSignupAddress takes, for the rest of tx, the lock of the address
// that token's sign-up is for: finishing two links of one address at once
// then takes turns, the later one finding its link gone, instead of each
// holding its own sign-up row while waiting for the other's. A link that
// does not work is ErrLinkInvalid.
func lockSignupAddress(ctx context.Context, tx pgx.Tx, token string) error {
	rows, err := tx.Query(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(lower(email))) FROM signups
		WHERE token_hash = $2 AND expires_at > now()`, signupLock, tokenHash(token))
	if err != nil {
		return err
	}
	rows.Close()
	if rows.Err() == nil && rows.CommandTag().RowsAffected() == 0 {
		return ErrLinkInvalid
	}
	return rows.Err()
}
