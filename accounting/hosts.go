package accounting

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// HostReport is what a client says about its computer in an RPC.
type HostReport struct {
	CPID           string // the client's host_cpid
	PreviousCPID   string
	DomainName     string
	ClientVersion  string
	Platforms      []string // primary platform first
	OSName         string
	OSVersion      string
	PVendor        string
	PModel         string
	NCPUs          int
	PFPOps         float64 // per core, FLOPS
	MNBytes        float64
	TimezoneOffset int // seconds east of UTC
	Coprocs        []Coproc
}

// Coproc is one kind of GPU in a host.
type Coproc struct {
	Type      string  `json:"type"` // a resource name: NVIDIA, ATI, intel_gpu, apple_gpu, ...
	Count     int     `json:"count"`
	PeakFLOPS float64 `json:"peak_flops"` // per device
}

// Resources returns CPU plus the GPU kinds the host has at least one of.
func (h HostReport) Resources() []string {
	out := []string{ResourceCPU}
	for _, c := range h.Coprocs {
		if c.Count > 0 && c.Type != "" {
			out = append(out, c.Type)
		}
	}
	return out
}

// Host is a computer of a volunteer as Cobble knows it.
type Host struct {
	ID        int64
	UserID    int64
	Token     string // carried in the reply's <opaque>
	CreatedAt time.Time
	LastRPCAt *time.Time
	budget    budget // what it may still be credited
}

const hostColumns = `id, user_id, opaque_token, created_at, last_rpc_at, ` + budgetColumns

// scanHost reads one row of hostColumns.
func scanHost(row pgx.CollectableRow) (Host, error) {
	var h Host
	var b budgetRow
	err := row.Scan(append([]any{&h.ID, &h.UserID, &h.Token, &h.CreatedAt, &h.LastRPCAt}, b.dest()...)...)
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

// queueHostUpdate stores what the client reported about its computer and
// its budget after the RPC; r must be sanitized.
func queueHostUpdate(b *pgx.Batch, hostID int64, r HostReport, issues []string, now time.Time, bud budget) {
	coprocs, _ := json.Marshal(r.Coprocs) // sanitized: finite numbers only
	b.Queue(`
		UPDATE hosts SET host_cpid = @cpid, domain_name = @domain_name, client_version = @client_version,
			platforms = @platforms, os_name = @os_name, os_version = @os_version, p_vendor = @p_vendor,
			p_model = @p_model, ncpus = @ncpus, p_fpops = @p_fpops, m_nbytes = @m_nbytes,
			timezone_offset = @timezone_offset, coprocs = @coprocs,
			last_rpc_at = @now, rpc_count = rpc_count + 1, implausible = @implausible,
			budget_at = @budget_at, budget_cpu_ec_micro = @budget_cpu_ec, budget_cpu_time_micro = @budget_cpu_time,
			budget_gpu_ec_micro = @budget_gpu_ec, budget_gpu_time_micro = @budget_gpu_time, budget_jobs = @budget_jobs
		WHERE id = @host_id`,
		bud.addArgs(pgx.NamedArgs{"host_id": hostID, "cpid": r.CPID, "domain_name": r.DomainName,
			"client_version": r.ClientVersion, "platforms": r.Platforms, "os_name": r.OSName,
			"os_version": r.OSVersion, "p_vendor": r.PVendor, "p_model": r.PModel, "ncpus": r.NCPUs,
			"p_fpops": r.PFPOps, "m_nbytes": r.MNBytes, "timezone_offset": r.TimezoneOffset,
			"coprocs": coprocs, "now": now, "implausible": cleanText(strings.Join(issues, "; "), 1000)}))
}

// sanitized returns r made safe to store: valid UTF-8 without NUL bytes,
// bounded lengths, finite non-negative numbers within the column types.
func (r HostReport) sanitized() HostReport {
	for _, p := range []*string{&r.CPID, &r.PreviousCPID, &r.DomainName, &r.ClientVersion,
		&r.OSName, &r.OSVersion, &r.PVendor, &r.PModel} {
		*p = cleanText(*p, 256)
	}
	platforms := make([]string, 0, len(r.Platforms))
	for _, p := range r.Platforms {
		if p = cleanText(p, 64); p != "" && len(platforms) < 16 {
			platforms = append(platforms, p)
		}
	}
	r.Platforms = platforms
	r.NCPUs = clampInt(r.NCPUs, 0, 1<<20)
	r.TimezoneOffset = clampInt(r.TimezoneOffset, -86400, 86400)
	r.PFPOps, r.MNBytes = finite(r.PFPOps), finite(r.MNBytes)
	coprocs := make([]Coproc, 0, len(r.Coprocs))
	for _, c := range r.Coprocs {
		if len(coprocs) < 16 {
			coprocs = append(coprocs, Coproc{Type: cleanText(c.Type, 64),
				Count: clampInt(c.Count, 0, 1<<10), PeakFLOPS: finite(c.PeakFLOPS)})
		}
	}
	r.Coprocs = coprocs
	return r
}

// cleanText makes s storable: valid UTF-8, no NUL bytes, at most n bytes.
func cleanText(s string, n int) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "\uFFFD")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "")
	}
	return s
}

// finite maps NaN, infinities and negatives to 0.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0
	}
	return f
}

func clampInt(v, lo, hi int) int { return min(max(v, lo), hi) }

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// randomToken returns 128 random bits as 32 hex digits.
func randomToken() string {
	b := make([]byte, 16)
	rand.Read(b) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b)
}
