package accounting

import (
	"time"

	"github.com/jackc/pgx/v5"
)

// The ledger's one writer. Every row added to the ledger, every mark of a
// day for the rollups (ledger_dirty_days) and every accounting event is
// written by a statement made here: the RPC's rows and events (LedgerRows,
// HostEvents, queued in its write batch), reconciliation's confirmed
// credit and credit decreases (QueueDirtyDays, HostEvents), and the bulk
// writers of demo data and the load tool (LedgerFrom, HostEvents). So no
// writer can forget to mark the days it changes, which the rollups'
// correctness depends on (ledger_rollups.go); a test greps the tree for
// any other writer.

// ledgerUpsert is the one statement that adds rows to the ledger: rows is a
// SELECT of (host_id, user_id, project_id, day, then the six counters'
// amounts and the six clamped amounts in UsageFields' order). Amounts add
// to those of a row of the same host, project, day and volunteer. With
// reported set, rows ends with one more column, the time of the RPC that
// reported them: each row then counts one report of its day and keeps the
// first and last such time (a day's evidence, without a row per RPC).
func ledgerUpsert(rows string, reported bool) string {
	columns, counts := "", ""
	if reported {
		columns = ", reports, first_report_at, last_report_at"
		counts = `,
			reports = l.reports + 1, first_report_at = least(l.first_report_at, EXCLUDED.first_report_at),
			last_report_at = greatest(l.last_report_at, EXCLUDED.last_report_at)`
	}
	return `
		INSERT INTO ledger AS l (host_id, user_id, project_id, day,
			` + UsageList("%s", LedgerColumn) + `,
			` + UsageList("%s", ClampedColumn) + columns + `)
		` + rows + `
		ON CONFLICT (host_id, project_id, day, user_id) DO UPDATE SET
			` + UsageList("%[1]s = l.%[1]s + EXCLUDED.%[1]s", LedgerColumn) + `,
			` + UsageList("%[1]s = l.%[1]s + EXCLUDED.%[1]s", ClampedColumn) + counts
}

// markDays is the one statement that marks days for the next rollup
// round: days is a SELECT of dates.
func markDays(days string) string {
	return `INSERT INTO ledger_dirty_days (day) SELECT DISTINCT d.day FROM (` + days + `) AS d (day)
		ON CONFLICT DO NOTHING`
}

// upsertLedger adds one host's rows, reported at @now, from arrays, one
// element per row.
var upsertLedger = ledgerUpsert(`SELECT @host_id, @user_id, u.*, 1, @now::timestamptz, @now::timestamptz
		FROM unnest(@project_id::bigint[], @day::date[],
			`+UsageList("@%s::bigint[]", LedgerColumn)+`,
			`+UsageList("@%s::bigint[]", ClampedColumn)+`) AS u`, true)

// markDaysOf marks the days of an array.
var markDaysOf = markDays(`SELECT unnest($1::date[])`)

// Queue queues on b the rows' upsert and the marks of the days before
// yesterday (UTC, at now) that they touch: a host back after days away
// spreads its credit over them, while the rollup round folds yesterday and
// today again anyway (marking those would make every RPC write the same few
// rows). Nothing is queued for no rows.
func (r *LedgerRows) Queue(b *pgx.Batch, now time.Time) {
	if len(r.projects) == 0 {
		return
	}
	args := pgx.NamedArgs{"host_id": r.hostID, "user_id": r.userID, "project_id": r.projects, "day": r.days, "now": now}
	for i, f := range UsageFields {
		args[f.Column], args[f.Clamped] = r.cols[i], r.cols[6+i]
	}
	b.Queue(upsertLedger, args)
	recent := CivilDay(now.UTC()).AddDate(0, 0, -1)
	var old []time.Time
	for _, d := range r.days {
		if d.Before(recent) {
			old = append(old, d)
		}
	}
	if len(old) > 0 {
		QueueDirtyDays(b, old)
	}
}

// QueueDirtyDays queues on b the marks of days whose rollups must be folded
// again, for a writer of what the rollups sum besides the ledger (the
// confirmed credit of a reconciliation).
func QueueDirtyDays(b *pgx.Batch, days []time.Time) {
	b.Queue(markDaysOf, days)
}

// LedgerFrom returns the one statement of a bulk writer (demo data, the
// load tool's history): it adds the rows that the SELECT rows makes (as
// ledgerUpsert's; it may use the statement's arguments) and marks every
// day it wrote for the rollups.
func LedgerFrom(rows string) string {
	return `WITH added AS (` + ledgerUpsert(rows, false) + `
		RETURNING day)
	` + markDays(`SELECT day FROM added`)
}

// insertEvents records one host's events from arrays, one element per
// event.
const insertEvents = `
		INSERT INTO accounting_events (user_id, host_id, at, project_id, kind, detail)
		SELECT @user_id, @host_id, u.at, u.project_id, u.kind, u.detail::jsonb
		FROM unnest(@at::timestamptz[], @project_id::bigint[], @kind::text[], @detail::text[])
			AS u (at, project_id, kind, detail)`

// Queue queues on b the recording of the events; nothing for none.
func (e *HostEvents) Queue(b *pgx.Batch) {
	if len(e.kinds) == 0 {
		return
	}
	b.Queue(insertEvents, pgx.NamedArgs{"user_id": e.userID, "host_id": e.hostID, "at": e.at,
		"project_id": e.projects, "kind": e.kinds, "detail": e.details})
}
