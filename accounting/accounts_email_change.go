package accounting

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/locale"
)

// RequestEmailChange mails a link to the new address (field "email") after
// checking the password (field "password"). The address becomes the
// account's only when the link is followed, within EmailChangeValid; until
// then the account keeps its address, and a newer request replaces this
// one. A taken address is a ValidationError on "email"; MailsPerHour
// requests in the last hour are ErrLimited.
func (s *AccountsStore) RequestEmailChange(ctx context.Context, userID int64, password, email string) error {
	email = strings.TrimSpace(email)
	v := validation{}
	v.check(Printable(email) && validEmail(email), "email", locale.M("errors.field.email"))
	v.check(password != "", "password", locale.M("errors.field.enter_password"))
	if err := v.err(); err != nil {
		return op("request email change", err)
	}
	checked, err := s.checkCurrent(ctx, userID, password, "password")
	if err != nil {
		return op("request email change", err)
	}
	hash, err := s.hashPassword(boinc.PasswordHash(password, email))
	if err != nil {
		return op("request email change", err)
	}
	return op("request email change", s.tx(ctx, func(tx pgx.Tx) error {
		if err := checked.hold(ctx, tx, userID); err != nil {
			return err
		}
		old := checked.email
		if err := checkNewEmail(ctx, tx, userID, old, email); err != nil {
			return err
		}
		if err := underLimit(ctx, tx, userID, MailEmailChange); err != nil {
			return err
		}
		token, err := putToken(ctx, tx, userID, TokenEmailChange, email, EmailChangeValid, &hash, nil)
		if err != nil {
			return err
		}
		return s.queueMail(ctx, tx, MailEmailChange, userID, email, MailData{Email: email, OldEmail: old}, token, requestLang(ctx))
	}))
}

// checkNewEmail refuses the account's own address and one another account
// has.
func checkNewEmail(ctx context.Context, tx pgx.Tx, userID int64, old, email string) error {
	if email == old {
		return &ValidationError{Fields: map[string]locale.Msg{"email": locale.M("errors.field.same_email")}}
	}
	var taken bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($1) AND id <> $2)`,
		email, userID).Scan(&taken)
	if err == nil && taken {
		err = &ValidationError{Fields: map[string]locale.Msg{"email": locale.M("errors.field.email_taken")}}
	}
	return err
}

// ConfirmEmail follows a link of a welcome, confirmation or email-change
// message. A confirmation marks the account's address as confirmed; an
// email change makes the new address the account's (its old address is
// told). Each link works once. A link for an address the account no longer
// has, or of a disabled account, is ErrLinkInvalid; a new address that
// another account took meanwhile is ErrConflict.
func (s *AccountsStore) ConfirmEmail(ctx context.Context, token string) (Confirmed, error) {
	c, err := s.confirm(ctx, token, true)
	return c, op("confirm email", err)
}

// CheckConfirmLink reports whether a confirmation or email-change link
// still works (ErrLinkInvalid if not), without using it.
func (s *AccountsStore) CheckConfirmLink(ctx context.Context, token string) error {
	_, err := s.confirm(ctx, token, false)
	return op("check confirmation link", err)
}

// confirm finds a confirmation or email-change link and, with apply set,
// uses it.
func (s *AccountsStore) confirm(ctx context.Context, token string, apply bool) (Confirmed, error) {
	var c Confirmed
	err := s.tx(ctx, func(tx pgx.Tx) error {
		purpose := TokenEmailConfirm
		if wellFormedToken(token) {
			err := tx.QueryRow(ctx, `SELECT purpose FROM user_tokens
				WHERE token_hash = $1 AND purpose IN ('email_confirm', 'email_change')`, tokenHash(token)).Scan(&purpose)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		t, err := takeToken(ctx, tx, token, purpose, apply)
		if err != nil {
			return err
		}
		u, err := lockEnabledUser(ctx, tx, t.UserID)
		if err != nil || !apply {
			return err
		}
		c = Confirmed{UserID: u.ID, Email: t.Email, Changed: purpose == TokenEmailChange}
		if c.Changed {
			return s.changeEmail(ctx, tx, u, t)
		}
		tag, err := tx.Exec(ctx, `UPDATE users SET email_confirmed_at = coalesce(email_confirmed_at, now())
			WHERE id = $1 AND lower(email) = lower($2)`, u.ID, t.Email)
		if err == nil && tag.RowsAffected() == 0 {
			err = ErrLinkInvalid
		}
		return err
	})
	return c, err
}

// changeEmail makes an email change take effect inside tx and tells the
// old address.
func (s *core) changeEmail(ctx context.Context, tx pgx.Tx, u User, t tokenRow) error {
	_, err := tx.Exec(ctx, `UPDATE users SET email = $2, password_hash = $3, email_confirmed_at = now() WHERE id = $1`,
		u.ID, t.Email, *t.NewPasswordHash)
	if err != nil {
		return dbErr(err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM user_tokens WHERE user_id = $1 AND purpose IN ('email_confirm', 'password_reset')`,
		u.ID); err != nil {
		return err
	}
	return s.queueMail(ctx, tx, MailEmailChanged, u.ID, u.Email, MailData{Name: u.Name, Email: t.Email, OldEmail: u.Email}, "", requestLang(ctx))
}
