package boinc

// ctx identifies an element path ParseRequest cares about.
type ctx uint8

// Containers, then leaf fields grouped by the record they belong to.
const (
	cNone ctx = iota
	cRoot
	cProject
	cHost
	cCoprocs
	cCoproc
	cAltPlatform

	// Fields of Request.
	fAuthenticator
	fName
	fPasswordHash
	fHostCPID
	fPrevHostCPID
	fDomainName
	fClientVersion
	fRunMode
	fPlatformName
	fAltPlatform
	fOpaque

	// Fields of Project.
	fURL
	fProjectName
	fHostID
	fSuspendedViaGUI
	fAttachedViaAcctMgr
	fDontRequestMoreWork
	fDetachWhenDone
	fEnded
	fResourceShare
	fAccountKey
	fNRPCFailures
	fSchedReqNoWork
	fCPUEC
	fCPUTime
	fGPUEC
	fGPUTime
	fJobsSuccess
	fJobsError

	// Fields of HostInfo.
	fTimezone
	fHostDomainName
	fIPAddr
	fHostHostCPID
	fNCPUs
	fPVendor
	fPModel
	fPFPOps
	fPIOps
	fMNBytes
	fOSName
	fOSVersion

	// Fields of Coproc.
	fCount
	fPeakFLOPS
	fType
)

// firstLeaf is the first leaf field; every ctx from it on is a leaf.
const firstLeaf = fAuthenticator

// children maps a container to the elements taken inside it.
var children = [...]map[string]ctx{
	cRoot: {
		"authenticator": fAuthenticator, "name": fName, "password_hash": fPasswordHash,
		"host_cpid": fHostCPID, "previous_host_cpid": fPrevHostCPID,
		"domain_name": fDomainName, "client_version": fClientVersion, "run_mode": fRunMode,
		"platform_name": fPlatformName, "alt_platform": cAltPlatform, "opaque": fOpaque,
		"project": cProject, "host_info": cHost,
	},
	cProject: {
		"url": fURL, "project_name": fProjectName, "hostid": fHostID,
		"suspended_via_gui": fSuspendedViaGUI, "attached_via_acct_mgr": fAttachedViaAcctMgr,
		"dont_request_more_work": fDontRequestMoreWork, "detach_when_done": fDetachWhenDone,
		"ended": fEnded, "resource_share": fResourceShare, "account_key": fAccountKey,
		"nrpc_failures": fNRPCFailures, "sched_req_no_work": fSchedReqNoWork,
		"cpu_ec": fCPUEC, "cpu_time": fCPUTime, "gpu_ec": fGPUEC, "gpu_time": fGPUTime,
		"njobs_success": fJobsSuccess, "njobs_error": fJobsError,
	},
	cHost: {
		"timezone": fTimezone, "domain_name": fHostDomainName, "ip_addr": fIPAddr,
		"host_cpid": fHostHostCPID, "p_ncpus": fNCPUs, "p_vendor": fPVendor,
		"p_model": fPModel, "p_fpops": fPFPOps, "p_iops": fPIOps, "m_nbytes": fMNBytes,
		"os_name": fOSName, "os_version": fOSVersion, "coprocs": cCoprocs,
	},
	cCoprocs: {
		"coproc_cuda": cCoproc, "coproc_ati": cCoproc, "coproc_intel_gpu": cCoproc,
		"coproc_apple_gpu": cCoproc, "coproc": cCoproc,
	},
	cCoproc:      {"count": fCount, "peak_flops": fPeakFLOPS, "type": fType},
	cAltPlatform: {"name": fAltPlatform},
}

// coprocTypes maps the specific coprocessor elements to resource names.
var coprocTypes = map[string]string{
	"coproc_cuda":      "NVIDIA",
	"coproc_ati":       "ATI",
	"coproc_intel_gpu": "intel_gpu",
	"coproc_apple_gpu": "apple_gpu",
}

// child returns the path context of an element named name inside parent.
func child(parent ctx, name []byte) ctx {
	if int(parent) >= len(children) || children[parent] == nil {
		return cNone
	}
	return children[parent][string(name)]
}

// open prepares for the contents of a newly opened element.
func (p *reqParser) open(c ctx, name []byte) {
	switch {
	case c >= firstLeaf:
		p.txt, p.nChunks = nil, 0
	case c == cProject:
		p.proj, p.counters, p.cmask = Project{}, Counters{}, 0
		p.projMark = p.strs.mark()
	case c == cCoproc:
		p.co = Coproc{Type: coprocTypes[string(name)]}
		p.generic = string(name) == "coproc"
		p.coMark = p.strs.mark()
	}
}

// close finishes an element; selfClosing reports the <x/> form.
func (p *reqParser) close(c ctx, selfClosing bool) {
	switch {
	case c >= fCount:
		p.coprocField(c, p.leafText())
	case c >= fTimezone:
		p.hostField(c, p.leafText())
	case c >= fURL:
		p.projectField(c, p.leafText(), selfClosing)
	case c >= firstLeaf:
		p.requestField(c, p.leafText())
	case c == cProject:
		p.strs.flush(p.projMark)
		if p.cmask == allCounters {
			cnt := p.counters
			p.proj.Counters = &cnt
		}
		p.req.Projects = append(p.req.Projects, p.proj)
	case c == cCoproc:
		p.strs.flush(p.coMark)
		p.req.Host.Coprocs = append(p.req.Host.Coprocs, p.co)
	case c == cRoot:
		p.done = true
	}
}

// requestField sets a top-level field of the request.
func (p *reqParser) requestField(c ctx, v []byte) {
	r := p.req
	switch c {
	case fAuthenticator:
		p.setString(&r.Authenticator, v)
	case fName:
		p.setString(&r.Name, v)
	case fPasswordHash:
		p.setString(&r.PasswordHash, v)
	case fHostCPID:
		p.setString(&r.HostCPID, v)
	case fPrevHostCPID:
		p.setString(&r.PreviousHostCPID, v)
	case fDomainName:
		p.setString(&r.DomainName, v)
	case fClientVersion:
		p.setString(&r.ClientVersion, v)
	case fRunMode:
		p.setString(&r.RunMode, v)
	case fPlatformName:
		p.setString(&r.PlatformName, v)
	case fAltPlatform:
		r.AltPlatforms = append(r.AltPlatforms, string(p.CleanText(v)))
	}
}

// hostField sets a field of the host description.
func (p *reqParser) hostField(c ctx, v []byte) {
	h := &p.req.Host
	switch c {
	case fTimezone:
		setInt(&h.Timezone, v)
	case fHostDomainName:
		p.setString(&h.DomainName, v)
	case fIPAddr:
		p.setString(&h.IPAddr, v)
	case fHostHostCPID:
		p.setString(&h.HostCPID, v)
	case fNCPUs:
		setInt(&h.NCPUs, v)
	case fPVendor:
		p.setString(&h.PVendor, v)
	case fPModel:
		p.setString(&h.PModel, v)
	case fPFPOps:
		setFloat(&h.PFPOps, v)
	case fPIOps:
		setFloat(&h.PIOps, v)
	case fMNBytes:
		setFloat(&h.MNBytes, v)
	case fOSName:
		p.setString(&h.OSName, v)
	case fOSVersion:
		p.setString(&h.OSVersion, v)
	}
}

// coprocField sets a field of the coprocessor being parsed.
func (p *reqParser) coprocField(c ctx, v []byte) {
	switch c {
	case fCount:
		setInt(&p.co.Count, v)
	case fPeakFLOPS:
		setFloat(&p.co.PeakFLOPS, v)
	case fType:
		if p.generic {
			p.setString(&p.co.Type, v)
		}
	}
}
