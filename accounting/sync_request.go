package accounting

import (
	"context"
	"math"
)

// The first stage of an RPC (SyncStore.Sync): the request made safe, what the
// host can do, and the catalog. Nothing here talks to the database but the
// catalog's refresh every catalogTTL.

// rpcContext is what an RPC starts from, before it reads anything of the
// volunteer or the host.
type rpcContext struct {
	req      SyncRequest
	catalog  []Project
	capacity Capacity
	issues   claims
}

// request returns the context of the RPC req: the capacity its host claims
// (judged on the claims as sent), req sanitized, and the catalog.
func (s *SyncStore) request(ctx context.Context, req SyncRequest) (rpcContext, error) {
	capacity, issues := capacityOf(req.Host)
	catalog, err := s.catalog(ctx)
	return rpcContext{req: req.sanitized(), catalog: catalog, capacity: capacity, issues: issues}, err
}

// sanitized returns req with every text made safe to store and compare.
func (req SyncRequest) sanitized() SyncRequest {
	req.Authenticator = CleanText(req.Authenticator, 256)
	req.Email = CleanText(req.Email, 256)
	req.PasswordHash = CleanText(req.PasswordHash, 256)
	req.HostToken = CleanText(req.HostToken, 64)
	req.Host = req.Host.sanitized()
	req = req.capProjects()
	projects := make([]ProjectReport, len(req.Projects))
	for i, p := range req.Projects {
		p.URL = CleanText(p.URL, 512)
		projects[i] = p
	}
	req.Projects = projects
	return req
}

// capProjects keeps the first report of each project (by the URL rule
// clients use), at most MaxRequestProjects of them, and counts the rest in
// req.ignored.
func (req SyncRequest) capProjects() SyncRequest {
	seen := make(map[string]bool, min(len(req.Projects), MaxRequestProjects))
	kept := make([]ProjectReport, 0, min(len(req.Projects), MaxRequestProjects))
	for _, p := range req.Projects {
		key := urlKey(p.URL)
		switch {
		case seen[key]:
		case len(kept) == MaxRequestProjects:
			req.ignored++
		default:
			seen[key] = true
			kept = append(kept, p)
		}
	}
	req.Projects = kept
	return req
}

// sanitized returns r made safe to store: valid UTF-8 without NUL bytes,
// bounded lengths, finite non-negative numbers within the column types.
func (r HostReport) sanitized() HostReport {
	for _, p := range []*string{&r.CPID, &r.PreviousCPID, &r.DomainName, &r.ClientVersion,
		&r.OSName, &r.OSVersion, &r.PVendor, &r.PModel} {
		*p = CleanText(*p, 256)
	}
	platforms := make([]string, 0, len(r.Platforms))
	for _, p := range r.Platforms {
		if p = CleanText(p, 64); p != "" && len(platforms) < 16 {
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
			coprocs = append(coprocs, Coproc{Type: CleanText(c.Type, 64),
				Count: clampInt(c.Count, 0, 1<<10), PeakFLOPS: finite(c.PeakFLOPS)})
		}
	}
	r.Coprocs = coprocs
	return r
}

// finite maps NaN, infinities and negatives to 0.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0
	}
	return f
}

func clampInt(v, lo, hi int) int { return min(max(v, lo), hi) }
