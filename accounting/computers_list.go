package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

var computerColumns = `h.id, h.domain_name AS name, h.nickname, h.last_rpc_at, h.created_at,
	coalesce(h.platforms[1], '') AS platform, h.os_name, h.os_version, h.p_model, h.ncpus, h.coprocs,
	h.client_version,
	coalesce((SELECT l.name FROM locations l WHERE l.id = h.location_id), '` + DefaultLocation + `') AS location,
	coalesce((SELECT array_agg(p.name ORDER BY p.name) FROM host_projects hp
		JOIN projects p ON p.id = hp.project_id
		WHERE hp.host_id = h.id AND (hp.assigned OR hp.attached)), '{}') AS projects,
	coalesce((SELECT sum(` + CreditSQL("l.") + `) FROM ledger l
		WHERE l.host_id = h.id AND l.day BETWEEN @today::date - 6 AND @today::date), 0) / 1e6 AS credit_7d,
	EXISTS (SELECT 1 FROM am_tokens t WHERE t.host_id = h.id) AS connected,
	h.pause_mode, h.pause_until,
	(SELECT (h.pause_until AT TIME ZONE u.time_zone)::date - 1 FROM users u WHERE u.id = h.user_id) AS pause_last_day`

// Computers lists a volunteer's computers by label; credit over the 7 days
// up to today (a day from Today).
func (s *ComputersStore) Computers(ctx context.Context, userID int64, today time.Time) ([]Computer, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+computerColumns+` FROM hosts h
		WHERE h.user_id = @user ORDER BY lower(`+labelColumn+`), h.id`,
		pgx.NamedArgs{"user": userID, "today": today})
	cs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Computer])
	return cs, op("computers", err)
}

// Computer returns one of the volunteer's computers; another volunteer's
// (or no) computer is ErrNotFound.
func (s *ComputersStore) Computer(ctx context.Context, userID, hostID int64, today time.Time) (Computer, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+computerColumns+` FROM hosts h
		WHERE h.user_id = @user AND h.id = @host`,
		pgx.NamedArgs{"user": userID, "host": hostID, "today": today})
	c, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Computer])
	return c, op("computer", dbErr(err))
}

// ComputerProjects lists the projects of one of the volunteer's computers
// (nothing for another volunteer's).
func (s *ComputersStore) ComputerProjects(ctx context.Context, userID, hostID int64) ([]ComputerProject, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT hp.project_id, p.name, p.url, hp.first_seen_at AS since, hp.assigned OR hp.attached AS active,
			hp.assigned, hp.attached, hp.reported_at,
			CASE WHEN hp.assigned THEN hp.reason ELSE '' END AS reason,
			`+CreditSQL("hp.total_")+` / 1e6 AS estimated,
			coalesce((SELECT sum(granted_micro) FROM confirmed_ledger c
				WHERE c.host_id = hp.host_id AND c.project_id = hp.project_id), 0) / 1e6 AS confirmed
		FROM host_projects hp JOIN projects p ON p.id = hp.project_id
		WHERE hp.host_id = @host AND hp.user_id = @user ORDER BY p.name`,
		pgx.NamedArgs{"user": userID, "host": hostID})
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[ComputerProject])
	return ps, op("computer projects", err)
}

// ComputerEvents returns the latest events of one of the volunteer's
// computers, newest first (nothing for another volunteer's).
func (s *ComputersStore) ComputerEvents(ctx context.Context, userID, hostID int64, limit int) ([]Event, error) {
	es, err := s.hostEvents(ctx, userID, hostID, limit)
	return es, op("computer events", err)
}

// Disconnect revokes the AM authenticator of one of the volunteer's
// computers: its next RPC is refused until it joins again with the
// password. Another volunteer's (or no) computer is ErrNotFound.
func (s *ComputersStore) Disconnect(ctx context.Context, userID, hostID int64) error {
	return op("disconnect", s.tx(ctx, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `SELECT id FROM hosts WHERE id = $1 AND user_id = $2 FOR UPDATE`,
			hostID, userID).Scan(&id)
		if err != nil {
			return dbErr(err)
		}
		_, err = tx.Exec(ctx, `DELETE FROM am_tokens WHERE host_id = $1`, hostID)
		return err
	}))
}

// VolunteerProjects lists the projects of a volunteer's computers by name.
func (s *ComputersStore) VolunteerProjects(ctx context.Context, userID int64) ([]VolunteerProject, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT p.id, p.name, p.url, count(*) AS computers,
			sum(hp.total_cpu_time_micro) / 3.6e9 AS cpu_hours, sum(hp.total_gpu_time_micro) / 3.6e9 AS gpu_hours,
			sum(hp.total_njobs_success)::bigint AS jobs_ok, sum(hp.total_njobs_error)::bigint AS jobs_error,
			sum(`+CreditSQL("hp.total_")+`) / 1e6 AS estimated,
			coalesce(min(c.granted), 0) / 1e6 AS confirmed
		FROM host_projects hp JOIN projects p ON p.id = hp.project_id
		LEFT JOIN (SELECT project_id, sum(granted_micro) AS granted FROM confirmed_ledger
			WHERE user_id = @user GROUP BY project_id) c ON c.project_id = hp.project_id
		WHERE hp.user_id = @user GROUP BY p.id ORDER BY p.name`, pgx.NamedArgs{"user": userID})
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[VolunteerProject])
	return ps, op("volunteer projects", err)
}
