package accounting

import (
	"cmp"
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

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
	res, pairs, err := s.planWriteExtras(ctx, conn, rc, rd, true)
	if err == nil {
		s.credits.committed(rd.user.ID, rd.host.ID, pairs)
	}
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
	var rd rpcRead
	var pairs map[int64]*hostProject
	err = s.tx(ctx, func(tx pgx.Tx) error {
		rd, err = s.readHost(ctx, tx, user, rc.req)
		if err != nil {
			return err
		}
		// This RPC may choose a new host's projects: it balances them with
		// what every instance assigned (one round trip).
		if err := s.readExpected(ctx, tx, rc.req.Now); err != nil {
			return err
		}
		res, pairs, err = s.planWriteExtras(ctx, tx, rc, rd, false)
		return err
	})
	if err != nil {
		return SyncResult{}, err
	}
	s.credits.committed(rd.user.ID, rd.host.ID, pairs)
	return res, nil
}

// planWriteExtras does the stages of an RPC after the read, with the host
// row locked: it plans, writes (ending with COMMIT when commit is set) and
// adds the reply's extras. It returns the host's project rows as written,
// for the credit cache once they are committed.
func (s *SyncStore) planWriteExtras(ctx context.Context, tx batcher, rc rpcContext, rd rpcRead, commit bool) (SyncResult, map[int64]*hostProject, error) {
	in := s.planInput(rc, rd)
	p := plan(in)
	res := p.result(in)
	s.notePause(rd.host, p.Pause)
	token, err := s.write(ctx, tx, rc, rd, p, p.Pause, commit)
	res.Authenticator = cmp.Or(token, res.Authenticator)
	s.extras(rd, &res)
	return res, p.Pairs, err
}

// planInput is what the plan of the RPC looks at: what was read, and what
// the Store keeps in memory (the shares of recent work, time zones).
func (s *SyncStore) planInput(rc rpcContext, rd rpcRead) planInput {
	st := rd.state
	return planInput{Req: rc.req, Catalog: rc.catalog, Stored: st.pairs, Choices: st.choices, HostChoices: st.hostChoices,
		Keywords: st.prefs.Keywords, Shares: s.recent.Fractions(), Capacity: rc.capacity, Budget: rd.host.budget,
		Issues: rc.issues, Loc: s.location(rd.user.TimeZone), MaxProjects: s.opts.MaxProjects,
		User: rd.user, HostID: rd.host.ID, HostToken: rd.host.Token, Others: st.others, Pause: rd.host.pause}
}
