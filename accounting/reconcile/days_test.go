package reconcile_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/boinc/exporttest"
)

// HostDays gives, in one query, what Days gives project by
// project for the host, and nothing of other hosts or projects.
func TestHostDaysAreDaysOfEachProject(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	e.stats.publish(may1.Add(48*time.Hour), []exporttest.Host{gen(101, 42, 100), gen(102, 42, 100)}, 0)
	e.run()
	// Host 101 works for a second project too, credited on May 2nd.
	q, err := e.store.Catalog.AddProject(e.ctx, accounting.Project{URL: "https://q.example.org/", Name: "Q", Authenticator: "k"})
	if err != nil {
		t.Fatal(err)
	}
	host := e.hosts[101]
	if _, err := e.pool.Exec(e.ctx, `
		INSERT INTO host_projects (host_id, project_id, user_id) SELECT id, $2, user_id FROM hosts WHERE id = $1;
		`, host, q.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(e.ctx, `
		INSERT INTO ledger (host_id, project_id, day, user_id, cpu_ec_micro)
		SELECT id, $2, '2026-05-02', user_id, 7000000 FROM hosts WHERE id = $1`, host, q.ID); err != nil {
		t.Fatal(err)
	}
	from, to := may1.AddDate(0, 0, -2), may1.AddDate(0, 0, 3)
	for _, c := range []struct {
		hostID   int64
		projects []int64
	}{{host, []int64{e.proj.ID, q.ID}}, {e.hosts[102], []int64{e.proj.ID}}} {
		got, err := e.rec.HostDays(e.ctx, c.hostID, from, to)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int64][]reconcile.Day{}
		for _, p := range c.projects {
			if want[p], err = e.rec.Days(e.ctx, p, c.hostID, from, to); err != nil {
				t.Fatal(err)
			}
			if len(want[p]) != 6 {
				t.Fatalf("Days of project %d: %d days, want 6", p, len(want[p]))
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("host %d (-Days +HostDays):\n%s", c.hostID, diff)
		}
	}
	if days, _ := e.rec.HostDays(e.ctx, host, from, to); days[q.ID][3].Estimated != 7 || days[e.proj.ID][3].Estimated != 50 {
		t.Errorf("host %d on May 2nd: %+v", host, days)
	}
}
