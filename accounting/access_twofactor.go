package accounting

import (
	"context"
	"crypto/subtle"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/locale"
)

// TwoFactorOn reports whether the account has two-factor sign-in on.
func (s *AccessStore) TwoFactorOn(ctx context.Context, userID int64) (bool, error) {
	var on bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM user_two_factor WHERE user_id = $1)`, userID).Scan(&on)
	return on, op("two-factor state", err)
}

// EnableTwoFactor turns two-factor sign-in on with secret, once code
// (field "code") shows that the volunteer's app holds it, and returns the
// account's RecoveryCodes recovery codes, which are kept only hashed. It
// ends every other web session of the account, all but keep
// (EndOtherSessions). An account with two factors already is ErrConflict.
func (s *AccessStore) EnableTwoFactor(ctx context.Context, userID, keep int64, secret, code string, now time.Time) ([]string, error) {
	code, err := NormalizeCode(code, "code")
	if err != nil {
		return nil, op("enable two-factor", err)
	}
	if !ValidSecret(secret) {
		return nil, op("enable two-factor", fmt.Errorf("secret is not base32"))
	}
	step, ok := matchStep(secret, code, now)
	if !ok {
		return nil, op("enable two-factor", &ValidationError{Fields: map[string]locale.Msg{
			"code": locale.M("errors.field.enrol_mismatch")}})
	}
	codes := newRecoveryCodes()
	err = s.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
			INSERT INTO user_two_factor (user_id, secret, last_step) VALUES ($1, $2, $3)
			ON CONFLICT (user_id) DO NOTHING`, userID, secret, step)
		if err != nil {
			return dbErr(err)
		}
		if tag.RowsAffected() == 0 {
			return ErrConflict
		}
		for _, c := range codes {
			h, _ := recoveryHash(c, "code")
			if _, err := tx.Exec(ctx, `INSERT INTO user_recovery_codes (user_id, code_hash) VALUES ($1, $2)`, userID, h); err != nil {
				return err
			}
		}
		_, err = endOtherSessions(ctx, tx, userID, keep)
		return err
	})
	if err != nil {
		return nil, op("enable two-factor", err)
	}
	return codes, nil
}

// CheckCode accepts a TOTP code (field "code") of the account's once: its
// time step must be later than the last one accepted, and moving that
// step forward is one atomic UPDATE, so two instances never both accept a
// code. A code that does not match is ErrBadCode, one used already
// ErrCodeUsed; an account without two factors is ErrNotFound.
func (s *AccessStore) CheckCode(ctx context.Context, userID int64, code string, now time.Time) error {
	return op("check code", s.tx(ctx, func(tx pgx.Tx) error {
		return checkCode(ctx, tx, userID, code, "code", now)
	}))
}

func checkCode(ctx context.Context, tx pgx.Tx, userID int64, code, field string, now time.Time) error {
	code, err := NormalizeCode(code, field)
	if err != nil {
		return err
	}
	var secret string
	err = tx.QueryRow(ctx, `SELECT secret FROM user_two_factor WHERE user_id = $1`, userID).Scan(&secret)
	if err != nil {
		return dbErr(err)
	}
	step, ok := matchStep(secret, code, now)
	if !ok {
		return ErrBadCode
	}
	tag, err := tx.Exec(ctx, `UPDATE user_two_factor SET last_step = $2 WHERE user_id = $1 AND last_step < $2`, userID, step)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return ErrCodeUsed
	}
	return nil
}

// UseRecoveryCode spends one of the account's recovery codes (field
// "recovery_code") and returns how many are left. A code that matches
// none is ErrBadCode, one spent before ErrCodeUsed.
func (s *AccessStore) UseRecoveryCode(ctx context.Context, userID int64, code string) (int, error) {
	var left int
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var err error
		left, err = useRecoveryCode(ctx, tx, userID, code, "recovery_code")
		return err
	})
	return left, op("use recovery code", err)
}

// recoveryRow is one of an account's recovery codes, hashed.
type recoveryRow struct {
	CodeHash []byte
	Used     bool
}

// useRecoveryCode spends code inside tx, the account's codes locked; the
// hashes are compared in constant time.
func useRecoveryCode(ctx context.Context, tx pgx.Tx, userID int64, code, field string) (int, error) {
	h, err := recoveryHash(code, field)
	if err != nil {
		return 0, err
	}
	rows, _ := tx.Query(ctx, `
		SELECT code_hash, used_at IS NOT NULL AS used FROM user_recovery_codes WHERE user_id = $1 FOR UPDATE`, userID)
	codes, err := pgx.CollectRows(rows, pgx.RowToStructByName[recoveryRow])
	if err != nil {
		return 0, err
	}
	match, left := -1, 0
	for i, c := range codes {
		if subtle.ConstantTimeCompare(c.CodeHash, h) == 1 {
			match = i
		}
		if !c.Used {
			left++
		}
	}
	switch {
	case match < 0:
		return left, ErrBadCode
	case codes[match].Used:
		return left, ErrCodeUsed
	}
	_, err = tx.Exec(ctx, `UPDATE user_recovery_codes SET used_at = now() WHERE user_id = $1 AND code_hash = $2`, userID, h)
	return left - 1, err
}

// DisableTwoFactor turns two-factor sign-in off, with the account's
// password (field "password") and a code (field "code": a TOTP code or a
// recovery code). A wrong password is a ValidationError; a wrong or used
// code ErrBadCode or ErrCodeUsed. Nothing changes unless both are right.
func (s *AccessStore) DisableTwoFactor(ctx context.Context, userID int64, password, code string, now time.Time) error {
	v := validation{}
	v.check(password != "", "password", locale.M("errors.field.enter_password"))
	v.check(strings.TrimSpace(code) != "", "code", locale.M("errors.field.enter_code_or_recovery"))
	if err := v.err(); err != nil {
		return op("disable two-factor", err)
	}
	checked, err := s.checkCurrent(ctx, userID, password, "password")
	if err != nil {
		return op("disable two-factor", err)
	}
	return op("disable two-factor", s.tx(ctx, func(tx pgx.Tx) error {
		if err := checked.hold(ctx, tx, userID); err != nil {
			return err
		}
		var err error
		if _, bad := NormalizeCode(code, "code"); bad == nil {
			err = checkCode(ctx, tx, userID, code, "code", now)
		} else {
			_, err = useRecoveryCode(ctx, tx, userID, code, "code")
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM user_two_factor WHERE user_id = $1`, userID)
		return err
	}))
}

// ConfirmPassword checks the account's password again, for a sensitive
// action: ErrBadPassword when it does not match.
func (s *AccessStore) ConfirmPassword(ctx context.Context, userID int64, password string) error {
	var email, stored string
	err := s.pool.QueryRow(ctx, `SELECT email, password_hash FROM users WHERE id = $1`, userID).Scan(&email, &stored)
	if err != nil {
		return op("confirm password", dbErr(err))
	}
	if s.comparePassword([]byte(stored), []byte(boinc.PasswordHash(password, email))) != nil {
		return op("confirm password", ErrBadPassword)
	}
	return nil
}

// ResetTwoFactor removes the second factor and the recovery codes of the
// account with email, for an operator who recovers an account whose
// device is lost, audited as who. It reports whether there was one to
// remove (no audit row when there was none); an unknown email is
// ErrNotFound.
func (s *AccessStore) ResetTwoFactor(ctx context.Context, who Actor, email string) (User, bool, error) {
	var u User
	var removed bool
	err := s.tx(ctx, func(tx pgx.Tx) error {
		removed = false // afresh if the transaction is run again
		err := tx.QueryRow(ctx, `SELECT id, email, name, is_admin FROM users WHERE lower(email) = lower($1) FOR UPDATE`,
			strings.TrimSpace(email)).Scan(&u.ID, &u.Email, &u.Name, &u.IsAdmin)
		if err != nil {
			return dbErr(err)
		}
		tag, err := tx.Exec(ctx, `DELETE FROM user_two_factor WHERE user_id = $1`, u.ID)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		removed = true
		return audit(ctx, tx, who, AuditTwoFactorReset, fmt.Sprintf("user %d %s", u.ID, u.Email),
			map[string]any{"two_factor": "on"}, map[string]any{"two_factor": "off"})
	})
	return u, removed, op("reset two-factor", err)
}
