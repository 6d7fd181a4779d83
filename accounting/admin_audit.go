package accounting

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
)

// OSActor is the actor for a command run by the operating-system user name.
func OSActor(name string) Actor {
	if name == "" {
		name = "unknown"
	}
	return Actor{Name: "os:" + name}
}

// AdminActor is the actor for an admin account.
func AdminActor(u User) Actor { return Actor{UserID: u.ID, Name: u.Email} }

// audit records one change inside tx, the transaction of the change itself.
func audit(ctx context.Context, tx pgx.Tx, who Actor, kind AuditKind, subject string, before, after any) error {
	if who.Name == "" {
		who.Name = "cobble"
	}
	b, err := jsonOrNil(before)
	if err != nil {
		return err
	}
	a, err := jsonOrNil(after)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO audit_log (actor, actor_user_id, kind, subject, before, after)
		VALUES (@actor, NULLIF(@uid, 0), @kind, @subject, @before, @after)`,
		pgx.NamedArgs{"actor": who.Name, "uid": who.UserID, "kind": kind, "subject": subject,
			"before": b, "after": a})
	return err
}

func jsonOrNil(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

// Audit returns the newest entries that match f, newest first.
func (s *AdminStore) Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 50
	}
	var from, to *time.Time
	if !f.From.IsZero() {
		from = &f.From
	}
	if !f.To.IsZero() {
		end := f.To.AddDate(0, 0, 1)
		to = &end
	}
	rows, _ := s.readPool(ctx).Query(ctx, `
		SELECT id, at, actor, kind, subject,
		       COALESCE(before, 'null'::jsonb) AS before, COALESCE(after, 'null'::jsonb) AS after
		FROM audit_log
		WHERE (@actor = '' OR actor = @actor) AND (@kind = '' OR kind = @kind)
		  AND (@from::timestamptz IS NULL OR at >= @from) AND (@to::timestamptz IS NULL OR at < @to)
		  AND (@before::bigint = 0 OR id < @before)
		ORDER BY id DESC LIMIT @limit`,
		pgx.NamedArgs{"actor": f.Actor, "kind": string(f.Kind), "from": from, "to": to,
			"before": f.Before, "limit": f.Limit})
	es, err := pgx.CollectRows(rows, pgx.RowToStructByName[AuditEntry])
	return es, op("audit", err)
}

// AuditActors lists everyone who appears in the audit log, for filters.
func (s *AdminStore) AuditActors(ctx context.Context) ([]string, error) {
	rows, _ := s.readPool(ctx).Query(ctx, `SELECT DISTINCT actor FROM audit_log ORDER BY actor LIMIT 200`)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return names, op("audit actors", err)
}
