package boinc

// Bits of reqParser.cmask, one per counter element.
const (
	bitCPUEC uint8 = 1 << iota
	bitCPUTime
	bitGPUEC
	bitGPUTime
	bitJobsSuccess
	bitJobsError
	allCounters = 1<<iota - 1
)

// projectField sets a field of the project being parsed.
func (p *reqParser) projectField(c ctx, v []byte, selfClosing bool) {
	pr := &p.proj
	switch c {
	case fURL:
		p.setString(&pr.URL, v)
	case fProjectName:
		p.setString(&pr.ProjectName, v)
	case fAccountKey:
		p.setString(&pr.AccountKey, v)
	case fHostID:
		pr.HostID, _ = parseInt(v)
	case fNRPCFailures:
		setInt(&pr.NRPCFailures, v)
	case fResourceShare:
		setFloat(&pr.ResourceShare, v)
	case fSuspendedViaGUI, fAttachedViaAcctMgr, fDontRequestMoreWork, fDetachWhenDone, fEnded:
		p.projectBool(c, parseBool(v, selfClosing))
	case fSchedReqNoWork:
		pr.SchedReqNoWork = append(pr.SchedReqNoWork, resourceName(p.CleanText(v)))
	default:
		p.counterField(c, v)
	}
}

// projectBool sets a boolean field of the project being parsed.
func (p *reqParser) projectBool(c ctx, b bool) {
	switch c {
	case fSuspendedViaGUI:
		p.proj.SuspendedViaGUI = b
	case fAttachedViaAcctMgr:
		p.proj.AttachedViaAcctMgr = b
	case fDontRequestMoreWork:
		p.proj.DontRequestMoreWork = b
	case fDetachWhenDone:
		p.proj.DetachWhenDone = b
	case fEnded:
		p.proj.Ended = b
	}
}

// counterField sets one of the project's counters and records whether it
// parsed.
func (p *reqParser) counterField(c ctx, v []byte) {
	var bit uint8
	var ok bool
	n := &p.counters
	switch c {
	case fCPUEC:
		bit, ok = bitCPUEC, setFloat(&n.CPUEC, v)
	case fCPUTime:
		bit, ok = bitCPUTime, setFloat(&n.CPUTime, v)
	case fGPUEC:
		bit, ok = bitGPUEC, setFloat(&n.GPUEC, v)
	case fGPUTime:
		bit, ok = bitGPUTime, setFloat(&n.GPUTime, v)
	case fJobsSuccess:
		n.JobsSuccess, ok = parseInt(v)
		bit = bitJobsSuccess
	case fJobsError:
		n.JobsError, ok = parseInt(v)
		bit = bitJobsError
	}
	if ok {
		p.cmask |= bit
	} else {
		p.cmask &^= bit
	}
}
