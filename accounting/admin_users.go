package accounting

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/locale"
)

// SetUserDisabled disables (or enables again) an account: a disabled
// account's RPCs and web log-ins are refused; nothing is deleted. Audited
// in the same transaction; an unknown id is ErrNotFound. An admin cannot
// disable their own account, and the last enabled admin cannot be
// disabled: both are a ValidationError on "account".
func (s *AdminStore) SetUserDisabled(ctx context.Context, who Actor, userID int64, disable bool) error {
	return op("set user disabled", s.tx(ctx, func(tx pgx.Tx) error {
		if disable {
			if err := checkDisableAllowed(ctx, tx, who, userID); err != nil {
				return err
			}
		}
		var email string
		var was *time.Time
		err := tx.QueryRow(ctx, `SELECT email, disabled_at FROM users WHERE id = $1 FOR UPDATE`, userID).Scan(&email, &was)
		if err != nil {
			return dbErr(err)
		}
		if (was != nil) == disable {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET disabled_at = CASE WHEN $2 THEN now() END WHERE id = $1`,
			userID, disable); err != nil {
			return err
		}
		kind := AuditUserEnable
		if disable {
			kind = AuditUserDisable
		}
		return audit(ctx, tx, who, kind, fmt.Sprintf("user %d %s", userID, email),
			map[string]any{"disabled": !disable}, map[string]any{"disabled": disable})
	}))
}

// checkDisableAllowed refuses, inside tx, to disable the actor's own
// account or the last enabled admin (checkNotLastAdmin).
func checkDisableAllowed(ctx context.Context, tx pgx.Tx, who Actor, userID int64) error {
	if who.UserID != 0 && who.UserID == userID {
		return &ValidationError{Fields: map[string]locale.Msg{"account": locale.Text("You cannot disable your own account. " +
			"Another administrator can, if it must be done.")}}
	}
	return checkNotLastAdmin(ctx, tx, userID)
}

// checkNotLastAdmin refuses, inside tx, when userID is the last enabled
// admin, whose account is about to be disabled or deleted. It locks every
// enabled admin's row (in id order, so that two of these never deadlock):
// of two admins removing each other at once, the second waits for the
// first, then sees the first's change, and is refused.
func checkNotLastAdmin(ctx context.Context, tx pgx.Tx, userID int64) error {
	rows, _ := tx.Query(ctx, `SELECT id FROM users WHERE is_admin AND disabled_at IS NULL ORDER BY id FOR UPDATE`)
	admins, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	if len(admins) == 1 && admins[0] == userID {
		return &ValidationError{Fields: map[string]locale.Msg{"account": locale.Text("This is the last enabled administrator: " +
			"Cobble would have no one left to run it. Make another account an admin first.")}}
	}
	return nil
}

// GrantAdmin makes the account with email (in any letter case) an admin,
// audited. An unknown email is ErrNotFound; an admin already stays one.
func (s *AdminStore) GrantAdmin(ctx context.Context, who Actor, email string) (User, error) {
	var u User
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var was bool
		err := tx.QueryRow(ctx, `
			SELECT id, email, name, is_admin, time_zone, language, created_at, is_admin
			FROM users WHERE lower(email) = lower($1) FOR UPDATE`, strings.TrimSpace(email)).
			Scan(&u.ID, &u.Email, &u.Name, &u.IsAdmin, &u.TimeZone, &u.Language, &u.CreatedAt, &was)
		if err != nil || was {
			return dbErr(err)
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET is_admin = true WHERE id = $1`, u.ID); err != nil {
			return err
		}
		u.IsAdmin = true
		return audit(ctx, tx, who, AuditAdminGrant, fmt.Sprintf("user %d %s", u.ID, u.Email),
			map[string]any{"admin": false}, map[string]any{"admin": true})
	})
	return u, op("grant admin", err)
}

// AuditRunNow records that an admin started a reconciliation run.
func (s *AdminStore) AuditRunNow(ctx context.Context, who Actor, p Project, runID int64) error {
	return op("audit run now", s.tx(ctx, func(tx pgx.Tx) error {
		return audit(ctx, tx, who, AuditRunNow, projectSubject(p), nil, map[string]any{"run": runID})
	}))
}
