package accounting

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// SetUserDisabled disables (or enables again) an account: a disabled
// account's RPCs and web log-ins are refused; nothing is deleted. Audited
// in the same transaction; an unknown id is ErrNotFound.
func (s *Store) SetUserDisabled(ctx context.Context, who Actor, userID int64, disable bool) error {
	return op("set user disabled", s.tx(ctx, func(tx pgx.Tx) error {
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

// GrantAdmin makes the account with email (in any letter case) an admin,
// audited. An unknown email is ErrNotFound; an admin already stays one.
func (s *Store) GrantAdmin(ctx context.Context, who Actor, email string) (User, error) {
	var u User
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var was bool
		err := tx.QueryRow(ctx, `
			SELECT id, email, name, is_admin, time_zone, created_at, is_admin
			FROM users WHERE lower(email) = lower($1) FOR UPDATE`, strings.TrimSpace(email)).
			Scan(&u.ID, &u.Email, &u.Name, &u.IsAdmin, &u.TimeZone, &u.CreatedAt, &was)
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
func (s *Store) AuditRunNow(ctx context.Context, who Actor, p Project, runID int64) error {
	return op("audit run now", s.tx(ctx, func(tx pgx.Tx) error {
		return audit(ctx, tx, who, AuditRunNow, projectSubject(p), nil, map[string]any{"run": runID})
	}))
}
