package handlers

import (
	"strings"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
)

// The reply's <opaque> holds the host token in this element; the client
// echoes it back verbatim on every request.
const opaqueOpen, opaqueClose = "<host_token>", "</host_token>"

func hostOpaque(token string) string { return opaqueOpen + token + opaqueClose }

// hostToken extracts the host token from a request's <opaque>, or "".
func hostToken(opaque string) string {
	_, rest, ok := strings.Cut(opaque, opaqueOpen)
	if !ok {
		return ""
	}
	token, _, ok := strings.Cut(rest, opaqueClose)
	if !ok || len(token) > 64 {
		return ""
	}
	return strings.TrimSpace(token)
}

// syncRequest maps the wire request onto the domain's.
func syncRequest(req *boinc.Request, now time.Time) accounting.SyncRequest {
	h := req.Host
	sr := accounting.SyncRequest{
		Authenticator: req.Authenticator,
		Email:         req.Name,
		PasswordHash:  req.PasswordHash,
		HostToken:     hostToken(req.Opaque),
		Now:           now,
		Host: accounting.HostReport{
			CPID: req.HostCPID, PreviousCPID: req.PreviousHostCPID,
			DomainName: req.DomainName, ClientVersion: req.ClientVersion,
			Platforms: append([]string{req.PlatformName}, req.AltPlatforms...),
			OSName:    h.OSName, OSVersion: h.OSVersion, PVendor: h.PVendor, PModel: h.PModel,
			NCPUs: h.NCPUs, PFPOps: h.PFPOps, MNBytes: h.MNBytes, TimezoneOffset: h.Timezone,
		},
	}
	for _, c := range h.Coprocs {
		sr.Host.Coprocs = append(sr.Host.Coprocs, accounting.Coproc{Type: c.Type, Count: c.Count, PeakFLOPS: c.PeakFLOPS})
	}
	for _, p := range req.Projects {
		pr := accounting.ProjectReport{URL: p.URL, AttachedViaAM: p.AttachedViaAcctMgr, HostID: p.HostID}
		if c := p.Counters; c != nil {
			pr.Counters = &accounting.Counters{CPUEC: c.CPUEC, CPUTime: c.CPUTime, GPUEC: c.GPUEC,
				GPUTime: c.GPUTime, JobsSuccess: c.JobsSuccess, JobsError: c.JobsError}
		}
		sr.Projects = append(sr.Projects, pr)
	}
	return sr
}
