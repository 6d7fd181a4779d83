package accounting

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/locale"
)

// checkedPassword is a volunteer's password checked against their stored
// hash (checkCurrent), with the email and hash it was checked against.
type checkedPassword struct{ email, hash string }

// checkCurrent checks the volunteer's password and returns their email
// and hash. It holds no transaction: bcrypt takes a tenth of a second of
// CPU (more on a busy machine), which a transaction would spend holding a
// connection and the volunteer's row. The operation's transaction then
// calls hold. A wrong password is a ValidationError on field.
func (s *core) checkCurrent(ctx context.Context, userID int64, password, field string) (checkedPassword, error) {
	var c checkedPassword
	err := s.pool.QueryRow(ctx, `SELECT email, password_hash FROM users WHERE id = $1`, userID).Scan(&c.email, &c.hash)
	if err != nil {
		return c, dbErr(err)
	}
	if s.comparePassword([]byte(c.hash), []byte(boinc.PasswordHash(password, c.email))) != nil {
		return c, &ValidationError{Fields: map[string]locale.Msg{field: locale.M("errors.field.not_current_password")},
			wrongSecret: true}
	}
	return c, nil
}

// hold locks the volunteer's row in tx and makes sure that their email and
// hash are still those the password was checked against: a change made
// meanwhile, by another request or instance, is ErrConflict, and nothing
// is saved.
func (c checkedPassword) hold(ctx context.Context, tx pgx.Tx, userID int64) error {
	var same bool
	err := tx.QueryRow(ctx, `SELECT email = $2 AND password_hash = $3 FROM users WHERE id = $1 FOR UPDATE`,
		userID, c.email, c.hash).Scan(&same)
	if err != nil {
		return dbErr(err)
	}
	if !same {
		return ErrConflict
	}
	return nil
}

// ChangePassword replaces a volunteer's password after checking the current
// one (field "current_password"; the new one is field "password"), and
// ends the account's other web sessions: every one but keep
// (EndOtherSessions). Connected computers keep working: they hold their own
// authenticators.
func (s *AccountsStore) ChangePassword(ctx context.Context, userID, keep int64, current, password string) error {
	v := validation{}
	checkPassword(v, password)
	v.check(current != "", "current_password", locale.M("errors.field.enter_current_password"))
	if err := v.err(); err != nil {
		return op("change password", err)
	}
	checked, err := s.checkCurrent(ctx, userID, current, "current_password")
	if err != nil {
		return op("change password", err)
	}
	hash, err := s.hashPassword(boinc.PasswordHash(password, checked.email))
	if err != nil {
		return op("change password", err)
	}
	return op("change password", s.tx(ctx, func(tx pgx.Tx) error {
		if err := checked.hold(ctx, tx, userID); err != nil {
			return err
		}
		if err := setHash(ctx, tx, userID, checked.email, hash); err != nil {
			return err
		}
		_, err = endOtherSessions(ctx, tx, userID, keep)
		return err
	}))
}

// setHash stores email and the bcrypt hash of the BOINC hash of the
// password with it (hashPassword), and drops a pending change of address.
func setHash(ctx context.Context, tx pgx.Tx, userID int64, email, hash string) error {
	_, err := tx.Exec(ctx, `UPDATE users SET email = $2, password_hash = $3 WHERE id = $1`, userID, email, hash)
	if err == nil {
		err = dropPendingChange(ctx, tx, userID)
	}
	return dbErr(err)
}

// SetTimeZone sets the time zone of a volunteer's days from now on (an IANA
// name such as Europe/Paris, field "time_zone"). Days already in the ledger
// keep their dates.
func (s *AccountsStore) SetTimeZone(ctx context.Context, userID int64, name string) error {
	name = strings.TrimSpace(name)
	v := validation{}
	v.check(ValidTimeZone(name), "time_zone", locale.M("errors.field.time_zone"))
	if err := v.err(); err != nil {
		return op("set time zone", err)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE users SET time_zone = $2 WHERE id = $1`, userID, name)
	if err == nil && tag.RowsAffected() == 0 {
		err = ErrNotFound
	}
	return op("set time zone", err)
}

// SetLanguage sets the language a volunteer reads Cobble in: the code of
// one of its catalogs, or "" to follow the browser (field "language").
func (s *AccountsStore) SetLanguage(ctx context.Context, userID int64, code string) error {
	if code != "" && locale.Default().Get(code) == nil {
		return op("set language", &ValidationError{Fields: map[string]locale.Msg{"language": locale.M("language.unknown")}})
	}
	tag, err := s.pool.Exec(ctx, `UPDATE users SET language = $2 WHERE id = $1`, userID, code)
	if err == nil && tag.RowsAffected() == 0 {
		err = ErrNotFound
	}
	return op("set language", err)
}

// ValidTimeZone reports whether name is an IANA time zone Cobble knows.
func ValidTimeZone(name string) bool {
	if name == "" || name == "Local" || len(name) > 64 || !Printable(name) {
		return false
	}
	_, err := time.LoadLocation(name)
	return err == nil
}

// DeleteUser removes a volunteer and everything of theirs (computers,
// authenticators, ledger, confirmed credit, choices) after checking their
// password (field "password"). Their computers' next RPCs are refused. The
// last enabled admin cannot delete their account (field "account").
func (s *AccountsStore) DeleteUser(ctx context.Context, userID int64, password string) error {
	if password == "" {
		return op("delete user", &ValidationError{Fields: map[string]locale.Msg{"password": locale.M("errors.field.enter_password_to_confirm")}})
	}
	checked, err := s.checkCurrent(ctx, userID, password, "password")
	if err != nil {
		return op("delete user", err)
	}
	return op("delete user", s.tx(ctx, func(tx pgx.Tx) error {
		if err := checked.hold(ctx, tx, userID); err != nil {
			return err
		}
		if err := checkNotLastAdmin(ctx, tx, userID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM users WHERE id = $1`, userID)
		return err
	}))
}
