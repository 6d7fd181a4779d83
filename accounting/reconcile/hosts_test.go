package reconcile_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/internal/testdb"
)

// hostPageEnv is a project whose nine hosts estimated 100 credits each the
// day before yesterday (but the last, which has only a project host id)
// and were granted the amounts of granted: ratios 1, 0.9, 0.95, 0.2, 3,
// 0, 1.05, 1.1 and none. The median is 0.975: 0 and 0.2 are low, 3 high.
func hostPageEnv(t *testing.T) (*reconcile.Reconciler, reconcile.Report, []int64, *pgxpool.Pool) {
	ctx := context.Background()
	pool := testdb.New(t)
	store := accounting.NewStore(pool, testOptions)
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	rec := reconcile.New(store, pool, reconcile.Options{Now: func() time.Time { return now }})
	t.Cleanup(rec.Close)
	p, err := store.Catalog.AddProject(ctx, accounting.Project{URL: "https://proj.example.org/", Name: "P", Authenticator: "k"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := store.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	if err != nil {
		t.Fatal(err)
	}
	granted := []int64{100, 90, 95, 20, 300, 0, 105, 110, -1}
	var ids []int64
	for i, g := range granted {
		var id int64
		err := pool.QueryRow(ctx, `
			WITH h AS (INSERT INTO hosts (user_id, opaque_token) VALUES ($1, 'tok' || $3::int) RETURNING id),
			hp AS (INSERT INTO host_projects (host_id, project_id, user_id, project_hostid)
				SELECT id, $2, $1, 1000 + $3::int FROM h RETURNING host_id)
			SELECT host_id FROM hp`, u.ID, p.ID, i).Scan(&id)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if g < 0 {
			continue
		}
		_, err = pool.Exec(ctx, `
			INSERT INTO ledger (host_id, project_id, day, user_id, cpu_ec_micro) VALUES ($1, $2, '2026-05-08', $3, 100000000);
			`, id, p.ID, u.ID)
		if err == nil && g > 0 {
			_, err = pool.Exec(ctx, `INSERT INTO confirmed_ledger (host_id, project_id, day, user_id, granted_micro)
				VALUES ($1, $2, '2026-05-08', $3, $4)`, id, p.ID, u.ID, g*1_000_000)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	pr, err := rec.Report(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	return rec, pr, ids, pool
}

func TestReportSummarisesHostsInSQL(t *testing.T) {
	t.Parallel()
	_, pr, _, _ := hostPageEnv(t)
	if pr.Hosts != 9 || pr.Flagged != 3 || !near(pr.Median, 0.975) || !near(pr.Estimated, 800) ||
		!near(pr.Granted, 820) || !near(pr.Ratio, 820.0/800) {
		t.Errorf("report: %d hosts, %d flagged, median %v, estimated %v, granted %v, ratio %v; "+
			"want 9, 3, 0.975, 800, 820, 1.025", pr.Hosts, pr.Flagged, pr.Median, pr.Estimated, pr.Granted, pr.Ratio)
	}
	if !contains(pr.Flags, "3 hosts off the median ratio") {
		t.Errorf("flags %q", pr.Flags)
	}
}

// Pages of any size, in any order, list every host once, in that order.
func TestHostRatiosPageAndSort(t *testing.T) {
	t.Parallel()
	rec, pr, ids, _ := hostPageEnv(t)
	ctx := context.Background()
	// By index into ids, for each order.
	want := map[reconcile.HostSort][]int{
		reconcile.HostSortID:        {0, 1, 2, 3, 4, 5, 6, 7, 8},
		reconcile.HostSortRatioLow:  {5, 3, 1, 2, 0, 6, 7, 4, 8},
		reconcile.HostSortRatioHigh: {4, 7, 6, 0, 2, 1, 3, 5, 8},
		reconcile.HostSortGranted:   {4, 7, 6, 0, 2, 1, 3, 5, 8},
		reconcile.HostSortEstimated: {0, 1, 2, 3, 4, 5, 6, 7, 8},
		"nonsense":                  {0, 1, 2, 3, 4, 5, 6, 7, 8},
	}
	for sort, order := range want {
		for _, size := range []int{1, 2, 4, 9, 50} {
			var got []int64
			for from := 0; from < 9; from += size {
				p, err := rec.HostRatios(ctx, pr, reconcile.HostQuery{Sort: sort, Offset: from, Limit: size})
				if err != nil {
					t.Fatal(err)
				}
				if p.Total != 9 || len(p.Hosts) != min(size, 9-from) {
					t.Fatalf("%s, %d from %d: %d hosts of %d", sort, size, from, len(p.Hosts), p.Total)
				}
				for _, h := range p.Hosts {
					got = append(got, h.HostID)
				}
			}
			var wantIDs []int64
			for _, i := range order {
				wantIDs = append(wantIDs, ids[i])
			}
			if diff := cmp.Diff(wantIDs, got); diff != "" {
				t.Errorf("order %q in pages of %d (-want +got):\n%s", sort, size, diff)
			}
		}
	}
}

func TestHostRatiosFilterByFlag(t *testing.T) {
	t.Parallel()
	rec, pr, ids, _ := hostPageEnv(t)
	ctx := context.Background()
	for flag, want := range map[reconcile.HostFlagFilter][]int{
		"any": {3, 4, 5}, "low": {3, 5}, "high": {4}, "": {0, 1, 2, 3, 4, 5, 6, 7, 8}, "bogus": {0, 1, 2, 3, 4, 5, 6, 7, 8},
	} {
		p, err := rec.HostRatios(ctx, pr, reconcile.HostQuery{Flag: flag})
		if err != nil {
			t.Fatal(err)
		}
		var got, wantIDs []int64
		for _, h := range p.Hosts {
			got = append(got, h.HostID)
			if (flag == "low" || flag == "high") && h.Flag != string(flag) {
				t.Errorf("flag %q lists a host flagged %q", flag, h.Flag)
			}
		}
		for _, i := range want {
			wantIDs = append(wantIDs, ids[i])
		}
		if diff := cmp.Diff(wantIDs, got); diff != "" || p.Total != len(want) {
			t.Errorf("flag %q: total %d (-want +got):\n%s", flag, p.Total, diff)
		}
	}
	// Past the end: nothing listed, the total still told.
	p, err := rec.HostRatios(ctx, pr, reconcile.HostQuery{Flag: "low", Offset: 10})
	if err != nil || len(p.Hosts) != 0 || p.Total != 2 {
		t.Errorf("past the end: %d hosts of %d, %v; want 0 of 2", len(p.Hosts), p.Total, err)
	}
	// A page is never longer than MaxHostPage, whatever is asked.
	if p, _ := rec.HostRatios(ctx, pr, reconcile.HostQuery{Limit: 1 << 30}); p.Query.Limit != reconcile.MaxHostPage {
		t.Errorf("limit %d, want %d", p.Query.Limit, reconcile.MaxHostPage)
	}
}

// A successful run stores its host ratios; the report and its pages then
// read them, and say what the ledgers' sums said.
func TestStoredRatiosReadAsTheLedgers(t *testing.T) {
	t.Parallel()
	rec, live, _, pool := hostPageEnv(t)
	ctx := context.Background()
	type key struct {
		sort reconcile.HostSort
		flag reconcile.HostFlagFilter
		from int
	}
	pages := func(pr reconcile.Report) map[key]reconcile.HostPage {
		out := map[key]reconcile.HostPage{}
		for _, sort := range reconcile.HostSorts {
			for _, flag := range []reconcile.HostFlagFilter{"", "any", "low", "high"} {
				for _, from := range []int{0, 2, 7} {
					p, err := rec.HostRatios(ctx, pr, reconcile.HostQuery{Sort: sort, Flag: flag, Limit: 3, Offset: from})
					if err != nil {
						t.Fatal(err)
					}
					out[key{sort, flag, from}] = p
				}
			}
		}
		return out
	}
	livePages := pages(live)
	// An export of May 9th: the window ends May 8th, the day of the rows.
	if _, err := pool.Exec(ctx, `INSERT INTO reconcile_runs (project_id, started_at, finished_at, status, source, export_time)
		VALUES ($1, '2026-05-10 11:00Z', '2026-05-10 11:01Z', 'ok', 'test', '2026-05-09 06:00Z')`, live.Project.ID); err != nil {
		t.Fatal(err)
	}
	if err := rec.RefreshRatios(ctx, live.Project); err != nil {
		t.Fatal(err)
	}
	stored, err := rec.Report(ctx, live.Project)
	if err != nil {
		t.Fatal(err)
	}
	if stored.LastOK == nil || stored.LastOK.RatiosTo == nil || !stored.LastOK.RatiosTo.Equal(stored.To) ||
		stored.To.Format(time.DateOnly) != "2026-05-08" {
		t.Fatalf("the run's stored window: %+v; want one ending May 8th", stored.LastOK)
	}
	if diff := cmp.Diff(livePages, pages(stored), cmp.Comparer(func(a, b float64) bool { return near(a, b) })); diff != "" {
		t.Errorf("stored pages differ from the ledgers' (-live +stored):\n%s", diff)
	}
	// The ledgers change after the run: the stored report does not.
	if _, err := pool.Exec(ctx, `DELETE FROM confirmed_ledger`); err != nil {
		t.Fatal(err)
	}
	if stored.Hosts != live.Hosts || stored.Flagged != live.Flagged || !near(stored.Median, live.Median) ||
		!near(stored.Granted, live.Granted) || !near(stored.Estimated, live.Estimated) {
		t.Errorf("stored report %+v, live %+v", stored, live)
	}
	again, _ := rec.Report(ctx, live.Project)
	for _, sort := range reconcile.HostSorts {
		for _, flag := range []reconcile.HostFlagFilter{"", "any", "low"} {
			q := reconcile.HostQuery{Sort: sort, Flag: flag, Limit: 3, Offset: 1}
			got, err := rec.HostRatios(ctx, again, q)
			if err != nil {
				t.Fatal(err)
			}
			if got.Total == 0 || !near(again.Granted, 820) {
				t.Errorf("%s/%s: %d hosts, granted %v: the report read the ledgers", sort, flag, got.Total, again.Granted)
			}
		}
	}
}

// A project's days come from the rollups, as of their latest round.
func TestProjectDaysReadTheRollups(t *testing.T) {
	t.Parallel()
	rec, pr, _, pool := hostPageEnv(t)
	ctx := context.Background()
	from, to := time.Date(2026, 5, 7, 0, 0, 0, 0, time.UTC), time.Date(2026, 5, 9, 0, 0, 0, 0, time.UTC)
	may8 := func() reconcile.Day {
		days, err := rec.Days(ctx, pr.Project.ID, 0, from, to)
		if err != nil || len(days) != 3 {
			t.Fatalf("days: %v, %v", days, err)
		}
		return days[1]
	}
	if d := may8(); d.Estimated != 0 || d.Granted != 0 {
		t.Errorf("before any rollup, May 8th: %+v; want nothing", d)
	}
	store := accounting.NewStore(pool, testOptions)
	// A round on May 20th folds every day; May 8th is then the rollups'.
	may20 := time.Date(2026, 5, 20, 0, 0, 0, 0, time.UTC)
	if err := store.Ledger.RebuildRollups(ctx, may20); err != nil {
		t.Fatal(err)
	}
	if d := may8(); !near(d.Estimated, 800) || !near(d.Granted, 820) {
		t.Errorf("from the rollups, May 8th: %+v; want 800 estimated, 820 granted", d)
	}
	// An update the rollups do not see shows that they were read, until a
	// round folds its day again.
	if _, err := pool.Exec(ctx, `UPDATE ledger SET cpu_ec_micro = 0`); err != nil {
		t.Fatal(err)
	}
	if d := may8(); !near(d.Estimated, 800) {
		t.Errorf("May 8th was read from the ledger: %+v", d)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO ledger_dirty_days (day) VALUES ('2026-05-08')`); err != nil {
		t.Fatal(err)
	}
	if err := store.Ledger.Rollup(ctx, may20, may20); err != nil {
		t.Fatal(err)
	}
	if d := may8(); d.Estimated != 0 || !near(d.Granted, 820) {
		t.Errorf("May 8th folded again: %+v; want 0 estimated (the ledger's), 820 granted", d)
	}
}
