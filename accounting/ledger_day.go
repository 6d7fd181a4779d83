package accounting

import (
	"cmp"
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// DayEvidence returns where the numbers of one day (a day from Today) of
// one of the volunteer's computers came from, per project by name: the
// ledger row with its report count and times, the day's events (in
// timeZone, the volunteer's) and the exports that confirmed it. Another
// volunteer's (or no) computer is ErrNotFound.
func (s *LedgerStore) DayEvidence(ctx context.Context, userID, hostID int64, day time.Time, timeZone string) (DayEvidence, error) {
	loc := s.location(timeZone)
	start := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc)
	end := start.AddDate(0, 0, 1)
	args := pgx.NamedArgs{"user": userID, "host": hostID, "day": day, "start": start,
		"end": end, "kinds": dayEventKinds}
	ev := DayEvidence{Day: day}
	b := &pgx.Batch{}
	b.Queue(`SELECT count(*) FROM hosts WHERE user_id = @user AND id = @host`, args)
	b.Queue(dayRowsQuery, args)
	b.Queue(`SELECT e.project_id, `+eventColumns+`
		FROM accounting_events e LEFT JOIN projects p ON p.id = e.project_id
		WHERE e.host_id = @host AND e.user_id = @user AND e.at >= @start AND e.at < @end
			AND e.kind = ANY(@kinds::text[]) AND e.project_id IS NOT NULL
		ORDER BY e.at, e.id`, args)
	b.Queue(dayExportsQuery, args)
	br := s.pool.SendBatch(ctx, b)
	defer br.Close()
	err := readDayEvidence(br, &ev)
	for i := range ev.Projects {
		for j := range ev.Projects[i].Exports {
			ev.Projects[i].Exports[j].apportion(start, end)
		}
	}
	return ev, op("day evidence", err)
}

// dayRowsQuery reads the day's ledger and confirmed-ledger rows of a
// host, one row per project.
var dayRowsQuery = `
	SELECT p.id, p.name, ` + UsageList("coalesce(l.%s, 0)", LedgerColumn) + `,
		` + UsageList("coalesce(l.%s, 0)", ClampedColumn) + `,
		coalesce(l.reports, 0), l.first_report_at, l.last_report_at, coalesce(c.granted_micro, 0)
	FROM (SELECT project_id FROM ledger WHERE user_id = @user AND host_id = @host AND day = @day
		UNION SELECT project_id FROM confirmed_ledger WHERE user_id = @user AND host_id = @host AND day = @day) x
	JOIN projects p ON p.id = x.project_id
	LEFT JOIN ledger l ON l.user_id = @user AND l.host_id = @host AND l.day = @day AND l.project_id = x.project_id
	LEFT JOIN confirmed_ledger c ON c.user_id = @user AND c.host_id = @host AND c.day = @day AND c.project_id = x.project_id
	ORDER BY p.name, p.id`

// dayExportsQuery reads the exports whose grants cover the day: those
// after the day's start whose previous export came before its end. (An
// export at the very start of the day granted for the time before it.)
const dayExportsQuery = `
	SELECT project_id, run_id, export_time, total_credit - prev, prev_time
	FROM (SELECT project_id, run_id, export_time, total_credit,
			lag(total_credit) OVER w AS prev, lag(export_time) OVER w AS prev_time
		FROM export_credit WHERE user_id = @user AND host_id = @host
		WINDOW w AS (PARTITION BY project_id ORDER BY export_time)) e
	WHERE export_time > @start AND (prev_time IS NULL OR prev_time < @end)
	ORDER BY export_time`

// readDayEvidence reads what DayEvidence queued into ev: a computer not
// the volunteer's is ErrNotFound.
func readDayEvidence(br pgx.BatchResults, ev *DayEvidence) error {
	var n int
	if err := br.QueryRow().Scan(&n); err != nil || n == 0 {
		return cmp.Or(err, ErrNotFound)
	}
	rows, _ := br.Query()
	var err error
	if ev.Projects, err = pgx.CollectRows(rows, scanComputerProjectDay); err != nil {
		return err
	}
	byID := map[int64]*ComputerProjectDay{}
	for i := range ev.Projects {
		byID[ev.Projects[i].ProjectID] = &ev.Projects[i]
	}
	rows, _ = br.Query()
	_, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (struct{}, error) {
		var id int64
		e, err := scanEvent(eventRow{row, &id})
		if p := byID[id]; err == nil && p != nil {
			p.Events = append(p.Events, e)
		}
		return struct{}{}, err
	})
	if err != nil {
		return err
	}
	rows, _ = br.Query()
	var id int64
	var x DayExport
	_, err = pgx.ForEachRow(rows, []any{&id, &x.RunID, &x.ExportTime, &x.Granted, &x.Since}, func() error {
		if p := byID[id]; p != nil {
			p.Exports = append(p.Exports, x)
		}
		return nil
	})
	return err
}

// scanComputerProjectDay reads one row of dayRowsQuery.
func scanComputerProjectDay(row pgx.CollectableRow) (ComputerProjectDay, error) {
	var p ComputerProjectDay
	var credited, clamped Usage
	var granted int64
	dest := []any{&p.ProjectID, &p.Name}
	for _, f := range credited.fields() {
		dest = append(dest, f)
	}
	for _, f := range clamped.fields() {
		dest = append(dest, f)
	}
	err := row.Scan(append(dest, &p.Reports, &p.FirstReport, &p.LastReport, &granted)...)
	p.Credited, p.Clamped, p.Granted = credited.counters(), clamped.counters(), fromMicro(granted)
	return p, err
}

// eventRow is a row of a project id followed by eventColumns, read by
// scanEvent: the id goes to project.
type eventRow struct {
	pgx.CollectableRow
	project *int64
}

// Scan reads the project id, then the event's columns into dest.
func (r eventRow) Scan(dest ...any) error {
	return r.CollectableRow.Scan(append([]any{r.project}, dest...)...)
}
