package accounting

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/locale"
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
	// Messages are notices for the volunteer, shown by the client, to be
	// written in their language.
	Messages []locale.Msg
	// Prefs are the volunteer's compute preferences at Default, with the
	// modification time of all their locations' values; nil when they
	// never chose (clients keep their own, and Venues and HostVenue are
	// empty).
	Prefs *ComputePrefs
	// Venues are the volunteer's named locations, by id.
	Venues []Venue
	// HostVenue is the venue of the host's location: a Venues name, or
	// DefaultVenue.
	HostVenue string
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
//
// An RPC goes through its stages in this order, each in its own files:
// the request (sync_request.go), read (sync_read_join.go outside the
// steady state, sync_read.go), plan (plan.go, pure), write (sync_write.go)
// and the reply's extras (sync_extras.go).
func (s *SyncStore) Sync(ctx context.Context, req SyncRequest) (SyncResult, error) {
	rc, err := s.request(ctx, req)
	if err != nil {
		return SyncResult{}, op("sync", err)
	}
	if rc.req.Authenticator != "" && rc.req.HostToken != "" {
		res, done, err := s.syncKnownHost(ctx, rc)
		if done || err != nil {
			return res, op("sync", err)
		}
	}
	res, err := s.syncAnyHost(ctx, rc)
	return res, op("sync", err)
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
func (s *SyncStore) syncKnownHost(ctx context.Context, rc rpcContext) (res SyncResult, done bool, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return res, false, err
	}
	defer conn.Release()
	rd, err := s.readKnownHost(ctx, conn, rc.req)
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
	res, err = s.planWriteExtras(ctx, conn, rc, rd, true)
	return res, true, err
}

// syncAnyHost is any other RPC: it authenticates, then in one transaction
// identifies the host (creating it when new), locks it and reads, reads
// the expected work every instance recorded, then plans, writes and adds
// the reply's extras.
func (s *SyncStore) syncAnyHost(ctx context.Context, rc rpcContext) (SyncResult, error) {
	user, err := s.authenticate(ctx, rc.req)
	if err != nil {
		return SyncResult{}, err
	}
	var res SyncResult
	err = s.tx(ctx, func(tx pgx.Tx) error {
		rd, err := s.readHost(ctx, tx, user, rc.req)
		if err != nil {
			return err
		}
		// This RPC may choose a new host's projects: it balances them with
		// what every instance assigned (one round trip).
		if err := s.readExpected(ctx, tx, rc.req.Now); err != nil {
			return err
		}
		res, err = s.planWriteExtras(ctx, tx, rc, rd, false)
		return err
	})
	if err != nil {
		return SyncResult{}, err
	}
	return res, nil
}

// planWriteExtras does the stages of an RPC after the read, with the host
// row locked: it plans, writes (ending with COMMIT when commit is set) and
// adds the reply's extras.
func (s *SyncStore) planWriteExtras(ctx context.Context, tx batcher, rc rpcContext, rd rpcRead, commit bool) (SyncResult, error) {
	in := s.planInput(rc, rd)
	p := plan(in)
	res := p.result(in)
	token, err := s.write(ctx, tx, rc, rd, p, commit)
	res.Authenticator = cmp.Or(token, res.Authenticator)
	s.extras(rd, &res)
	return res, err
}

// planInput is what the plan of the RPC looks at: what was read, and what
// the Store keeps in memory (the shares of recent work, time zones).
func (s *SyncStore) planInput(rc rpcContext, rd rpcRead) planInput {
	st := rd.state
	return planInput{Req: rc.req, Catalog: rc.catalog, Stored: st.pairs, Choices: st.choices, HostChoices: st.hostChoices,
		Keywords: st.prefs.Keywords, Shares: s.recent.Fractions(), Capacity: rc.capacity, Budget: rd.host.budget,
		Issues: rc.issues, Loc: s.location(rd.user.TimeZone), MaxProjects: s.opts.MaxProjects,
		User: rd.user, HostID: rd.host.ID, HostToken: rd.host.Token, Others: st.others}
}
