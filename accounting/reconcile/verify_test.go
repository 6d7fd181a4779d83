package reconcile_test

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/boinc/exporttest"
)

// exported is the host_cpid a project exports for a client's cpid and its
// owner's email: md5(cpid + email).
func exported(cpid, email string) string {
	sum := md5.Sum([]byte(cpid + email))
	return hex.EncodeToString(sum[:])
}

// confirmedOf sums the confirmed credit of one project host id.
func (e *reconEnv) confirmedOf(hostid int64) float64 {
	var sum float64
	for k, v := range e.confirmed() {
		if strings.HasPrefix(k, fmt.Sprint(hostid)+" ") {
			sum += v
		}
	}
	return sum
}

// grantedTo is the confirmed credit of one Cobble host.
func (e *reconEnv) grantedTo(hostID int64) float64 {
	e.t.Helper()
	var sum float64
	if err := e.pool.QueryRow(e.ctx, `SELECT coalesce(sum(granted_micro), 0) / 1e6 FROM confirmed_ledger
		WHERE host_id = $1`, hostID).Scan(&sum); err != nil {
		e.t.Fatal(err)
	}
	return sum
}

// twoExports publishes the baseline export and, two days later, one where
// every listed host gained 100 credits; extra are listed in both.
func (e *reconEnv) twoExports(extra ...exporttest.Host) {
	e.t.Helper()
	base := []exporttest.Host{gen(101, 42, 1000), gen(102, 42, 500), gen(103, 42, 200)}
	for i, g := range [][]exporttest.Host{base, base} {
		hosts := append([]exporttest.Host{}, g...)
		hosts = append(hosts, extra...)
		for j := range hosts {
			hosts[j].TotalCredit += float64(i) * 100
		}
		e.stats.publish(may1.Add(time.Duration(i)*48*time.Hour), hosts, 1)
		e.run()
	}
}

// A volunteer who reports a stranger's host id (the export names another
// owner) gets none of that host's credit, and the report lists why.
func TestReconcileRejectsAStrangersHost(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	e.hosts[777] = e.estimate(777)
	e.twoExports(gen(777, 9, 500_000))
	if got := e.confirmedOf(777); got != 0 {
		t.Errorf("a stranger's host earned %v confirmed credit", got)
	}
	if got := e.confirmedOf(101); got != 100 {
		t.Errorf("host 101 earned %v, want 100", got)
	}
	pr, err := e.rec.Report(e.ctx, e.proj)
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Unverified) != 1 || pr.Unverified[0].ProjectHostID != 777 || !strings.Contains(pr.Unverified[0].Reason, "user 9") {
		t.Errorf("unverified %+v, want host 777 under user 9", pr.Unverified)
	}
}

// Two Cobble hosts report one project host id. Without the account email
// nothing tells them apart: neither is credited, both are listed.
func TestReconcileConflictWithoutEmailCreditsNeither(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	thief := e.estimateAs(101, "thief-cpid")
	e.twoExports()
	if got := e.grantedTo(e.hosts[101]) + e.grantedTo(thief); got != 0 {
		t.Errorf("host 101, claimed twice, earned %v", got)
	}
	pr, _ := e.rec.Report(e.ctx, e.proj)
	if len(pr.Unverified) != 2 || !strings.Contains(pr.Unverified[0].Reason, "2 Cobble hosts") {
		t.Errorf("unverified %+v, want the two claimants of 101", pr.Unverified)
	}
}

// With the account email, the export's host_cpid tells the true host: it
// is credited, the other listed.
func TestReconcileConflictVerifiedByCPID(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	const email = "am@example.org"
	if _, err := e.pool.Exec(e.ctx, `UPDATE projects SET account_email = $1`, email); err != nil {
		t.Fatal(err)
	}
	e.proj.AccountEmail = email
	thief := e.estimateAs(101, "thief-cpid")
	hidden := gen(101, 42, 1000)
	hidden.HostCPID = exported("cpid-101", email)
	e.stats.publish(may1, []exporttest.Host{hidden}, 1)
	e.run()
	hidden.TotalCredit += 100
	e.stats.publish(may1.Add(48*time.Hour), []exporttest.Host{hidden}, 1)
	e.run()
	if victim, stolen := e.grantedTo(e.hosts[101]), e.grantedTo(thief); victim != 100 || stolen != 0 {
		t.Errorf("the true host earned %v and the other %v; want 100 and 0", victim, stolen)
	}
	pr, _ := e.rec.Report(e.ctx, e.proj)
	if len(pr.Unverified) != 1 || pr.Unverified[0].HostID != thief {
		t.Errorf("unverified %+v, want only the other claimant", pr.Unverified)
	}
}

// On the first run, while Cobble's account on the project is unknown, the
// orphans do not depend on the order of the export's records.
func TestReconcileFirstRunOrphansIgnoreOrder(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	e.hosts[777] = e.estimate(777) // claims a host of user 9
	e.stats.publish(may1, []exporttest.Host{gen(999, 42, 12), gen(101, 42, 1000), gen(777, 9, 5),
		gen(102, 42, 500), gen(888, 9, 7), gen(103, 42, 200)}, 1)
	run := e.run()
	orphans, err := e.rec.Orphans(e.ctx, run.ID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if run.Orphans != 1 || len(orphans) != 1 || orphans[0].ProjectHostID != 999 {
		t.Errorf("orphans %d: %+v, want only 999", run.Orphans, orphans)
	}
}
