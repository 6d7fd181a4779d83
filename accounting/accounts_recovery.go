package accounting

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/locale"
)

// checkEmailField validates an address typed into a form (field "email").
func checkEmailField(email string) error {
	v := validation{}
	v.check(Printable(email) && validEmail(email), "email", locale.M("errors.field.email"))
	return v.err()
}

// RequestPasswordReset mails a link to set a new password to the account
// with email (in any letter case), unless there is none, it is disabled, or
// it had MailsPerHour resets mailed in the last hour. Which of these was the
// case is not told, and the work is the same: one token made, one
// transaction of one statement and one job's insert (a job that does
// nothing when no message was queued). A malformed address is a
// ValidationError on "email".
func (s *AccountsStore) RequestPasswordReset(ctx context.Context, email string) error {
	email = strings.TrimSpace(email)
	if err := checkEmailField(email); err != nil {
		return op("request password reset", err)
	}
	token, hash := newToken()
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `
		WITH u AS (
			SELECT id, email, name, language FROM users
			WHERE lower(email) = lower($1) AND disabled_at IS NULL
			  AND (SELECT count(*) FROM mail_outbox m WHERE m.user_id = users.id AND m.kind = 'password_reset'
			       AND m.created_at > now() - interval '1 hour') < $4
		), t AS (
			INSERT INTO user_tokens (token_hash, user_id, purpose, email, expires_at)
			SELECT $2, id, 'password_reset', email, now() + $5::interval FROM u
			ON CONFLICT (user_id, purpose) WHERE purpose <> 'unsubscribe' DO UPDATE
			SET token_hash = EXCLUDED.token_hash, email = EXCLUDED.email,
			    created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
			RETURNING user_id
		), link AS (
			INSERT INTO mail_outbox (kind, user_id, recipient, data, secret, language)
			SELECT 'password_reset', u.id, u.email, jsonb_build_object('name', u.name), $3, coalesce(nullif(u.language, ''), $6)
			FROM u JOIN t ON t.user_id = u.id
			RETURNING id
		)
		SELECT coalesce((SELECT id FROM link), 0)`,
			email, hash, token, MailsPerHour, ResetValid, requestLang(ctx)).Scan(&id)
		if err != nil {
			return err
		}
		return s.enqueueMail(ctx, tx, dueMail{id: id}) // a job whether or not a message was queued
	})
	return op("request password reset", err)
}

// CheckPasswordReset reports whether a reset link still works
// (ErrLinkInvalid if not), without using it.
func (s *AccountsStore) CheckPasswordReset(ctx context.Context, token string) error {
	return op("check password reset", s.tx(ctx, func(tx pgx.Tx) error {
		t, err := takeToken(ctx, tx, token, TokenPasswordReset, false)
		if err != nil {
			return err
		}
		_, err = lockEnabledUser(ctx, tx, t.UserID)
		return err
	}))
}

// ResetPassword uses a reset link to set a new password (field
// "password"). The link works once. Every web session of the account ends
// (EndOtherSessions, keeping none);
// its computers keep their authenticators and keep working. The address the
// link was sent to counts as confirmed, if it is still the account's.
func (s *AccountsStore) ResetPassword(ctx context.Context, token, password string) error {
	return op("reset password", s.tx(ctx, func(tx pgx.Tx) error {
		t, err := takeToken(ctx, tx, token, TokenPasswordReset, true)
		if err != nil {
			return err
		}
		u, err := lockEnabledUser(ctx, tx, t.UserID)
		if err != nil {
			return err
		}
		// Checked once the link is known to work, so that a dead link is
		// told first; a refused password rolls back and keeps the link.
		v := validation{}
		checkPassword(v, password)
		if err := v.err(); err != nil {
			return err
		}
		hash, err := s.hashPassword(boinc.PasswordHash(password, u.Email))
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `
			UPDATE users SET password_hash = $2,
				email_confirmed_at = CASE WHEN lower(email) = lower($3) THEN coalesce(email_confirmed_at, now())
				                          ELSE email_confirmed_at END
			WHERE id = $1`, u.ID, hash, t.Email)
		if err == nil {
			err = dropPendingChange(ctx, tx, u.ID)
		}
		if err == nil {
			_, err = endOtherSessions(ctx, tx, u.ID, 0)
		}
		return err
	}))
}

// dropPendingChange forgets an email change not yet confirmed: the password
// hash it holds was made with the password it replaces.
func dropPendingChange(ctx context.Context, tx pgx.Tx, userID int64) error {
	_, err := tx.Exec(ctx, `DELETE FROM user_tokens WHERE user_id = $1 AND purpose = 'email_change'`, userID)
	return err
}

// lockEnabledUser locks the account's row inside tx. A disabled or deleted
// account cannot use links: ErrLinkInvalid.
func lockEnabledUser(ctx context.Context, tx pgx.Tx, userID int64) (User, error) {
	var u User
	var disabled bool
	err := tx.QueryRow(ctx, `
		SELECT id, email, name, language, disabled_at IS NOT NULL
		FROM users WHERE id = $1 FOR UPDATE`, userID).Scan(&u.ID, &u.Email, &u.Name, &u.Language, &disabled)
	if errors.Is(err, pgx.ErrNoRows) || disabled {
		return User{}, ErrLinkInvalid
	}
	return u, err
}

// SignUp creates an account, as CreateUser, and in the same transaction
// queues a welcome message with a link that confirms the address. The
// account works at once; confirming only marks the address as the
// volunteer's.
func (s *AccountsStore) SignUp(ctx context.Context, nu NewUser) (User, error) {
	var u User
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var err error
		if u, err = s.insertUser(ctx, tx, nu); err != nil {
			return err
		}
		token, err := putToken(ctx, tx, u.ID, TokenEmailConfirm, u.Email, ConfirmValid, nil, nil)
		if err != nil {
			return err
		}
		return s.queueMail(ctx, tx, MailWelcome, u.ID, u.Email, MailData{Name: u.Name}, token, requestLang(ctx))
	})
	return u, op("sign up", err)
}

// SendConfirmation mails the account a new link that confirms its address;
// the link sent before stops working. An address confirmed already is
// ErrConflict; MailsPerHour links in the last hour are ErrLimited.
func (s *AccountsStore) SendConfirmation(ctx context.Context, userID int64) error {
	return op("send confirmation", s.tx(ctx, func(tx pgx.Tx) error {
		var email, name string
		var confirmed bool
		err := tx.QueryRow(ctx, `SELECT email, name, email_confirmed_at IS NOT NULL FROM users WHERE id = $1 FOR UPDATE`,
			userID).Scan(&email, &name, &confirmed)
		if err != nil {
			return dbErr(err)
		}
		if confirmed {
			return ErrConflict
		}
		if err := underLimit(ctx, tx, userID, MailWelcome, MailConfirm); err != nil {
			return err
		}
		token, err := putToken(ctx, tx, userID, TokenEmailConfirm, email, ConfirmValid, nil, nil)
		if err != nil {
			return err
		}
		return s.queueMail(ctx, tx, MailConfirm, userID, email, MailData{Name: name}, token, requestLang(ctx))
	}))
}

// underLimit is ErrLimited when the account had MailsPerHour messages of
// kinds queued in the last hour.
func underLimit(ctx context.Context, tx pgx.Tx, userID int64, kinds ...MailKind) error {
	n, err := mailsLastHour(ctx, tx, userID, kinds...)
	if err == nil && n >= MailsPerHour {
		err = ErrLimited
	}
	return err
}

// AdminSendPasswordReset mails a reset link to the account, on an admin's
// request, audited in the same transaction. A disabled account is
// ErrDisabled; MailsPerHour resets in the last hour are ErrLimited.
func (s *AccountsStore) AdminSendPasswordReset(ctx context.Context, who Actor, userID int64) error {
	return op("send password reset", s.tx(ctx, func(tx pgx.Tx) error {
		u, err := lockEnabledUser(ctx, tx, userID)
		if errors.Is(err, ErrLinkInvalid) {
			err = userGoneOrDisabled(ctx, tx, userID)
		}
		if err != nil {
			return err
		}
		if err := underLimit(ctx, tx, userID, MailPasswordReset); err != nil {
			return err
		}
		token, err := putToken(ctx, tx, userID, TokenPasswordReset, u.Email, ResetValid, nil, nil)
		if err != nil {
			return err
		}
		if err := s.queueMail(ctx, tx, MailPasswordReset, userID, u.Email, MailData{Name: u.Name, ByAdmin: true}, token, u.Language); err != nil {
			return err
		}
		return audit(ctx, tx, who, AuditPasswordResetSent, fmt.Sprintf("user %d %s", userID, u.Email),
			nil, map[string]any{"sent_to": u.Email})
	}))
}

// userGoneOrDisabled tells apart why lockEnabledUser refused an account.
func userGoneOrDisabled(ctx context.Context, tx pgx.Tx, userID int64) error {
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM users WHERE id = $1`, userID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return ErrDisabled
}
