package accounting

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Counters are the six counters in whole units: estimated credit in
// Cobblestones, run time in instance-seconds, job counts. A client reports
// them as lifetime totals for one (host, project); DayCredit sums them over
// a day. Usage holds the same amounts exactly, in micro-units, for
// arithmetic. Their JSON and column names are UsageFields' names.
type Counters struct {
	CPUEC       float64 `json:"cpu_ec" db:"cpu_ec"`
	CPUTime     float64 `json:"cpu_time" db:"cpu_time"`
	GPUEC       float64 `json:"gpu_ec" db:"gpu_ec"`
	GPUTime     float64 `json:"gpu_time" db:"gpu_time"`
	JobsSuccess int64   `json:"njobs_success" db:"njobs_success"`
	JobsError   int64   `json:"njobs_error" db:"njobs_error"`
}

// Credit returns the estimated credit, CPU plus GPU, in Cobblestones.
func (c Counters) Credit() float64 { return c.CPUEC + c.GPUEC }

// ProjectReport is what a client says about one project it is attached to.
type ProjectReport struct {
	URL           string
	AttachedViaAM bool
	HostID        int64     // the project's own id for this host; 0 if none yet
	Counters      *Counters // nil when the request carried none
}

// SyncRequest is one account-manager RPC, decoded.
type SyncRequest struct {
	// Authenticator, when set, is the AM token a previous reply handed out;
	// otherwise Email and PasswordHash (BOINC's md5 of password and email) are.
	Authenticator string
	Email         string
	PasswordHash  string
	HostToken     string // from the request's <opaque>, if any
	Host          HostReport
	Projects      []ProjectReport
	Now           time.Time
	ignored       int // projects beyond MaxRequestProjects, not read
}

// SyncResult is what the reply to an RPC needs.
type SyncResult struct {
	User          User
	Authenticator string // the AM token the client should use from now on
	HostID        int64
	HostToken     string
	Assignments   []Assignment
	// Unknown lists projects Cobble attached the host to that are no longer
	// in the catalog: the client is asked to detach from them.
	Unknown []string
	// Credit is the volunteer's estimated credit per project ID, over all
	// their hosts, this RPC included.
	Credit map[int64]ProjectCredit
	// Resume holds, for projects the host is asked to attach to anew, the
	// counters it had there before, so that clients which accept them
	// continue from those instead of from zero.
	Resume map[int64]Counters
	// Messages are notices for the volunteer, shown by the client.
	Messages []string
	// Prefs are the volunteer's compute preferences; nil when they never
	// chose (clients keep their own).
	Prefs *ComputePrefs
	// Keywords are the volunteer's yes/no per keyword id.
	Keywords map[int]string
	// FeedToken is the volunteer's notices-feed token, read with the host
	// in the steady state; "" when this RPC did not read it.
	FeedToken string
}

// ProjectCredit is a volunteer's estimated credit on one project.
type ProjectCredit struct {
	Total float64 // Cobblestones, lifetime
	Avg   float64 // recent average per day (one-week half-life)
}

// Sync authenticates an RPC, identifies the host, credits what it reported,
// and chooses its projects, in one transaction with the host row locked, so
// that concurrent or retried copies of an RPC credit once. It returns
// ErrUnknownAccount or ErrBadPassword when credentials fail; any other error
// means nothing was stored, and the client's next RPC carries the whole
// delta again.
func (s *Store) Sync(ctx context.Context, req SyncRequest) (SyncResult, error) {
	capacity, issues := capacityOf(req.Host)
	req = req.sanitized()
	catalog, err := s.catalog(ctx)
	if err != nil {
		return SyncResult{}, op("sync", err)
	}
	rc := rpcContext{req: req, catalog: catalog, capacity: capacity, issues: issues}
	if req.Authenticator != "" && req.HostToken != "" {
		res, done, err := s.syncKnownHost(ctx, rc)
		if done || err != nil {
			return res, op("sync", err)
		}
	}
	if rc.user, err = s.authenticate(ctx, req); err != nil {
		return SyncResult{}, op("sync", err)
	}
	res := SyncResult{User: rc.user, Authenticator: req.Authenticator}
	err = s.tx(ctx, func(tx pgx.Tx) error {
		if rc.host, err = identifyHost(ctx, tx, rc.user.ID, req.HostToken, req.Host); err != nil {
			return err
		}
		res.HostID, res.HostToken = rc.host.ID, rc.host.Token
		st, err := s.loadRPCState(ctx, tx, rc.user.ID, rc.host.ID, req.Now)
		if err != nil {
			return err
		}
		return s.syncHost(ctx, tx, rc, st, &res, false)
	})
	if err != nil {
		return SyncResult{}, op("sync", err)
	}
	return res, nil
}

// syncKnownHost is the RPC of a host in its steady state: it presents its
// AM token and its host token. BEGIN, authentication, the lock on the host
// and the reads go in one round trip, the writes and COMMIT in a second.
// The volunteer's preferences come from memory while their version is the
// one read with the host; a third round trip reads them after a change.
//
// The commit is asynchronous: should PostgreSQL crash before the commit
// reaches disk, the RPC is lost, and the client's next RPC, whose counters
// are lifetime totals, carries the whole delta again. Every query is a
// lookup by key, so the transaction asks for PostgreSQL's generic plans:
// left to choose, it kept planning the reads that find the host through
// its tokens anew on about half of the RPCs, a quarter of a millisecond
// each, more than running them (docs/PERFORMANCE.md). done
// is false when the tokens do not name a host of the token's volunteer;
// the RPC then takes the general path.
func (s *Store) syncKnownHost(ctx context.Context, rc rpcContext) (res SyncResult, done bool, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return res, false, err
	}
	defer conn.Release()
	k, err := s.lockKnownHost(ctx, conn, rc.req.Authenticator, rc.req.HostToken, rc.req.Now)
	defer func() {
		if !done || err != nil {
			conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`)
		}
	}()
	if errors.Is(err, pgx.ErrNoRows) {
		return res, false, nil
	}
	if err != nil {
		return res, false, err
	}
	prefs, err := s.volunteerPrefs(ctx, conn, k.user.ID, k.prefsVersion)
	if err != nil {
		return res, false, err
	}
	st := k.state
	st.choices, st.prefs = prefs.choices, prefs.prefs
	rc.user, rc.host = k.user, k.host
	res = SyncResult{User: rc.user, Authenticator: rc.req.Authenticator, HostID: rc.host.ID, HostToken: rc.host.Token,
		FeedToken: k.feedToken}
	return res, true, s.syncHost(ctx, conn, rc, st, &res, true)
}

// lockedHost is what the first round trip of a steady-state RPC reads.
type lockedHost struct {
	user         User
	host         Host
	feedToken    string
	prefsVersion int64 // users.prefs_version
	state        rpcState
}

// lockKnownHost begins a transaction on conn and, in the same round trip,
// checks the AM token, locks the host that the host token names and reads
// the RPC's state but the volunteer's preferences. It returns
// pgx.ErrNoRows when the tokens do not name a host of the token's
// volunteer. The caller ends the transaction, also after an error.
func (s *Store) lockKnownHost(ctx context.Context, conn *pgxpool.Conn, authenticator, hostToken string, now time.Time) (lockedHost, error) {
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(`SELECT set_config('synchronous_commit', 'off', true),
		set_config('plan_cache_mode', 'force_generic_plan', true)`)
	b.Queue(`
		SELECT u.id, u.email, u.name, u.is_admin, u.time_zone, u.created_at, u.feed_token,
			h.id, h.user_id, h.opaque_token, h.created_at, h.last_rpc_at,
			h.budget_at, h.budget_cpu_ec_micro, h.budget_cpu_time_micro,
			h.budget_gpu_ec_micro, h.budget_gpu_time_micro, h.budget_jobs, u.prefs_version
		FROM am_tokens t JOIN users u ON u.id = t.user_id
		JOIN hosts h ON h.user_id = t.user_id AND h.opaque_token = @host_token
		WHERE t.token_hash = @token_hash AND u.disabled_at IS NULL
		FOR UPDATE OF h`, pgx.NamedArgs{"token_hash": tokenHash(authenticator), "host_token": hostToken})
	queueKnownHostState(b, hostToken, now)
	s.rewrites.positional(b)
	br := conn.SendBatch(ctx, b)
	_, err := br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	var k lockedHost
	if err == nil {
		u, h := &k.user, &k.host
		var bud budgetRow
		dest := append([]any{&u.ID, &u.Email, &u.Name, &u.IsAdmin, &u.TimeZone, &u.CreatedAt, &k.feedToken,
			&h.ID, &h.UserID, &h.Token, &h.CreatedAt, &h.LastRPCAt}, bud.dest()...)
		err = br.QueryRow().Scan(append(dest, &k.prefsVersion)...)
		h.budget = bud.budget()
	}
	if err == nil {
		k.state, err = readHostState(br)
	}
	return k, cmp.Or(br.Close(), err)
}

// rpcContext is what an RPC has established before it locks the host.
type rpcContext struct {
	user     User
	host     Host
	req      SyncRequest
	catalog  []Project
	capacity Capacity
	issues   []string
}

// batcher is what can send a batch: a transaction, or a connection whose
// transaction the batches themselves begin and commit.
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// syncHost does the part of an RPC that happens with the host row locked;
// with commit set, its write batch ends with COMMIT.
func (s *Store) syncHost(ctx context.Context, tx batcher, rc rpcContext, st rpcState, res *SyncResult, commit bool) error {
	user, host, req := rc.user, rc.host, rc.req
	p := plan(planInput{Req: req, Catalog: rc.catalog, Stored: st.pairs, Choices: st.choices,
		Keywords: st.prefs.Keywords, Shares: s.recent.Fractions(), Capacity: rc.capacity, Budget: host.budget,
		Issues: rc.issues, Loc: s.location(user.TimeZone), MaxProjects: s.opts.MaxProjects})
	res.Assignments, res.Unknown, res.Messages = p.Assignments, p.Unknown, p.Messages
	res.Credit = creditWith(st.others, p.Pairs, req.Now)
	res.Resume = resumeCounters(p)
	res.Prefs, res.Keywords = st.prefs.Compute, st.prefs.Keywords
	s.noteOddPrefs(user.ID, st.prefs.Odd)
	s.recent.Expect(expectedRates(rc.capacity, p.Assignments), req.Now)

	b := &pgx.Batch{}
	queueHostUpdate(b, host.ID, req.Host, rc.issues, req.Now, p.Budget)
	saveHostProjects(b, user.ID, host.ID, p.Pairs)
	saveLedger(b, user.ID, host.ID, p.Changes)
	saveEvents(b, user.ID, host.ID, req.Now, p.Events)
	queueReasons(b, host.ID, p.Assignments)
	if res.Authenticator == "" {
		res.Authenticator = queueNewToken(b, user.ID, host.ID)
	}
	if commit {
		b.Queue(`COMMIT`)
	}
	s.rewrites.positional(b)
	return tx.SendBatch(ctx, b).Close()
}

// resumeCounters returns the last known counters of the projects the host
// is asked to work for but is not attached to.
func resumeCounters(p rpcPlan) map[int64]Counters {
	out := map[int64]Counters{}
	for _, a := range p.Assignments {
		pair := p.Pairs[a.Project.ID]
		if a.Action == Work && !pair.Attached && pair.Last != nil {
			out[a.Project.ID] = pair.Last.counters()
		}
	}
	return out
}

// creditWith adds this host's credit to the other hosts' per project.
func creditWith(others map[int64]projectCredit, pairs map[int64]*hostProject, now time.Time) map[int64]ProjectCredit {
	out := make(map[int64]ProjectCredit, len(pairs))
	for id, o := range others {
		out[id] = ProjectCredit(o)
	}
	for id, p := range pairs {
		c := out[id]
		c.Total += p.Total.Credit()
		c.Avg += decayedAverage(p.Avg, p.AvgTime, now)
		out[id] = c
	}
	return out
}

// sanitized returns req with every text made safe to store and compare.
func (req SyncRequest) sanitized() SyncRequest {
	req.Authenticator = cleanText(req.Authenticator, 256)
	req.Email = cleanText(req.Email, 256)
	req.PasswordHash = cleanText(req.PasswordHash, 256)
	req.HostToken = cleanText(req.HostToken, 64)
	req.Host = req.Host.sanitized()
	req = req.capProjects()
	projects := make([]ProjectReport, len(req.Projects))
	for i, p := range req.Projects {
		p.URL = cleanText(p.URL, 512)
		projects[i] = p
	}
	req.Projects = projects
	return req
}

// authenticate checks the AM token, or else email and password hash.
func (s *Store) authenticate(ctx context.Context, req SyncRequest) (User, error) {
	if req.Authenticator != "" {
		return s.userByToken(ctx, req.Authenticator)
	}
	if strings.TrimSpace(req.Email) == "" {
		return User{}, ErrUnknownAccount
	}
	want := strings.ToLower(strings.TrimSpace(req.PasswordHash))
	return s.checkPasswordHash(ctx, req.Email, func(string) string { return want })
}

func (s *Store) userByToken(ctx context.Context, token string) (User, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT u.id, u.email, u.name, u.is_admin, u.time_zone, u.created_at, u.disabled_at IS NOT NULL AS disabled
		FROM am_tokens t JOIN users u ON u.id = t.user_id
		WHERE t.token_hash = $1`, tokenHash(token))
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[userRow])
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return User{}, ErrBadPassword
	case err == nil && r.Disabled:
		return User{}, ErrDisabled
	}
	return r.User, err
}

// queueNewToken makes a new AM token for a host that joined with a
// password, replacing the one it had.
func queueNewToken(b *pgx.Batch, userID, hostID int64) string {
	token := randomToken()
	b.Queue(`
		INSERT INTO am_tokens (token_hash, user_id, host_id) VALUES ($1, $2, $3)
		ON CONFLICT (host_id) WHERE host_id IS NOT NULL
		DO UPDATE SET token_hash = EXCLUDED.token_hash, created_at = now()`,
		tokenHash(token), userID, hostID)
	return token
}

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
