package accounting

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"
)

// Host returns one computer, or ErrNotFound.
func (s *ComputersStore) Host(ctx context.Context, id int64) (HostInfo, error) {
	var h HostInfo
	var coprocs []byte
	err := s.readPool(ctx).QueryRow(ctx, `
		SELECT h.id, h.user_id, u.email, u.name, u.time_zone, h.domain_name, h.host_cpid, h.client_version, h.platforms,
			h.os_name, h.os_version, h.p_model, h.ncpus, h.p_fpops, h.coprocs, h.created_at, h.last_rpc_at,
			h.rpc_count, h.implausible, h.nickname
		FROM hosts h JOIN users u ON u.id = h.user_id WHERE h.id = $1`, id).Scan(
		&h.ID, &h.UserID, &h.Email, &h.UserName, &h.TimeZone, &h.DomainName, &h.CPID, &h.ClientVersion, &h.Platforms,
		&h.OSName, &h.OSVersion, &h.PModel, &h.NCPUs, &h.PFPOps, &coprocs, &h.CreatedAt, &h.LastRPCAt,
		&h.RPCCount, &h.Implausible, &h.Nickname)
	if err == nil {
		err = json.Unmarshal(coprocs, &h.Coprocs)
	}
	return h, op("host", dbErr(err))
}

// HostProjects lists a host's projects.
func (s *ComputersStore) HostProjects(ctx context.Context, hostID int64) ([]HostProjectCredit, error) {
	rows, _ := s.readPool(ctx).Query(ctx, `
		SELECT hp.project_id, p.name AS project_name, p.url AS project_url, hp.project_hostid,
			hp.assigned, hp.attached,
			`+CreditSQL("hp.total_")+` / 1e6 AS estimated,
			coalesce((SELECT sum(`+CreditSQL("clamped_")+`) FROM ledger l
				WHERE l.host_id = hp.host_id AND l.project_id = hp.project_id), 0) / 1e6 AS clamped,
			coalesce((SELECT sum(granted_micro) FROM confirmed_ledger c
				WHERE c.host_id = hp.host_id AND c.project_id = hp.project_id), 0) / 1e6 AS granted
		FROM host_projects hp JOIN projects p ON p.id = hp.project_id
		WHERE hp.host_id = $1 ORDER BY p.name`, hostID)
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[HostProjectCredit])
	return ps, op("host projects", err)
}

// HostEvents returns a host's latest events, newest first. An event whose
// stored detail does not read is an error.
func (s *ComputersStore) HostEvents(ctx context.Context, hostID int64, limit int) ([]Event, error) {
	es, err := s.hostEvents(ctx, 0, hostID, limit)
	return es, op("host events", err)
}

// hostEvents returns a host's latest events, newest first; only when the
// host is the volunteer's unless userID is 0.
func (s *ComputersStore) hostEvents(ctx context.Context, userID, hostID int64, limit int) ([]Event, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT `+eventColumns+`
		FROM accounting_events e LEFT JOIN projects p ON p.id = e.project_id
		WHERE e.host_id = $1 AND ($3::bigint = 0 OR e.user_id = $3)
		ORDER BY e.at DESC, e.id DESC LIMIT $2`, hostID, limit, userID)
	return pgx.CollectRows(rows, scanEvent)
}
