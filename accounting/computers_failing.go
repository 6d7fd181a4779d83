package accounting

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
)

// failingLock is the advisory lock under which one instance at a time
// checks for failing computers ("cobfail").
const failingLock int64 = 0x636f626661696c

// failingKey names an episode: a computer, a project and what fails.
type failingKey struct {
	HostID, ProjectID int64
	Kind              FailureKind
}

// CheckFailing looks, as of now, for computers failing on a project
// (FailingThresholds): an episode begins for each failure not yet open,
// with an event, and ends, with an event, once its condition cleared. It
// then mails each open episode not yet mailed to volunteers who turned
// the failing alert on, one mail per episode. One instance at a time
// checks; the others return at once. A periodic runner calls it.
func (s *ComputersStore) CheckFailing(ctx context.Context, now time.Time) error {
	return op("check failing", s.tx(ctx, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, failingLock).Scan(&mine); err != nil || !mine {
			return err
		}
		found, err := findFailing(ctx, tx, s.opts.Failing.withDefaults(), now)
		if err != nil {
			return err
		}
		if err := updateEpisodes(ctx, tx, found, now); err != nil {
			return err
		}
		return s.mailFailing(ctx, tx, now)
	}))
}

// findFailing returns the failures that hold now, with the volunteer of
// each computer.
func findFailing(ctx context.Context, tx pgx.Tx, th FailingThresholds, now time.Time) (map[failingKey]failingFound, error) {
	args := pgx.NamedArgs{"now": now, "from_day": CivilDay(now.UTC().Add(-th.Window)),
		"min_failed": th.MinFailed, "share": th.FailedShare, "flat": th.FlatExports,
		"silent": now.Add(-th.ProjectSilent), "heard": now.Add(-th.CobbleHeard),
		"exports_from": now.AddDate(0, 0, -60)}
	rows, _ := tx.Query(ctx, findFailingQuery, args)
	out := map[failingKey]failingFound{}
	var k failingKey
	var f failingFound
	_, err := pgx.ForEachRow(rows, []any{&f.userID, &k.HostID, &k.ProjectID, &k.Kind,
		&f.detail.Failed, &f.detail.Jobs, &f.detail.Estimated, &f.detail.Exports, &f.detail.LastRPC}, func() error {
		out[k] = f
		return nil
	})
	return out, err
}

// failingFound is a failure that holds now.
type failingFound struct {
	userID int64
	detail FailureDetail
}

// findFailingQuery finds the three failures. Failed jobs come from the
// ledger's days in the window; "nothing granted" compares a project's
// latest exports of the host with the credit Cobble counted between the
// first and the last of them; "project silent" reads the latest export's
// rpc_time of a computer Cobble heard from lately.
var findFailingQuery = `
	SELECT user_id, host_id, project_id, 'jobs_failing', sum(njobs_error)::bigint,
		(sum(njobs_error) + sum(njobs_success))::bigint, 0::float8, 0, NULL::timestamptz
	FROM ledger WHERE day >= @from_day
	GROUP BY user_id, host_id, project_id
	HAVING sum(njobs_error) >= @min_failed AND sum(njobs_error) >= @share * (sum(njobs_error) + sum(njobs_success))
	UNION ALL
	SELECT e.user_id, e.host_id, e.project_id, 'nothing_granted', 0, 0, c.estimated, e.n::int, NULL
	FROM (SELECT user_id, host_id, project_id, count(*) AS n, max(total_credit) - min(total_credit) AS grew,
			min(export_time) AS first, max(export_time) AS last
		FROM (SELECT user_id, host_id, project_id, total_credit, export_time,
				row_number() OVER (PARTITION BY host_id, project_id ORDER BY export_time DESC) AS rn
			FROM export_credit WHERE export_time > @exports_from) x
		WHERE rn <= @flat GROUP BY user_id, host_id, project_id) e
	CROSS JOIN LATERAL (SELECT coalesce(sum(` + CreditSQL("l.") + `), 0) / 1e6 AS estimated FROM ledger l
		WHERE l.user_id = e.user_id AND l.host_id = e.host_id AND l.project_id = e.project_id
			AND l.day >= e.first::date AND l.day < e.last::date) c
	WHERE e.n >= @flat AND e.grew <= 0 AND c.estimated > 0
	UNION ALL
	SELECT e.user_id, e.host_id, e.project_id, 'project_silent', 0, 0, 0, 0, e.rpc_time
	FROM (SELECT DISTINCT ON (host_id, project_id) user_id, host_id, project_id, rpc_time
		FROM export_credit WHERE export_time > @exports_from ORDER BY host_id, project_id, export_time DESC) e
	JOIN hosts h ON h.id = e.host_id AND h.user_id = e.user_id
	WHERE e.rpc_time < @silent AND h.last_rpc_at > @heard`

// updateEpisodes opens an episode, with an event, for each failure found
// that has none open, and ends, with an event, each open one not found.
func updateEpisodes(ctx context.Context, tx pgx.Tx, found map[failingKey]failingFound, now time.Time) error {
	rows, _ := tx.Query(ctx, `SELECT id, user_id, host_id, project_id, kind FROM host_failures WHERE ended_at IS NULL FOR UPDATE`)
	open := map[failingKey]bool{}
	var id, userID int64
	var k failingKey
	var ended, endedUsers []int64
	var endedKeys []failingKey
	_, err := pgx.ForEachRow(rows, []any{&id, &userID, &k.HostID, &k.ProjectID, &k.Kind}, func() error {
		open[k] = true
		if _, still := found[k]; !still {
			ended, endedUsers, endedKeys = append(ended, id), append(endedUsers, userID), append(endedKeys, k)
		}
		return nil
	})
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	if len(ended) > 0 {
		b.Queue(`UPDATE host_failures SET ended_at = $2 WHERE id = ANY($1)`, ended, now)
	}
	for i, k := range endedKeys {
		queueFailingEvent(b, endedUsers[i], k, EventFailingCleared, now)
	}
	for k, f := range found {
		if open[k] {
			continue
		}
		detail, _ := json.Marshal(f.detail) // finite numbers and times only
		b.Queue(`INSERT INTO host_failures (user_id, host_id, project_id, kind, detail, started_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, f.userID, k.HostID, k.ProjectID, k.Kind, detail, now)
		queueFailingEvent(b, f.userID, k, EventFailing, now)
	}
	return tx.SendBatch(ctx, b).Close()
}

// queueFailingEvent records that an episode began or ended, through the
// ledger's one writer of events.
func queueFailingEvent(b *pgx.Batch, userID int64, k failingKey, kind EventKind, at time.Time) {
	events, project := NewHostEvents(userID, k.HostID), k.ProjectID
	_ = events.Add(&project, at, kind, EventDetail{Failure: k.Kind}) // a kind of failure always marshals
	events.Queue(b)
}

// mailFailing queues the failing alert of each open episode not mailed
// yet whose volunteer turned the alert on, and marks it mailed.
func (s *core) mailFailing(ctx context.Context, tx pgx.Tx, now time.Time) error {
	rows, _ := tx.Query(ctx, `
		SELECT f.id, u.id, u.email, u.name, u.language, f.host_id,
			coalesce(nullif(h.nickname, ''), nullif(h.domain_name, ''), 'computer ' || h.id), p.name, f.kind
		FROM host_failures f JOIN users u ON u.id = f.user_id
		JOIN hosts h ON h.id = f.host_id AND h.user_id = f.user_id JOIN projects p ON p.id = f.project_id
		WHERE f.ended_at IS NULL AND f.mailed_at IS NULL AND u.alert_failing
			AND u.email_confirmed_at IS NOT NULL AND u.disabled_at IS NULL
		ORDER BY f.id`)
	type due struct {
		id   int64
		user User
		fm   FailingMail
	}
	dues, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (due, error) {
		var d due
		err := r.Scan(&d.id, &d.user.ID, &d.user.Email, &d.user.Name, &d.user.Language, &d.fm.HostID,
			&d.fm.Computer, &d.fm.Project, &d.fm.Kind)
		return d, err
	})
	if err != nil {
		return err
	}
	for _, d := range dues {
		if _, err := tx.Exec(ctx, `UPDATE host_failures SET mailed_at = $2 WHERE id = $1`, d.id, now); err != nil {
			return err
		}
		if err := s.queueAlert(ctx, tx, MailFailingAlert, AlertFailing, d.user, MailData{Name: d.user.Name, Failing: &d.fm}); err != nil {
			return err
		}
	}
	return nil
}

// Failures lists the open failure episodes of the volunteer's computers
// (hostID 0: all of them), by computer and project; a disconnected
// computer has none.
func (s *ComputersStore) Failures(ctx context.Context, userID, hostID int64) ([]Failure, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT f.host_id, coalesce(nullif(h.nickname, ''), nullif(h.domain_name, ''), 'computer ' || h.id),
			f.project_id, p.name, f.kind, f.started_at, f.detail
		FROM host_failures f JOIN hosts h ON h.id = f.host_id AND h.user_id = f.user_id
		JOIN projects p ON p.id = f.project_id
		WHERE f.user_id = $1 AND ($2::bigint = 0 OR f.host_id = $2) AND f.ended_at IS NULL
			AND EXISTS (SELECT FROM am_tokens t WHERE t.host_id = f.host_id) -- a disconnected computer warns of nothing
		ORDER BY 2, f.host_id, p.name, f.kind`, userID, hostID)
	fs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Failure, error) {
		var f Failure
		var detail []byte
		err := r.Scan(&f.HostID, &f.HostLabel, &f.ProjectID, &f.ProjectName, &f.Kind, &f.Since, &detail)
		if err == nil {
			err = json.Unmarshal(detail, &f.Detail)
		}
		return f, err
	})
	return fs, op("failures", err)
}
