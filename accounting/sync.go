package accounting

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Counters are the lifetime totals a client reports for one (host, project):
// estimated credit in Cobblestones, run time in instance-seconds, job counts.
type Counters struct {
	CPUEC, CPUTime, GPUEC, GPUTime float64
	JobsSuccess, JobsError         int64
}

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
	user, err := s.authenticate(ctx, req)
	if err != nil {
		return SyncResult{}, op("sync", err)
	}
	catalog, err := s.catalog(ctx)
	if err != nil {
		return SyncResult{}, op("sync", err)
	}
	res := SyncResult{User: user, Authenticator: req.Authenticator}
	err = s.tx(ctx, func(tx pgx.Tx) error {
		host, err := identifyHost(ctx, tx, user.ID, req.HostToken, req.Host)
		if err != nil {
			return err
		}
		res.HostID, res.HostToken = host.ID, host.Token
		return s.syncHost(ctx, tx, rpcContext{user, host, req, catalog, capacity, issues}, &res)
	})
	if err != nil {
		return SyncResult{}, op("sync", err)
	}
	return res, nil
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

// syncHost does the part of an RPC that happens with the host row locked.
func (s *Store) syncHost(ctx context.Context, tx pgx.Tx, rc rpcContext, res *SyncResult) error {
	user, host, req := rc.user, rc.host, rc.req
	st, err := loadRPCState(ctx, tx, user.ID, host.ID, req.Now)
	if err != nil {
		return err
	}
	p := plan(planInput{Req: req, Catalog: rc.catalog, Stored: st.pairs, Choices: st.choices,
		Capacity: rc.capacity, Issues: rc.issues, Loc: s.location(user.TimeZone), MaxProjects: s.opts.MaxProjects})
	res.Assignments, res.Unknown, res.Messages = p.Assignments, p.Unknown, p.Messages
	res.Credit = creditWith(st.others, p.Pairs, req.Now)
	res.Resume = resumeCounters(p)

	b := &pgx.Batch{}
	queueHostUpdate(b, host.ID, req.Host, rc.issues, req.Now)
	savePairs(b, user.ID, host.ID, p.Pairs)
	saveLedger(b, user.ID, host.ID, p.Changes)
	saveEvents(b, user.ID, host.ID, req.Now, p.Events)
	if res.Authenticator == "" {
		res.Authenticator = queueNewToken(b, user.ID, host.ID)
	}
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
func creditWith(others map[int64]projectCredit, pairs map[int64]*pairState, now time.Time) map[int64]ProjectCredit {
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
		SELECT u.id, u.email, u.name, u.is_admin, u.time_zone, u.created_at
		FROM am_tokens t JOIN users u ON u.id = t.user_id
		WHERE t.token_hash = $1`, tokenHash(token))
	u, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByPos[User])
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, ErrBadPassword
	}
	return u, err
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
