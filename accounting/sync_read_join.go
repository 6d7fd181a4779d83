package accounting

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The read stage of an RPC outside the steady state (SyncStore.Sync): a host
// joining with a password, or one whose tokens do not name a host of the
// token's volunteer. Authentication, identifying (or creating) the host,
// and the reads of the RPC's state, the host's project rows among them
// (readHostState, in sync_read.go).

// authenticate checks the AM token, or else email and password hash.
func (s *SyncStore) authenticate(ctx context.Context, req SyncRequest) (User, error) {
	if req.Authenticator != "" {
		return s.userByToken(ctx, req.Authenticator)
	}
	if strings.TrimSpace(req.Email) == "" {
		return User{}, ErrUnknownAccount
	}
	want := strings.ToLower(strings.TrimSpace(req.PasswordHash))
	return s.checkPasswordHash(ctx, req.Email, func(string) string { return want })
}

func (s *SyncStore) userByToken(ctx context.Context, token string) (User, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT u.id, u.email, u.name, u.is_admin, u.time_zone, u.language, u.created_at, u.disabled_at IS NOT NULL AS disabled
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

// readHost is the read stage of an RPC outside the steady state, inside tx
// and after authentication: it identifies the volunteer's host (creating it
// when new) and locks it, then reads the RPC's state in one round trip.
func (s *SyncStore) readHost(ctx context.Context, tx pgx.Tx, user User, req SyncRequest) (rpcRead, error) {
	host, err := identifyHost(ctx, tx, user.ID, req.HostToken, req.Host)
	if err != nil {
		return rpcRead{}, err
	}
	st, err := s.loadRPCState(ctx, tx, user.ID, host.ID, req.Now)
	return rpcRead{user: user, host: host, state: st}, err
}

const hostColumns = `id, user_id, opaque_token, created_at, last_rpc_at, location_id,
	pause_mode, pause_until, resume_pending, resume_notice, ` + budgetColumns

// scanHost reads one row of hostColumns.
func scanHost(row pgx.CollectableRow) (Host, error) {
	var h Host
	var b budgetRow
	err := row.Scan(append([]any{&h.ID, &h.UserID, &h.Token, &h.CreatedAt, &h.LastRPCAt, &h.LocationID,
		&h.pause.mode, &h.pause.until, &h.pause.resumePending, &h.pause.resumeNotice}, b.dest()...)...)
	h.budget = b.budget()
	return h, err
}

// findHost locks and returns the volunteer's host that the request names:
// by its opaque token, else by host CPID, else by previous host CPID. A token
// of another volunteer's host is ignored.
func findHost(ctx context.Context, tx pgx.Tx, userID int64, token string, r HostReport) (Host, error) {
	rows, _ := tx.Query(ctx, `
		SELECT `+hostColumns+`
		FROM hosts
		WHERE user_id = $1 AND (opaque_token = $2 OR host_cpid = $3 OR host_cpid = $4)
		ORDER BY opaque_token = $2 DESC NULLS LAST, host_cpid = $3 DESC NULLS LAST,
			last_rpc_at DESC NULLS LAST
		LIMIT 1
		FOR UPDATE`,
		userID, nullIfEmpty(token), nullIfEmpty(r.CPID), nullIfEmpty(r.PreviousCPID))
	h, err := pgx.CollectExactlyOneRow(rows, scanHost)
	return h, dbErr(err)
}

// identifyHost finds the request's host or creates it. Creation happens under
// a lock on the volunteer, so two first RPCs of one computer make one host.
func identifyHost(ctx context.Context, tx pgx.Tx, userID int64, token string, r HostReport) (Host, error) {
	h, err := findHost(ctx, tx, userID, token, r)
	if !errors.Is(err, ErrNotFound) {
		return h, err
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
		return Host{}, err
	}
	if h, err := findHost(ctx, tx, userID, token, r); !errors.Is(err, ErrNotFound) {
		return h, err
	}
	rows, _ := tx.Query(ctx, `
		INSERT INTO hosts (user_id, opaque_token) VALUES ($1, $2)
		RETURNING `+hostColumns,
		userID, randomToken())
	h, err = pgx.CollectExactlyOneRow(rows, scanHost)
	return h, dbErr(err)
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// loadRPCState reads an RPC's state in one round trip.
func (s *SyncStore) loadRPCState(ctx context.Context, tx batcher, userID, hostID int64, now time.Time) (rpcState, error) {
	b := &pgx.Batch{}
	queueRPCState(b, userID, hostID, now)
	s.rewrites.positional(b)
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	return readRPCState(br)
}

// queueRPCState queues the reads of an RPC whose host is identified: the
// volunteer's preferences (one prefsRow), their choices for the host (one
// hostChoicesRow), then the host's project rows and the credit on the
// volunteer's other hosts, for readHostState.
func queueRPCState(b *pgx.Batch, userID, hostID int64, now time.Time) {
	args := pgx.NamedArgs{"user_id": userID, "host_id": hostID, "now": now, "half_life": avgHalfLife.Seconds()}
	b.Queue(`SELECT `+prefsColumns+` FROM users u `+prefsJoins+` WHERE u.id = @user_id`, args)
	b.Queue(`SELECT `+hostChoicesColumns+` FROM hosts h `+hostChoicesJoin+` WHERE h.id = @host_id`, args)
	b.Queue(`SELECT `+hostProjectColumns+` FROM host_projects WHERE host_id = @host_id`, args)
	b.Queue(`SELECT project_id, `+creditColumns+` FROM host_projects
		WHERE user_id = @user_id AND host_id <> @host_id
		GROUP BY project_id`, args)
}

// readRPCState reads what queueRPCState queued.
func readRPCState(br pgx.BatchResults) (rpcState, error) {
	var pr prefsRow
	if err := br.QueryRow().Scan(pr.dest()...); err != nil {
		return rpcState{}, err
	}
	var hc hostChoicesRow
	if err := br.QueryRow().Scan(&hc.projects, &hc.choices); err != nil {
		return rpcState{}, err
	}
	st, err := readHostState(br)
	st.choices, st.prefs = pr.parse()
	st.hostChoices = hc.parse()
	return st, err
}
