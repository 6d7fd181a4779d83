package reconcile

import (
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
)

// maxOrphansKept bounds how many orphans one run lists; all are counted.
const maxOrphansKept = 10_000

// knownHost is a Cobble host attached to a project, by the project's host id.
type knownHost struct {
	ProjectHostID int64
	HostID        int64
	UserID        int64
	TimeZone      string
	CPID          string // the client's host_cpid, as it reported it
}

// matchedHost is a known host as an export lists it, verified as its own.
type matchedHost struct {
	knownHost
	ExportUserID int64
	TotalCredit  float64
	ExpavgCredit float64
	ExpavgTime   float64
	RPCTime      int64 // the export's rpc_time, Unix seconds; 0 when it has none
}

// Orphan is a host under Cobble's account on a project that Cobble does
// not know.
type Orphan struct {
	ProjectHostID int64
	UserID        int64
	TotalCredit   float64
	ExpavgCredit  float64
	HostCPID      string
}

// claim is an export record whose id one or more Cobble hosts reported.
type claim struct {
	rec                               recordFacts
	totalCredit, expavgCredit, expavg float64 // expavg: expavg_time
	rpcTime                           int64   // rpc_time, Unix seconds
	claimants                         []knownHost
}

// exportMatcher collects what a run needs from an export as it streams
// past: the records Cobble hosts claim, and the orphan candidates; it
// never keeps the whole export. Who is verified, Cobble's account and
// which records are orphans are decided after the scan (decide).
type exportMatcher struct {
	known   map[int64][]knownHost // by project host id
	account int64                 // Cobble's user id on the project; 0 while unknown
	email   string                // Cobble's account email on the project; "" if not set
	claims  []claim
	seen    map[int64]bool
	// While account is unknown, unclaimed records are orphan candidates:
	// counted per user id, and the first maxOrphansKept of them kept.
	candidates map[int64]int64
	kept       []Orphan
	scanned    int64

	// Set by decide.
	matched     []matchedHost
	unverified  []Unverified
	orphans     []Orphan
	orphanCount int64
	learned     int64       // the account learned from this export; 0 if none
	missed      []knownHost // the known hosts the export did not list
}

func newExportMatcher(known []knownHost, account int64, email string) *exportMatcher {
	m := &exportMatcher{known: make(map[int64][]knownHost, len(known)), account: account, email: email,
		seen: map[int64]bool{}, candidates: map[int64]int64{}}
	for _, k := range known {
		m.known[k.ProjectHostID] = append(m.known[k.ProjectHostID], k)
	}
	return m
}

// add takes one host of the export.
func (m *exportMatcher) add(h *boinc.ExportHost) {
	m.scanned++
	if ks, ok := m.known[h.ID]; ok && !m.seen[h.ID] {
		m.seen[h.ID] = true
		m.claims = append(m.claims, claim{rec: recordFacts{id: h.ID, userID: h.UserID, hasUserID: h.HasUserID,
			hostCPID: h.HostCPID}, totalCredit: h.TotalCredit, expavgCredit: h.ExpavgCredit, expavg: h.ExpavgTime,
			rpcTime: h.RPCTime, claimants: ks})
		return
	}
	if !h.HasUserID || (m.account != 0 && h.UserID != m.account) {
		return
	}
	m.candidates[h.UserID]++
	if len(m.kept) < maxOrphansKept {
		m.kept = append(m.kept, Orphan{ProjectHostID: h.ID, UserID: h.UserID,
			TotalCredit: h.TotalCredit, ExpavgCredit: h.ExpavgCredit, HostCPID: h.HostCPID})
	}
}

// decide settles, after the scan, Cobble's account (learning it when
// unknown), which claims are verified, the orphans and the missing hosts,
// and lets go of the scan's state.
func (m *exportMatcher) decide() {
	if m.account == 0 {
		m.learned = m.learnAccount()
		m.account = m.learned
	}
	for _, c := range m.claims {
		m.settle(c)
	}
	m.orphanCount = m.candidates[m.account]
	if m.account == 0 {
		m.orphanCount = 0
	}
	for _, o := range m.kept {
		if m.account != 0 && o.UserID == m.account {
			m.orphans = append(m.orphans, o)
		}
	}
	// What the scan gathered is no longer needed, and on a large export
	// it is most of the heap while the run is stored.
	m.missed = m.missing()
	m.known, m.seen, m.claims, m.candidates, m.kept = nil, nil, nil, nil, nil
}

// learnAccount is the owner of the most claimed records that verify by
// host_cpid; without an account email, the owner of the most claimed
// records (ties: the lowest id).
func (m *exportMatcher) learnAccount() int64 {
	votes := map[int64]int{}
	for _, c := range m.claims {
		if !c.rec.hasUserID {
			continue
		}
		for _, k := range c.claimants {
			if m.email == "" || cpidVerifies(c.rec.hostCPID, k.CPID, m.email) {
				votes[c.rec.userID]++
				break
			}
		}
	}
	var best int64
	for id, n := range votes {
		if n > votes[best] || (n == votes[best] && id < best) {
			best = id
		}
	}
	return best
}

// missing lists the known hosts the export did not list.
func (m *exportMatcher) missing() []knownHost {
	var out []knownHost
	for id, ks := range m.known {
		if !m.seen[id] {
			out = append(out, ks...)
		}
	}
	return out
}

// runResult is what a run read, to be stored in one transaction.
type runResult struct {
	project    accounting.Project
	status     RunStatus
	exportTime time.Time
	validators map[string]boinc.Validators
	matcher    *exportMatcher
}

func (r *runResult) unchanged() bool { return r != nil && r.status == RunUnchanged }
