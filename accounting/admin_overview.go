package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Overview reads the system overview as of now.
func (s *AdminStore) Overview(ctx context.Context, now time.Time) (SystemOverview, error) {
	var o SystemOverview
	first := now.UTC().Truncate(time.Hour).Add(-47 * time.Hour)
	for i := range 48 {
		o.Hours = append(o.Hours, RPCHour{Hour: first.Add(time.Duration(i) * time.Hour)})
	}
	rows, _ := s.pool.Query(ctx, `SELECT hour, outcome, count FROM rpc_hourly WHERE hour >= $1`, first)
	var hour time.Time
	var outcome string
	var n int64
	_, err := pgx.ForEachRow(rows, []any{&hour, &outcome, &n}, func() error {
		if i := int(hour.Sub(first) / time.Hour); i >= 0 && i < len(o.Hours) {
			h := &o.Hours[i]
			switch outcome {
			case OutcomeOK:
				h.OK += n
			case OutcomeErrorReply:
				h.Errors += n
			case OutcomeUnavailable:
				h.Unavailable += n
			}
		}
		return nil
	})
	if err != nil {
		return o, op("overview", err)
	}
	if err := s.overviewCredit(ctx, &o, now); err != nil {
		return o, op("overview", err)
	}
	return o, op("overview", s.overviewCounts(ctx, &o))
}

// overviewCredit fills the last 30 days of credit per project.
func (s *AdminStore) overviewCredit(ctx context.Context, o *SystemOverview, now time.Time) error {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	first := today.AddDate(0, 0, -29)
	for i := range 30 {
		o.Days = append(o.Days, first.AddDate(0, 0, i))
	}
	rows, _ := s.pool.Query(ctx, `
		SELECT c.project_id, p.name, c.day::timestamp AT TIME ZONE 'UTC', c.ec_micro / 1e6, c.clamped_ec_micro / 1e6
		FROM rollup_project_days c JOIN projects p ON p.id = c.project_id
		WHERE c.day >= $1::date ORDER BY p.id, c.day`, first)
	var id int64
	var name string
	var day time.Time
	var credit, clamped float64
	_, err := pgx.ForEachRow(rows, []any{&id, &name, &day, &credit, &clamped}, func() error {
		if n := len(o.Projects); n == 0 || o.Projects[n-1].ProjectID != id {
			o.Projects = append(o.Projects, ProjectDaily{ProjectID: id, Name: name,
				Credit: make([]float64, 30), Clamped: make([]float64, 30)})
		}
		p := &o.Projects[len(o.Projects)-1]
		if i := int(day.Sub(first).Hours() / 24); i >= 0 && i < 30 {
			p.Credit[i], p.Clamped[i] = credit, clamped
		}
		return nil
	})
	return err
}

func (s *AdminStore) overviewCounts(ctx context.Context, o *SystemOverview) error {
	rows, _ := s.pool.Query(ctx, `SELECT name, value, at FROM system_counts`)
	var name string
	var value int64
	var at time.Time
	_, err := pgx.ForEachRow(rows, []any{&name, &value, &at}, func() error {
		switch name {
		case "hosts_24h":
			o.HostsDay = value
		case "hosts_7d":
			o.HostsWeek = value
		case "users":
			o.Users = value
		case "users_7d":
			o.UsersWeek = value
		}
		o.CountsAt = at
		return nil
	})
	return err
}
