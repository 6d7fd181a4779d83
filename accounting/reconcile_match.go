package accounting

import (
	"time"

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
}

// matchedHost is a known host as an export lists it.
type matchedHost struct {
	knownHost
	ExportUserID int64
	TotalCredit  float64
	ExpavgCredit float64
	ExpavgTime   float64
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

// exportMatcher sorts an export's hosts into matched and orphans as they
// stream past; it keeps only those, never the whole export.
type exportMatcher struct {
	known   map[int64]knownHost
	account int64 // Cobble's user id on the project; 0 while unknown
	// accounts counts the export user ids of matched hosts: while account
	// is unknown, their owners stand for Cobble's account.
	accounts    map[int64]int
	matched     []matchedHost
	seen        map[int64]bool
	orphans     []Orphan
	orphanCount int64
	scanned     int64
}

func newExportMatcher(known []knownHost, account int64) *exportMatcher {
	m := &exportMatcher{known: make(map[int64]knownHost, len(known)), account: account,
		accounts: map[int64]int{}, seen: map[int64]bool{}}
	for _, k := range known {
		m.known[k.ProjectHostID] = k
	}
	return m
}

// add takes one host of the export.
func (m *exportMatcher) add(h *boinc.ExportHost) {
	m.scanned++
	if k, ok := m.known[h.ID]; ok && !m.seen[h.ID] {
		m.seen[h.ID] = true
		m.matched = append(m.matched, matchedHost{knownHost: k, ExportUserID: h.UserID,
			TotalCredit: h.TotalCredit, ExpavgCredit: h.ExpavgCredit, ExpavgTime: h.ExpavgTime})
		if h.HasUserID {
			m.accounts[h.UserID]++
		}
		return
	}
	if !h.HasUserID || !m.isAccount(h.UserID) {
		return
	}
	m.orphanCount++
	if len(m.orphans) < maxOrphansKept {
		m.orphans = append(m.orphans, Orphan{ProjectHostID: h.ID, UserID: h.UserID,
			TotalCredit: h.TotalCredit, ExpavgCredit: h.ExpavgCredit, HostCPID: h.HostCPID})
	}
}

func (m *exportMatcher) isAccount(userID int64) bool {
	if m.account != 0 {
		return userID == m.account
	}
	return m.accounts[userID] > 0
}

// learnedAccount is the most common owner of the matched hosts.
func (m *exportMatcher) learnedAccount() int64 {
	var best int64
	for id, n := range m.accounts {
		if n > m.accounts[best] || (n == m.accounts[best] && id < best) {
			best = id
		}
	}
	return best
}

// missing lists the known hosts the export did not list.
func (m *exportMatcher) missing() []knownHost {
	var out []knownHost
	for id, k := range m.known {
		if !m.seen[id] {
			out = append(out, k)
		}
	}
	return out
}

// runResult is what a run read, to be stored in one transaction.
type runResult struct {
	project    Project
	status     RunStatus
	exportTime time.Time
	validators map[string]boinc.Validators
	matcher    *exportMatcher
}

func (r *runResult) unchanged() bool { return r != nil && r.status == RunUnchanged }
