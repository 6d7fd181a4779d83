package accounting

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// UserForAdmin returns a volunteer's page for admins, or ErrNotFound.
func (s *AdminStore) UserForAdmin(ctx context.Context, id int64) (UserDetail, error) {
	var d UserDetail
	rows, _ := s.readPool(ctx).Query(ctx, `
		SELECT id, email, name, is_admin, disabled_at IS NOT NULL AS disabled, created_at
		FROM users WHERE id = $1`, id)
	u, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[UserHit])
	if err != nil {
		return d, op("user for admin", dbErr(err))
	}
	d.UserHit = u
	rows, _ = s.readPool(ctx).Query(ctx, `
		SELECT h.id, h.user_id, u.email, h.domain_name, h.host_cpid AS cpid, h.last_rpc_at,
			h.client_version, h.os_name, h.rpc_count, h.implausible
		FROM hosts h JOIN users u ON u.id = h.user_id
		WHERE h.user_id = $1 ORDER BY h.last_rpc_at DESC NULLS LAST LIMIT 200`, id)
	if d.Hosts, err = pgx.CollectRows(rows, pgx.RowToStructByName[HostHitDetail]); err != nil {
		return d, op("user for admin", err)
	}
	rows, _ = s.readPool(ctx).Query(ctx, `
		SELECT p.id AS project_id, p.name,
			sum(`+CreditSQL("hp.total_")+`) / 1e6 AS estimated,
			COALESCE((SELECT sum(`+CreditSQL("l.clamped_")+`) FROM ledger l
			          WHERE l.user_id = $1 AND l.project_id = p.id), 0) / 1e6 AS clamped
		FROM host_projects hp JOIN projects p ON p.id = hp.project_id
		WHERE hp.user_id = $1 GROUP BY p.id, p.name ORDER BY p.name`, id)
	if d.Credit, err = pgx.CollectRows(rows, pgx.RowToStructByName[UserProjectCredit]); err != nil {
		return d, op("user for admin", err)
	}
	rows, _ = s.readPool(ctx).Query(ctx, `
		SELECT `+eventColumns+`
		FROM accounting_events e LEFT JOIN projects p ON p.id = e.project_id
		WHERE e.host_id IN (SELECT id FROM hosts WHERE user_id = $1) ORDER BY e.at DESC LIMIT 20`, id)
	d.Events, err = pgx.CollectRows(rows, scanEvent)
	return d, op("user for admin", err)
}
