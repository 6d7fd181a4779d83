package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting"
)

// snapshot is a host's credit in an earlier export.
type snapshot struct {
	HostID      int64
	ExportTime  time.Time
	TotalCredit float64
}

// grant is credit a project granted a host between two exports.
type grant struct {
	host     matchedHost
	from     time.Time
	decrease float64 // > 0: total_credit went down by this much; nothing granted
	days     []accounting.DayUsage
}

// commitRun stores what a run read, all in one transaction: the export's
// credit per matched host, the confirmed ledger, orphans, missing hosts,
// decreases, the files' validators and the run's outcome. It first makes
// sure that the run still holds the project's lock (taking it again after
// a failover), and stores nothing if another runner took the project
// over: that runner marked this run abandoned.
func (d *db) commitRun(ctx context.Context, run Run, res *runResult, lock *projectLock, now time.Time) (Run, error) {
	err := lock.hold(ctx)
	if err != nil && !errors.Is(err, errLockLost) {
		err = fmt.Errorf("taking the project's lock again: %w", err)
	}
	if err == nil {
		err = d.storeRun(ctx, run, res, now)
	}
	if errors.Is(err, errLockLost) {
		return d.abandoned(ctx, run)
	}
	if err != nil {
		err = fmt.Errorf("storing the run: %w", err)
		run.Status, run.Error = RunFailed, err.Error()
		var ferr error
		run, ferr = d.finishRun(context.WithoutCancel(ctx), run, now)
		return run, errors.Join(err, ferr)
	}
	return d.run(ctx, run.ID)
}

// storeRun is commitRun's transaction.
func (d *db) storeRun(ctx context.Context, run Run, res *runResult, now time.Time) error {
	m := res.matcher
	return d.backgroundTx(ctx, func(tx pgx.Tx) error {
		if err := stillRunning(ctx, tx, run.ID); err != nil {
			return err
		}
		if err := refuseOlder(ctx, tx, res.project.ID, res.exportTime); err != nil {
			return err
		}
		for chunk := range slices.Chunk(m.matched, commitChunk) {
			if err := commitMatched(ctx, tx, run.ID, res.project.ID, res.exportTime, chunk); err != nil {
				return err
			}
		}
		b := &pgx.Batch{}
		queueOrphansAndMissing(b, run.ID, m)
		for name, v := range res.validators {
			b.Queue(`INSERT INTO export_files (project_id, name, etag, last_modified) VALUES ($1, $2, $3, $4)
				ON CONFLICT (project_id, name) DO UPDATE SET etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified`,
				res.project.ID, name, accounting.CleanText(v.ETag, 500), accounting.CleanText(v.LastModified, 100))
		}
		if m.learned != 0 {
			b.Queue(`UPDATE projects SET account_userid = $2 WHERE id = $1 AND account_userid IS NULL`,
				res.project.ID, m.learned)
		}
		queueUnverified(b, run.ID, m.unverified)
		b.Queue(`UPDATE reconcile_runs SET status = 'ok', finished_at = $2, export_time = $3, hosts_scanned = $4,
			hosts_matched = $5, orphans = $6, missing = $7 WHERE id = $1`,
			run.ID, now, res.exportTime, m.scanned, len(m.matched), m.orphanCount, len(m.missed))
		return tx.SendBatch(ctx, b).Close()
	})
}

// stillRunning locks the run's row until the commit ends, and returns
// errLockLost when it is no longer running: another runner, which took the
// project's lock while this run had lost it, marked it abandoned.
func stillRunning(ctx context.Context, tx pgx.Tx, runID int64) error {
	var status RunStatus
	if err := tx.QueryRow(ctx, `SELECT status FROM reconcile_runs WHERE id = $1 FOR UPDATE`, runID).Scan(&status); err != nil {
		return err
	}
	if status != RunRunning {
		return errLockLost
	}
	return nil
}

// abandoned returns the run as another runner left it, with errLockLost.
func (d *db) abandoned(ctx context.Context, run Run) (Run, error) {
	if now, err := d.run(context.WithoutCancel(ctx), run.ID); err == nil {
		run = now
	}
	return run, errLockLost
}

// commitChunk is how many matched hosts one batch of a run's commit
// stores: a large export's snapshots, grants and arrays are held a chunk
// at a time.
const commitChunk = 5000

// commitMatched stores, for some matched hosts of a run, their export
// credit, the credit granted them since their previous export, and their
// decreases.
func commitMatched(ctx context.Context, tx pgx.Tx, runID, projectID int64, exportTime time.Time, matched []matchedHost) error {
	prev, err := previousSnapshots(ctx, tx, projectID, matched)
	if err != nil {
		return err
	}
	gs := grants(matched, prev, exportTime)
	b := &pgx.Batch{}
	queueExportCredit(b, runID, projectID, exportTime, matched)
	queueConfirmed(b, projectID, gs)
	if err := queueDecreases(b, projectID, exportTime, gs); err != nil {
		return err
	}
	return tx.SendBatch(ctx, b).Close()
}

// refuseOlder refuses an export older than one already stored: its
// differences would count credit twice.
func refuseOlder(ctx context.Context, tx pgx.Tx, projectID int64, exportTime time.Time) error {
	var newer bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM export_credit WHERE project_id = $1 AND export_time >= $2)`,
		projectID, exportTime).Scan(&newer); err != nil {
		return err
	}
	if newer {
		return fmt.Errorf("the export of %s is not newer than one already read", exportTime.Format(time.RFC3339))
	}
	return nil
}

// previousSnapshots returns the latest earlier export of the project of
// each of the hosts, each read by the export_credit key.
func previousSnapshots(ctx context.Context, tx pgx.Tx, projectID int64, hosts []matchedHost) (map[int64]snapshot, error) {
	ids := make([]int64, len(hosts))
	for i, h := range hosts {
		ids[i] = h.HostID
	}
	rows, _ := tx.Query(ctx, `
		SELECT h, s.export_time, s.total_credit FROM unnest($2::bigint[]) AS h,
		LATERAL (SELECT export_time, total_credit FROM export_credit
			WHERE host_id = h AND project_id = $1 ORDER BY export_time DESC LIMIT 1) s`, projectID, ids)
	out := make(map[int64]snapshot, len(hosts))
	var sn snapshot
	_, err := pgx.ForEachRow(rows, []any{&sn.HostID, &sn.ExportTime, &sn.TotalCredit}, func() error {
		out[sn.HostID] = sn
		return nil
	})
	return out, err
}

// grants works out, per matched host with an earlier export, the credit
// granted since, spread over the days between the two exports in the
// volunteer's time zone. A host's first export is its baseline.
func grants(matched []matchedHost, prev map[int64]snapshot, exportTime time.Time) []grant {
	var out []grant
	zones := map[string]*time.Location{}
	for _, h := range matched {
		p, ok := prev[h.HostID]
		if !ok {
			continue
		}
		loc, ok := zones[h.TimeZone]
		if !ok {
			loc = location(h.TimeZone)
			zones[h.TimeZone] = loc
		}
		g := grant{host: h, from: p.ExportTime}
		diff := h.TotalCredit - p.TotalCredit
		if diff < 0 {
			g.decrease = -diff
		} else if g.days = accounting.SpreadGranted(diff, p.ExportTime, exportTime, loc); g.days == nil {
			continue
		}
		out = append(out, g)
	}
	return out
}

// location returns the named time zone, or UTC when the name is unknown.
func location(name string) *time.Location {
	if loc, err := time.LoadLocation(name); err == nil {
		return loc
	}
	return time.UTC
}

func queueExportCredit(b *pgx.Batch, runID, projectID int64, exportTime time.Time, matched []matchedHost) {
	n := len(matched)
	hosts, users, hostIDs := make([]int64, n), make([]int64, n), make([]int64, n)
	total, avg, avgTime := make([]float64, n), make([]float64, n), make([]float64, n)
	rpcTimes := make([]*time.Time, n)
	for i, h := range matched {
		hosts[i], users[i], hostIDs[i] = h.HostID, h.UserID, h.ProjectHostID
		total[i], avg[i], avgTime[i] = h.TotalCredit, h.ExpavgCredit, h.ExpavgTime
		if h.RPCTime > 0 {
			t := time.Unix(h.RPCTime, 0).UTC()
			rpcTimes[i] = &t
		}
	}
	b.Queue(`INSERT INTO export_credit (run_id, project_id, export_time, host_id, user_id, project_hostid,
			total_credit, expavg_credit, expavg_time, rpc_time)
		SELECT $1, $2, $3, u.* FROM unnest($4::bigint[], $5::bigint[], $6::bigint[], $7::float8[], $8::float8[],
			$9::float8[], $10::timestamptz[]) AS u`,
		runID, projectID, exportTime, hosts, users, hostIDs, total, avg, avgTime, rpcTimes)
}

func queueConfirmed(b *pgx.Batch, projectID int64, grants []grant) {
	var hosts, users, micro []int64
	var days []time.Time
	for _, g := range grants {
		for _, d := range g.days {
			hosts, users = append(hosts, g.host.HostID), append(users, g.host.UserID)
			days, micro = append(days, d.Day), append(micro, d.Credited.CPUEC)
		}
	}
	if len(hosts) == 0 {
		return
	}
	b.Queue(`INSERT INTO confirmed_ledger AS c (project_id, host_id, user_id, day, granted_micro)
		SELECT $1, u.* FROM unnest($2::bigint[], $3::bigint[], $4::date[], $5::bigint[]) AS u
		ON CONFLICT (host_id, project_id, day, user_id) DO UPDATE SET granted_micro = c.granted_micro + EXCLUDED.granted_micro`,
		projectID, hosts, users, days, micro)
	// The rollups fold these days again.
	accounting.QueueDirtyDays(b, days)
}

func queueDecreases(b *pgx.Batch, projectID int64, exportTime time.Time, grants []grant) error {
	for _, g := range grants {
		if g.decrease <= 0 {
			continue
		}
		events := accounting.NewHostEvents(g.host.UserID, g.host.HostID)
		err := events.Add(&projectID, exportTime, accounting.EventCreditDecrease,
			accounting.EventDetail{Decrease: g.decrease, TotalCredit: g.host.TotalCredit, Since: &g.from})
		if err != nil {
			return fmt.Errorf("the credit decrease of host %d: %w", g.host.HostID, err)
		}
		events.Queue(b)
	}
	return nil
}

func queueUnverified(b *pgx.Batch, runID int64, us []Unverified) {
	var hosts, users, hostIDs []int64
	var reasons []string
	for _, u := range us {
		hosts, users, hostIDs = append(hosts, u.HostID), append(users, u.UserID), append(hostIDs, u.ProjectHostID)
		reasons = append(reasons, u.Reason)
	}
	b.Queue(`INSERT INTO reconcile_unverified (run_id, host_id, user_id, project_hostid, reason)
		SELECT $1, u.* FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::text[]) AS u`,
		runID, hosts, users, hostIDs, reasons)
}

func queueOrphansAndMissing(b *pgx.Batch, runID int64, m *exportMatcher) {
	var ids, users []int64
	var total, avg []float64
	var cpids []string
	for _, o := range m.orphans {
		ids, users = append(ids, o.ProjectHostID), append(users, o.UserID)
		total, avg, cpids = append(total, o.TotalCredit), append(avg, o.ExpavgCredit), append(cpids, accounting.CleanText(o.HostCPID, 64))
	}
	b.Queue(`INSERT INTO reconcile_orphans (run_id, project_hostid, userid, total_credit, expavg_credit, host_cpid)
		SELECT $1, u.* FROM unnest($2::bigint[], $3::bigint[], $4::float8[], $5::float8[], $6::text[]) AS u`,
		runID, ids, users, total, avg, cpids)
	var hosts, hostUsers, hostIDs []int64
	for _, k := range m.missed {
		hosts, hostUsers, hostIDs = append(hosts, k.HostID), append(hostUsers, k.UserID), append(hostIDs, k.ProjectHostID)
	}
	b.Queue(`INSERT INTO reconcile_missing (run_id, host_id, user_id, project_hostid)
		SELECT $1, u.* FROM unnest($2::bigint[], $3::bigint[], $4::bigint[]) AS u`, runID, hosts, hostUsers, hostIDs)
}

// run returns one reconciliation run.
func (d *db) run(ctx context.Context, id int64) (Run, error) {
	rows, _ := d.pool.Query(ctx, `SELECT `+runColumns+` FROM reconcile_runs WHERE id = $1`, id)
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Run])
	return r, op("run", err)
}
