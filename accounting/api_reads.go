package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// apiComputers is the statement of a volunteer's computers (or the one
// @host), by id, as APIComputers.
var apiComputers = `SELECT h.id, h.nickname, h.domain_name AS host_name,
	coalesce((SELECT l.name FROM locations l WHERE l.id = h.location_id), '` + DefaultLocation + `') AS location,
	h.last_rpc_at, EXISTS (SELECT 1 FROM am_tokens t WHERE t.host_id = h.id) AS connected,
	h.pause_mode, h.pause_until,
	coalesce((SELECT sum(` + CreditSQL("hp.total_") + `) FROM host_projects hp
		WHERE hp.user_id = h.user_id AND hp.host_id = h.id), 0) / 1e6 AS estimated,
	coalesce((SELECT sum(c.granted_micro) FROM confirmed_ledger c
		WHERE c.user_id = h.user_id AND c.host_id = h.id), 0)::float8 / 1e6 AS confirmed
	FROM hosts h
	WHERE h.user_id = @user AND h.id > @after AND (@host::bigint = 0 OR h.id = @host)
	ORDER BY h.id LIMIT @limit`

// APIComputers lists up to limit of a volunteer's computers whose ids
// are above after, by id, with their lifetime totals.
func (s *APIStore) APIComputers(ctx context.Context, userID, after int64, limit int) ([]APIComputer, error) {
	rows, _ := s.pool.Query(ctx, apiComputers,
		pgx.NamedArgs{"user": userID, "after": after, "host": int64(0), "limit": limit})
	cs, err := pgx.CollectRows(rows, pgx.RowToStructByName[APIComputer])
	return cs, op("API computers", err)
}

// APIComputer returns one of a volunteer's computers with its lifetime
// totals; another volunteer's (or no) computer is ErrNotFound.
func (s *APIStore) APIComputer(ctx context.Context, userID, hostID int64) (APIComputer, error) {
	rows, _ := s.pool.Query(ctx, apiComputers,
		pgx.NamedArgs{"user": userID, "after": int64(0), "host": hostID, "limit": 1})
	c, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[APIComputer])
	return c, op("API computer", dbErr(err))
}

// APIProjects lists up to limit of the projects a volunteer's computers
// work or worked for whose ids are above after, by id, with the
// volunteer's lifetime totals and each computer's part in it.
func (s *APIStore) APIProjects(ctx context.Context, userID, after int64, limit int) ([]APIProject, error) {
	args := pgx.NamedArgs{"user": userID, "after": after, "limit": limit}
	rows, _ := s.pool.Query(ctx, `
		SELECT p.id, p.name, p.url, sum(`+CreditSQL("hp.total_")+`) / 1e6 AS estimated,
			coalesce((SELECT sum(c.granted_micro) FROM confirmed_ledger c
				WHERE c.user_id = @user AND c.project_id = p.id), 0)::float8 / 1e6 AS confirmed
		FROM host_projects hp JOIN projects p ON p.id = hp.project_id
		WHERE hp.user_id = @user AND p.id > @after
		GROUP BY p.id ORDER BY p.id LIMIT @limit`, args)
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[APIProject])
	if err != nil || len(ps) == 0 {
		return ps, op("API projects", err)
	}
	args["last"] = ps[len(ps)-1].ID
	rows, _ = s.pool.Query(ctx, `
		SELECT project_id, host_id, assigned, attached,
			CASE WHEN assigned THEN reason ELSE '' END AS reason
		FROM host_projects WHERE user_id = @user AND project_id > @after AND project_id <= @last
		ORDER BY project_id, host_id`, args)
	parts, err := pgx.CollectRows(rows, pgx.RowToStructByName[APIProjectComputer])
	for i := range ps {
		for _, c := range parts {
			if c.ProjectID == ps[i].ID {
				ps[i].Computers = append(ps[i].Computers, c)
			}
		}
	}
	return ps, op("API projects", err)
}

// ComputerDays returns a volunteer's history from–to (inclusive) by day
// and computer, oldest day first. It reads the ledger's rows, the only
// place that keeps a day per computer, so it covers the months whose
// per-computer detail is kept (--ledger-detail-months).
func (s *APIStore) ComputerDays(ctx context.Context, userID int64, from, to time.Time) ([]APIDay, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT l.day::timestamp AT TIME ZONE 'UTC' AS day, l.host_id AS key,
			sum(l.cpu_ec_micro)::float8 / 1e6 AS cpu_ec, sum(l.gpu_ec_micro)::float8 / 1e6 AS gpu_ec,
			sum(l.cpu_time_micro)::float8 / 3.6e9 AS cpu_hours, sum(l.gpu_time_micro)::float8 / 3.6e9 AS gpu_hours,
			sum(l.njobs_success)::bigint AS jobs_ok, sum(l.njobs_error)::bigint AS jobs_error,
			sum(l.granted_micro)::float8 / 1e6 AS confirmed
		FROM (SELECT host_id, day, cpu_ec_micro, gpu_ec_micro, cpu_time_micro, gpu_time_micro,
				njobs_success, njobs_error, 0::bigint AS granted_micro
			FROM ledger WHERE user_id = @user AND day BETWEEN @from::date AND @to::date
			UNION ALL
			SELECT host_id, day, 0, 0, 0, 0, 0, 0, granted_micro
			FROM confirmed_ledger WHERE user_id = @user AND day BETWEEN @from::date AND @to::date) l
		GROUP BY l.day, l.host_id ORDER BY l.day, l.host_id`,
		pgx.NamedArgs{"user": userID, "from": from, "to": to})
	ds, err := pgx.CollectRows(rows, pgx.RowToStructByName[APIDay])
	return ds, op("computer days", err)
}

// APIEvents returns up to limit of the events of a volunteer's computers
// older than after (all, from the newest, for the zero cursor), newest
// first.
func (s *APIStore) APIEvents(ctx context.Context, userID int64, after EventCursor, limit int) ([]APIEvent, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT `+eventColumns+`, e.host_id
		FROM accounting_events e LEFT JOIN projects p ON p.id = e.project_id
		WHERE e.user_id = @user AND (@id::bigint = 0 OR (e.at, e.id) < (@at, @id))
		ORDER BY e.at DESC, e.id DESC LIMIT @limit`,
		pgx.NamedArgs{"user": userID, "at": after.At, "id": after.ID, "limit": limit})
	es, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (APIEvent, error) {
		var e APIEvent
		var raw []byte
		if err := row.Scan(&e.ID, &e.At, &e.Kind, &e.ProjectName, &raw, &e.ComputerID); err != nil {
			return e, err
		}
		d, err := decodeEventDetail(e.Kind, raw)
		e.Detail = d
		return e, err
	})
	return es, op("API events", err)
}
