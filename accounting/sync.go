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
}

// Sync authenticates an RPC, identifies the host, records what it reported
// and chooses its projects, all in one transaction with the host row locked.
// It returns ErrUnknownAccount or ErrBadPassword when credentials fail; any
// other error means nothing was stored.
func (s *Store) Sync(ctx context.Context, req SyncRequest) (SyncResult, error) {
	req = req.sanitized()
	user, err := s.authenticate(ctx, req)
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
		if err := updateHost(ctx, tx, host.ID, req.Host, req.Now); err != nil {
			return err
		}
		if err := s.assignAndRecord(ctx, tx, user.ID, host.ID, req, &res); err != nil {
			return err
		}
		if res.Authenticator == "" {
			res.Authenticator, err = issueToken(ctx, tx, user.ID, host.ID)
		}
		return err
	})
	if err != nil {
		return SyncResult{}, op("sync", err)
	}
	return res, nil
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

// issueToken makes a new AM token for a host that joined with a password,
// replacing the one it had.
func issueToken(ctx context.Context, tx pgx.Tx, userID, hostID int64) (string, error) {
	token := randomToken()
	_, err := tx.Exec(ctx, `
		INSERT INTO am_tokens (token_hash, user_id, host_id) VALUES ($1, $2, $3)
		ON CONFLICT (host_id) WHERE host_id IS NOT NULL
		DO UPDATE SET token_hash = EXCLUDED.token_hash, created_at = now()`,
		tokenHash(token), userID, hostID)
	return token, err
}

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
