package reconcile

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strings"
)

// Unverified is a Cobble host that reported a project host id whose
// export record Cobble could not verify as the host's own: its credit is
// not counted. Reason says why, for an admin.
type Unverified struct {
	HostID        int64
	UserID        int64
	ProjectHostID int64
	Reason        string
}

// How a Cobble host's claim on an export record stands.
const (
	claimVerified = iota
	claimRejected // the record is provably someone else's
	claimUnknown  // nothing tells
)

// verify checks one Cobble host's claim on an export record:
//
//   - a record that names an owner (<userid>) other than Cobble's account
//     on the project is someone else's;
//   - when the project's account email is known, the record's host_cpid
//     must be md5(the host's own host_cpid + that email), which is what
//     BOINC's scheduler stores and the export publishes;
//   - otherwise a record owned by Cobble's account is verified, but that
//     cannot tell two Cobble hosts apart (all are under the one account);
//   - a record that hides its owner cannot be verified without the email.
func (m *exportMatcher) verify(rec recordFacts, k knownHost) (int, string) {
	switch {
	case rec.hasUserID && m.account != 0 && rec.userID != m.account:
		return claimRejected, fmt.Sprintf("the export lists host %d under the project's user %d, not Cobble's account (%d)",
			rec.id, rec.userID, m.account)
	case m.email != "" && rec.hostCPID != "" && k.CPID != "":
		if cpidVerifies(rec.hostCPID, k.CPID, m.email) {
			return claimVerified, ""
		}
		return claimRejected, fmt.Sprintf("host %d's host_cpid in the export is not md5(this computer's host_cpid + the account email)", rec.id)
	case rec.hasUserID && m.account != 0:
		return claimVerified, ""
	case m.email == "":
		return claimUnknown, "no account email is set for the project, and the export does not name Cobble's account as the owner"
	default:
		return claimUnknown, "the export hides the owner and gives no host_cpid to check, or the computer never reported its host_cpid"
	}
}

// recordFacts are the facts of an export record that verification uses.
type recordFacts struct {
	id, userID int64
	hasUserID  bool
	hostCPID   string
}

// settle decides a claim: a sole claimant that verifies is credited; of
// several, the only one verified by host_cpid is; when verification
// cannot tell them apart, none is credited, and each is listed as a
// conflict. Claimants not credited are listed with the reason.
func (m *exportMatcher) settle(c claim) {
	rec := c.rec
	var winners []knownHost
	reasons := map[int64]string{}
	for _, k := range c.claimants {
		status, reason := m.verify(rec, k)
		if status == claimVerified {
			winners = append(winners, k)
		} else {
			reasons[k.HostID] = reason
		}
	}
	if len(winners) == 1 {
		m.matched = append(m.matched, matchedHost{knownHost: winners[0], ExportUserID: rec.userID,
			TotalCredit: c.totalCredit, ExpavgCredit: c.expavgCredit, ExpavgTime: c.expavg, RPCTime: c.rpcTime})
	}
	for _, k := range c.claimants {
		reason, ok := reasons[k.HostID]
		if !ok && len(winners) == 1 {
			continue
		}
		if !ok || len(winners) > 1 {
			reason = fmt.Sprintf("%d Cobble hosts report host %d and verification cannot tell which it is; none is credited",
				len(c.claimants), rec.id)
		}
		m.unverified = append(m.unverified, Unverified{HostID: k.HostID, UserID: k.UserID, ProjectHostID: rec.id, Reason: reason})
	}
}

// cpidVerifies reports whether exported is md5(cpid + email), with the
// email as given or in lower case (BOINC projects store it lower-cased).
func cpidVerifies(exported, cpid, email string) bool {
	for _, e := range []string{email, strings.ToLower(email)} {
		sum := md5.Sum([]byte(cpid + e))
		if strings.EqualFold(hex.EncodeToString(sum[:]), strings.TrimSpace(exported)) {
			return true
		}
	}
	return false
}

// HowToVerify tells an admin how to make unverified matches verifiable.
const HowToVerify = "Set the email of Cobble's account on the project (cobble project add --account-email, " +
	"or edit the project): an export's host_cpid is md5(the computer's host_cpid + that email), which " +
	"proves whose host a record is. Hosts whose records name another owner are not Cobble's account's."
