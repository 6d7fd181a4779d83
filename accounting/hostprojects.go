package accounting

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

const pairColumns = `project_id, assigned, attached, project_hostid,
	last_cpu_ec_micro, last_cpu_time_micro, last_gpu_ec_micro, last_gpu_time_micro,
	last_njobs_success, last_njobs_error, reported_at,
	total_cpu_ec_micro, total_cpu_time_micro, total_gpu_ec_micro, total_gpu_time_micro,
	total_njobs_success, total_njobs_error, avg_ec, avg_time`

// scanPair reads one row of pairColumns, after the leading columns that
// lead receives.
func scanPair(row pgx.CollectableRow, lead ...any) (*pairState, error) {
	var p pairState
	var last [6]*int64
	var reportedAt, avgTime *time.Time
	t := p.Total.fields()
	err := row.Scan(append(lead, &p.ProjectID, &p.Assigned, &p.Attached, &p.ProjectHostID,
		&last[0], &last[1], &last[2], &last[3], &last[4], &last[5], &reportedAt,
		t[0], t[1], t[2], t[3], t[4], t[5], &p.Avg, &avgTime)...)
	if err != nil {
		return nil, err
	}
	if last[0] != nil && last[1] != nil && last[2] != nil && last[3] != nil && last[4] != nil && last[5] != nil {
		p.Last = &Usage{CPUEC: *last[0], CPUTime: *last[1], GPUEC: *last[2], GPUTime: *last[3],
			JobsSuccess: *last[4], JobsError: *last[5]}
	}
	if reportedAt != nil {
		p.ReportedAt = *reportedAt
	}
	if avgTime != nil {
		p.AvgTime = *avgTime
	}
	return &p, nil
}

// rpcState is what an RPC reads with the host row locked.
type rpcState struct {
	pairs   map[int64]*pairState    // the host's projects
	choices map[int64]string        // the volunteer's exclude/choose
	others  map[int64]projectCredit // the volunteer's credit on other hosts
	prefs   rpcPrefs                // the volunteer's keywords and compute preferences
}

// ref is an SQL expression that yields an id, with the arguments of its
// placeholders ($1, $2, ...).
type ref struct {
	sql  string
	args []any
}

var (
	placeholder = regexp.MustCompile(`\$(\d+)`)
	refName     = regexp.MustCompile(`\{(user|host)\}`)
)

// bind renders query, replacing each {user} and {host} by the ref's SQL
// with its placeholders renumbered after those already used, and returns
// the query with all the arguments in order. Renderings are cached: an RPC
// binds the same few queries every time.
func bind(query string, user, host ref) (string, []any) {
	key := query + "\x00" + user.sql + "\x00" + host.sql
	b, ok := boundQueries.Load(key)
	if !ok {
		b = render(query, user, host)
		boundQueries.Store(key, b)
	}
	bq := b.(boundQuery)
	var args []any
	for _, isHost := range bq.hostRefs {
		if isHost {
			args = append(args, host.args...)
		} else {
			args = append(args, user.args...)
		}
	}
	return bq.sql, args
}

// boundQuery is a rendered query and, in order, whether each ref in it was
// the host's (else the user's).
type boundQuery struct {
	sql      string
	hostRefs []bool
}

var boundQueries sync.Map // key → boundQuery

func render(query string, user, host ref) boundQuery {
	var bq boundQuery
	used := 0
	bq.sql = refName.ReplaceAllStringFunc(query, func(name string) string {
		r, isHost := user, name == "{host}"
		if isHost {
			r = host
		}
		base := used
		used += len(r.args)
		bq.hostRefs = append(bq.hostRefs, isHost)
		return placeholder.ReplaceAllStringFunc(r.sql, func(p string) string {
			n, _ := strconv.Atoi(p[1:])
			return "$" + strconv.Itoa(base+n)
		})
	})
	return bq
}

// queueRPCState queues the reads of an RPC: the host's project rows, the
// volunteer's choices, and their credit per project on their other hosts.
func queueRPCState(b *pgx.Batch, user, host ref, now time.Time) {
	pairs, args := bind(`SELECT `+pairColumns+` FROM host_projects WHERE host_id = {host}`, user, host)
	b.Queue(pairs, args...)
	choices, args := bind(`SELECT project_id, choice FROM user_projects WHERE user_id = {user}`, user, host)
	b.Queue(choices, args...)
	others, args := bind(`
		SELECT project_id, sum(total_cpu_ec_micro + total_gpu_ec_micro),
			coalesce(sum(avg_ec * exp(-greatest(extract(epoch FROM $0::timestamptz - avg_time), 0)
				* ln(2) / `+strconv.FormatFloat(avgHalfLife.Seconds(), 'f', 0, 64)+`))
				FILTER (WHERE avg_time IS NOT NULL), 0)
		FROM host_projects WHERE user_id = {user} AND host_id <> {host}
		GROUP BY project_id`, user, host)
	b.Queue(strings.Replace(others, "$0", "$"+strconv.Itoa(len(args)+1), 1), append(args, now)...)
	queuePrefs(b, user, host)
}

// readRPCState reads what queueRPCState queued.
func readRPCState(br pgx.BatchResults) (rpcState, error) {
	st := rpcState{pairs: map[int64]*pairState{}, others: map[int64]projectCredit{}}
	rows, err := br.Query()
	if err != nil {
		return st, err
	}
	pairs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*pairState, error) { return scanPair(row) })
	if err != nil {
		return st, err
	}
	for _, p := range pairs {
		st.pairs[p.ProjectID] = p
	}
	if st.choices, err = collectChoices(br.Query()); err != nil {
		return st, err
	}
	if rows, err = br.Query(); err != nil {
		return st, err
	}
	var id, total int64
	var avg float64
	_, err = pgx.ForEachRow(rows, []any{&id, &total, &avg}, func() error {
		st.others[id] = projectCredit{Total: fromMicro(total), Avg: avg}
		return nil
	})
	if err != nil {
		return st, err
	}
	st.prefs, err = readPrefs(br)
	return st, err
}

// loadRPCState reads an RPC's state in one round trip.
func loadRPCState(ctx context.Context, tx batcher, userID, hostID int64, now time.Time) (rpcState, error) {
	b := &pgx.Batch{}
	queueRPCState(b, ref{"$1", []any{userID}}, ref{"$1", []any{hostID}}, now)
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	return readRPCState(br)
}

func collectChoices(rows pgx.Rows, err error) (map[int64]string, error) {
	if err != nil {
		return nil, err
	}
	choices := map[int64]string{}
	var id int64
	var choice string
	_, err = pgx.ForEachRow(rows, []any{&id, &choice}, func() error {
		choices[id] = choice
		return nil
	})
	return choices, err
}

// projectCredit is a volunteer's credit on one project.
type projectCredit struct {
	Total float64 // Cobblestones
	Avg   float64 // recent average per day, as of now
}

// savePairs writes the new state of a host's projects.
func savePairs(b *pgx.Batch, userID, hostID int64, pairs map[int64]*pairState) {
	var c pairColumnsBatch
	for _, p := range pairs {
		c.add(p)
	}
	b.Queue(`
		INSERT INTO host_projects AS hp (host_id, user_id, project_id, assigned, attached, project_hostid,
			last_cpu_ec_micro, last_cpu_time_micro, last_gpu_ec_micro, last_gpu_time_micro,
			last_njobs_success, last_njobs_error, reported_at,
			total_cpu_ec_micro, total_cpu_time_micro, total_gpu_ec_micro, total_gpu_time_micro,
			total_njobs_success, total_njobs_error, avg_ec, avg_time)
		SELECT $1, $2, u.* FROM unnest($3::bigint[], $4::bool[], $5::bool[], $6::bigint[],
			$7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[],
			$13::timestamptz[], $14::bigint[], $15::bigint[], $16::bigint[], $17::bigint[],
			$18::bigint[], $19::bigint[], $20::float8[], $21::timestamptz[]) AS u
		ON CONFLICT (host_id, project_id) DO UPDATE SET
			assigned = EXCLUDED.assigned, attached = EXCLUDED.attached,
			project_hostid = EXCLUDED.project_hostid,
			last_cpu_ec_micro = EXCLUDED.last_cpu_ec_micro, last_cpu_time_micro = EXCLUDED.last_cpu_time_micro,
			last_gpu_ec_micro = EXCLUDED.last_gpu_ec_micro, last_gpu_time_micro = EXCLUDED.last_gpu_time_micro,
			last_njobs_success = EXCLUDED.last_njobs_success, last_njobs_error = EXCLUDED.last_njobs_error,
			reported_at = EXCLUDED.reported_at,
			total_cpu_ec_micro = EXCLUDED.total_cpu_ec_micro, total_cpu_time_micro = EXCLUDED.total_cpu_time_micro,
			total_gpu_ec_micro = EXCLUDED.total_gpu_ec_micro, total_gpu_time_micro = EXCLUDED.total_gpu_time_micro,
			total_njobs_success = EXCLUDED.total_njobs_success, total_njobs_error = EXCLUDED.total_njobs_error,
			avg_ec = EXCLUDED.avg_ec, avg_time = EXCLUDED.avg_time`,
		append([]any{hostID, userID}, c.args()...)...)
}

// pairColumnsBatch holds host_projects rows as columns, for one unnest insert.
type pairColumnsBatch struct {
	ids, hostIDs       []int64
	assigned, attached []bool
	last               [6][]*int64
	reportedAt         []*time.Time
	total              [6][]int64
	avg                []float64
	avgTime            []*time.Time
}

func (c *pairColumnsBatch) add(p *pairState) {
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

func (c *pairColumnsBatch) args() []any {
	args := []any{c.ids, c.assigned, c.attached, c.hostIDs}
	for _, l := range c.last {
		args = append(args, l)
	}
	args = append(args, c.reportedAt)
	for _, t := range c.total {
		args = append(args, t)
	}
	return append(args, c.avg, c.avgTime)
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
