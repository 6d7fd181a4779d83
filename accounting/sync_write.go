package accounting

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The write stage of an RPC (SyncStore.Sync), after the plan: one batch with
// the host's row, its host_projects rows, the ledger, the events, the
// reasons for new assignments and, for a host that joined with a password,
// its AM token; in the steady state the batch ends with COMMIT.

// batcher is what can send a batch: a transaction, or a connection whose
// transaction the batches themselves begin and commit.
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// write stores what the plan p decided for the host that rd locked, in one
// round trip; with commit set, the batch ends with COMMIT. It first notes
// the work the host is now expected to do (the shares of recent work). It
// returns the host's new AM token when the plan asked for one.
func (s *SyncStore) write(ctx context.Context, tx batcher, rc rpcContext, rd rpcRead, p rpcPlan, pause pauseDecision, commit bool) (string, error) {
	req, userID, hostID := rc.req, rd.user.ID, rd.host.ID
	rates := expectedRates(rc.capacity, p.Assignments)
	s.recent.Expect(rates, req.Now)
	b := &pgx.Batch{}
	queueExpected(b, rates, req.Now)
	queueHostUpdate(b, userID, hostID, req.Host, rc.issues, req.Now, p.Budget, pause)
	saveHostProjects(b, userID, hostID, p.Pairs)
	saveLedger(b, userID, hostID, req.Now, p.Changes)
	saveEvents(b, userID, hostID, req.Now, p.Events)
	queueReasons(b, hostID, p.Assignments)
	token := ""
	if p.NewToken {
		token = queueNewToken(b, userID, hostID)
	}
	if commit {
		b.Queue(`COMMIT`)
	}
	s.rewrites.positional(b)
	return token, tx.SendBatch(ctx, b).Close()
}

// queueHostUpdate stores what the client reported about its computer and
// its budget after the RPC, and ends a pause whose time is up and a resume
// the reply sends; r must be sanitized. It finds the host by its primary
// key, the volunteer's id first.
func queueHostUpdate(b *pgx.Batch, userID, hostID int64, r HostReport, issues claims, now time.Time, bud budget, pause pauseDecision) {
	coprocs, _ := json.Marshal(r.Coprocs) // sanitized: finite numbers only
	b.Queue(`
		UPDATE hosts SET host_cpid = @cpid, domain_name = @domain_name, client_version = @client_version,
			platforms = @platforms, os_name = @os_name, os_version = @os_version, p_vendor = @p_vendor,
			p_model = @p_model, ncpus = @ncpus, p_fpops = @p_fpops, m_nbytes = @m_nbytes,
			timezone_offset = @timezone_offset, coprocs = @coprocs,
			last_rpc_at = @now, rpc_count = rpc_count + 1, implausible = @implausible,
			budget_at = @budget_at, budget_cpu_ec_micro = @budget_cpu_ec, budget_cpu_time_micro = @budget_cpu_time,
			budget_gpu_ec_micro = @budget_gpu_ec, budget_gpu_time_micro = @budget_gpu_time, budget_jobs = @budget_jobs,
			pause_mode = CASE WHEN @pause_ended THEN 'none' ELSE pause_mode END,
			pause_until = CASE WHEN @pause_ended THEN NULL ELSE pause_until END,
			resume_pending = resume_pending AND NOT @resume_sent,
			resume_notice = resume_notice AND NOT @resume_said
		WHERE user_id = @user_id AND id = @host_id`,
		bud.addArgs(pgx.NamedArgs{"user_id": userID, "host_id": hostID, "cpid": r.CPID, "domain_name": r.DomainName,
			"client_version": r.ClientVersion, "platforms": r.Platforms, "os_name": r.OSName,
			"os_version": r.OSVersion, "p_vendor": r.PVendor, "p_model": r.PModel, "ncpus": r.NCPUs,
			"p_fpops": r.PFPOps, "m_nbytes": r.MNBytes, "timezone_offset": r.TimezoneOffset,
			"coprocs": coprocs, "now": now, "implausible": CleanText(strings.Join(issues.English(), "; "), 1000),
			"pause_ended": pause.Ended, "resume_sent": pause.SendResume,
			"resume_said": pause.SayResumed}))
}

// upsertHostProjects writes a host's projects from the columns of a
// hostProjectBatch.
var upsertHostProjects = `
		INSERT INTO host_projects AS hp (host_id, user_id, project_id, assigned, attached, project_hostid,
			` + UsageList("%s", LastColumn) + `, reported_at,
			` + UsageList("%s", TotalColumn) + `, avg_ec, avg_time)
		SELECT @host_id, @user_id, u.* FROM unnest(@project_id::bigint[], @assigned::bool[],
			@attached::bool[], @project_hostid::bigint[],
			` + UsageList("@%s::bigint[]", LastColumn) + `, @reported_at::timestamptz[],
			` + UsageList("@%s::bigint[]", TotalColumn) + `,
			@avg_ec::float8[], @avg_time::timestamptz[]) AS u
		ON CONFLICT (host_id, project_id, user_id) DO UPDATE SET
			assigned = EXCLUDED.assigned, attached = EXCLUDED.attached,
			project_hostid = EXCLUDED.project_hostid,
			` + UsageList("%[1]s = EXCLUDED.%[1]s", LastColumn) + `,
			reported_at = EXCLUDED.reported_at,
			` + UsageList("%[1]s = EXCLUDED.%[1]s", TotalColumn) + `,
			avg_ec = EXCLUDED.avg_ec, avg_time = EXCLUDED.avg_time`

// saveHostProjects writes the new state of a host's projects.
func saveHostProjects(b *pgx.Batch, userID, hostID int64, pairs map[int64]*hostProject) {
	var c hostProjectBatch
	for _, p := range pairs {
		c.add(p)
	}
	b.Queue(upsertHostProjects, c.args(userID, hostID))
}

// hostProjectBatch holds host_projects rows as columns, for one unnest
// insert; last and total are in the order of UsageFields.
type hostProjectBatch struct {
	ids, hostIDs       []int64
	assigned, attached []bool
	last               [6][]*int64
	reportedAt         []*time.Time
	total              [6][]int64
	avg                []float64
	avgTime            []*time.Time
}

func (c *hostProjectBatch) add(p *hostProject) {
	c.ids = append(c.ids, p.ProjectID)
	c.assigned = append(c.assigned, p.Assigned)
	c.attached = append(c.attached, p.Attached)
	c.hostIDs = append(c.hostIDs, p.ProjectHostID)
	var last [6]*int64
	if p.Last != nil {
		l := *p.Last
		last = l.fields()
	}
	for i := range last {
		c.last[i] = append(c.last[i], last[i])
	}
	c.reportedAt = append(c.reportedAt, timeOrNil(p.ReportedAt))
	for i, v := range p.Total.fields() {
		c.total[i] = append(c.total[i], *v)
	}
	c.avg = append(c.avg, p.Avg)
	c.avgTime = append(c.avgTime, timeOrNil(p.AvgTime))
}

func (c *hostProjectBatch) args(userID, hostID int64) pgx.NamedArgs {
	args := pgx.NamedArgs{"user_id": userID, "host_id": hostID, "project_id": c.ids,
		"assigned": c.assigned, "attached": c.attached, "project_hostid": c.hostIDs,
		"reported_at": c.reportedAt, "avg_ec": c.avg, "avg_time": c.avgTime}
	for i, f := range UsageFields {
		args[f.Last], args[f.Total] = c.last[i], c.total[i]
	}
	return args
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// saveLedger adds the credit changes of one RPC to the daily ledger, and
// marks for the rollup the days before yesterday that it touches, through
// the ledger's one writer (ledger_write.go).
func saveLedger(b *pgx.Batch, userID, hostID int64, now time.Time, changes []creditChange) {
	rows := NewLedgerRows(hostID, userID)
	for _, c := range changes {
		for _, d := range c.Days {
			rows.Add(c.ProjectID, d.Day, d.Credited, d.Clamped)
		}
	}
	rows.Queue(b, now)
}

// saveEvents records what accounting noticed in one RPC, through the
// ledger's one writer (ledger_write.go).
func saveEvents(b *pgx.Batch, userID, hostID int64, at time.Time, events []event) {
	if len(events) == 0 {
		return
	}
	rows := NewHostEvents(userID, hostID)
	for _, e := range events {
		_ = rows.Add(e.ProjectID, at, e.Kind, e.Detail) // strings and counters converted from Usage always marshal
	}
	rows.Queue(b)
}

// queueReasons records why the host was newly given each project.
func queueReasons(b *pgx.Batch, hostID int64, as []Assignment) {
	var ids []int64
	var reasons []string
	for _, a := range as {
		if a.Action == Work && a.Reason != ReasonKept && a.Reason != "" {
			ids, reasons = append(ids, a.Project.ID), append(reasons, string(a.Reason))
		}
	}
	if len(ids) == 0 {
		return
	}
	b.Queue(`
		UPDATE host_projects hp SET reason = u.reason
		FROM unnest($2::bigint[], $3::text[]) AS u (project_id, reason)
		WHERE hp.host_id = $1 AND hp.project_id = u.project_id`, hostID, ids, reasons)
}

// queueNewToken makes a new AM token for a host that joined with a
// password, replacing the one it had.
func queueNewToken(b *pgx.Batch, userID, hostID int64) string {
	token := randomToken()
	b.Queue(`
		INSERT INTO am_tokens (token_hash, user_id, host_id) VALUES ($1, $2, $3)
		ON CONFLICT (host_id, user_id) WHERE host_id IS NOT NULL
		DO UPDATE SET token_hash = EXCLUDED.token_hash, created_at = now()`,
		tokenHash(token), userID, hostID)
	return token
}
