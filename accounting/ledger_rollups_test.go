package accounting_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cobble-am/cobble/accounting"
)

// rollupVsLedger returns, per day, the rollup's (estimated credit, jobs,
// hosts) and the ledger's.
func (h *host) rollupVsLedger() (rollup, ledger map[string][3]int64) {
	h.t.Helper()
	read := func(q string) map[string][3]int64 {
		rows, err := h.pool.Query(context.Background(), q)
		if err != nil {
			h.t.Fatal(err)
		}
		defer rows.Close()
		out := map[string][3]int64{}
		for rows.Next() {
			var day string
			var v [3]int64
			if err := rows.Scan(&day, &v[0], &v[1], &v[2]); err != nil {
				h.t.Fatal(err)
			}
			out[day] = v
		}
		return out
	}
	return read(`SELECT day::text, ec_micro, njobs_success, hosts FROM rollup_days`),
		read(`SELECT day::text, sum(cpu_ec_micro + gpu_ec_micro)::bigint, sum(njobs_success)::bigint,
			count(DISTINCT host_id) FROM ledger GROUP BY day`)
}

func (h *host) dirtyDays() int {
	var n int
	if err := h.pool.QueryRow(context.Background(), `SELECT count(*) FROM ledger_dirty_days`).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

// The rollup folds the recent days, and the older days an RPC spread
// credit over (marked in the RPC's batch), and deleted rows' days.
func TestRollupFoldsChangedDays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t)
	h.sync(time.Hour, &accounting.Counters{CPUEC: 100, CPUTime: 1000, JobsSuccess: 5})
	h.sync(time.Hour, &accounting.Counters{CPUEC: 110, CPUTime: 4600, JobsSuccess: 7})
	if h.dirtyDays() != 0 {
		t.Errorf("an RPC of today marked %d days", h.dirtyDays())
	}
	if err := h.s.Ledger.Rollup(ctx, h.now.AddDate(0, 0, -2), h.now); err != nil {
		t.Fatal(err)
	}
	rollup, ledger := h.rollupVsLedger()
	if diff := cmp.Diff(ledger, rollup); diff != "" || len(rollup) != 1 {
		t.Errorf("after a day (-ledger +rollup):\n%s", diff)
	}

	// Ten days away: the credit is spread over them, and the days before
	// yesterday are marked, since the next round's window misses them.
	h.sync(10*24*time.Hour, &accounting.Counters{CPUEC: 160, CPUTime: 9000, JobsSuccess: 17})
	if n := h.dirtyDays(); n < 8 {
		t.Errorf("an RPC spreading over 10 days marked %d days", n)
	}
	if err := h.s.Ledger.Rollup(ctx, h.now.AddDate(0, 0, -2), h.now); err != nil {
		t.Fatal(err)
	}
	rollup, ledger = h.rollupVsLedger()
	if diff := cmp.Diff(ledger, rollup); diff != "" || len(rollup) < 10 || h.dirtyDays() != 0 {
		t.Errorf("after ten days away (-ledger +rollup), %d days still marked:\n%s", h.dirtyDays(), diff)
	}
	rep, err := h.s.Ledger.RebuildTotals(ctx, true)
	if err != nil || len(rep.Rollups) != 0 {
		t.Errorf("check: %v, rollup differences %+v", err, rep.Rollups)
	}

	// A deletion marks its days; the next round empties them.
	if _, err := h.pool.Exec(ctx, `DELETE FROM hosts`); err != nil {
		t.Fatal(err)
	}
	if h.dirtyDays() < 10 {
		t.Errorf("deleting the host marked %d days", h.dirtyDays())
	}
	if err := h.s.Ledger.Rollup(ctx, h.now.AddDate(0, 0, -2), h.now); err != nil {
		t.Fatal(err)
	}
	if rollup, _ := h.rollupVsLedger(); len(rollup) != 0 {
		t.Errorf("after the host's deletion, the rollup keeps %v", rollup)
	}
}

// A round after days without one folds the days since the last round.
func TestRollupCatchesUpMissedRounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t)
	if err := h.s.Ledger.Rollup(ctx, h.now.AddDate(0, 0, -2), h.now); err != nil {
		t.Fatal(err)
	}
	// RPCs every 12 hours for 5 days, no rollup meanwhile: none is marked.
	for i := range 10 {
		h.sync(12*time.Hour, &accounting.Counters{CPUEC: float64(10 * (i + 1)), CPUTime: float64(3600 * (i + 1)), JobsSuccess: int64(i)})
	}
	if err := h.s.Ledger.Rollup(ctx, h.now.AddDate(0, 0, -2), h.now); err != nil {
		t.Fatal(err)
	}
	rollup, ledger := h.rollupVsLedger()
	if diff := cmp.Diff(ledger, rollup); diff != "" || len(rollup) < 5 {
		t.Errorf("after five days without a round (-ledger +rollup):\n%s", diff)
	}
}

// A round folds from the day before its previous round's, less the time an
// RPC may be in flight: an RPC that began just before midnight and
// committed after the first round of the next day left the day before its
// own unmarked, and the next round folds it.
func TestRollupFoldsWhatAnRPCInFlightWrote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t)                                                                      // May 1, 10:00
	h.sync(time.Minute, &accounting.Counters{CPUEC: 100, CPUTime: 1000, JobsSuccess: 5}) // the baseline
	first := time.Date(2026, 5, 3, 0, 0, 5, 0, time.UTC)
	if err := h.s.Ledger.Rollup(ctx, first.AddDate(0, 0, -1), first); err != nil {
		t.Fatal(err)
	}
	// Begun on May 2 at 23:59:30, before that round, and committed after
	// it: its credit goes to May 1 and 2, neither marked.
	h.sync(first.Add(-35*time.Second).Sub(h.now), &accounting.Counters{CPUEC: 500, CPUTime: 90_000, JobsSuccess: 9})
	if h.dirtyDays() != 0 {
		t.Fatalf("the RPC marked %d days", h.dirtyDays())
	}
	next := first.Add(time.Minute)
	if err := h.s.Ledger.Rollup(ctx, next.AddDate(0, 0, -1), next); err != nil {
		t.Fatal(err)
	}
	rollup, ledger := h.rollupVsLedger()
	if diff := cmp.Diff(ledger, rollup); diff != "" || len(ledger) != 2 {
		t.Errorf("ledger days %v (-ledger +rollup):\n%s", ledger, diff)
	}
}

// volunteerFromLedger returns, per day, a volunteer's estimated credit,
// confirmed credit and jobs summed from the ledger and the confirmed
// ledger themselves, and the same as History shows them.
func (h *host) volunteerFromLedger(userID int64) (ledger, history map[string][3]float64) {
	h.t.Helper()
	ctx := context.Background()
	rows, err := h.pool.Query(ctx, `
		SELECT day::text, sum(ec) / 1e6, sum(granted) / 1e6, sum(jobs) FROM (
			SELECT day, cpu_ec_micro + gpu_ec_micro AS ec, 0 AS granted, njobs_success AS jobs FROM ledger WHERE user_id = $1
			UNION ALL SELECT day, 0, granted_micro, 0 FROM confirmed_ledger WHERE user_id = $1) l
		GROUP BY day`, userID)
	if err != nil {
		h.t.Fatal(err)
	}
	defer rows.Close()
	ledger = map[string][3]float64{}
	for rows.Next() {
		var day string
		var v [3]float64
		if err := rows.Scan(&day, &v[0], &v[1], &v[2]); err != nil {
			h.t.Fatal(err)
		}
		ledger[day] = v
	}
	days, err := h.s.Ledger.History(ctx, userID, 0, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC))
	if err != nil {
		h.t.Fatal(err)
	}
	history = map[string][3]float64{}
	for _, d := range days {
		v := history[d.Day.Format(time.DateOnly)]
		history[d.Day.Format(time.DateOnly)] = [3]float64{v[0] + d.Estimated(), v[1] + d.Confirmed, v[2] + float64(d.JobsOK)}
	}
	return ledger, history
}

// A volunteer's history reads the per-volunteer rollup for the settled
// days and the ledger for the others, and equals the ledger's sums at
// every moment: before any round, after one, after an RPC that spread
// credit over days the last round had settled, and after confirmed credit
// arrived for them.
func TestVolunteerHistoryIsTheLedgersBetweenRounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t) // May 1, 10:00
	var userID int64
	if err := h.pool.QueryRow(ctx, `SELECT user_id FROM hosts`).Scan(&userID); err != nil {
		t.Fatal(err)
	}
	same := func(moment string) {
		t.Helper()
		ledger, history := h.volunteerFromLedger(userID)
		if diff := cmp.Diff(ledger, history); diff != "" || len(ledger) == 0 {
			t.Errorf("%s (-ledger +history):\n%s", moment, diff)
		}
	}
	h.sync(time.Hour, &accounting.Counters{CPUEC: 100, CPUTime: 1000, JobsSuccess: 5})
	h.sync(10*24*time.Hour, &accounting.Counters{CPUEC: 300, CPUTime: 9000, JobsSuccess: 25}) // May 11, over May 1–11
	same("before any round")

	// The first round folds every day; May 1–8 are settled.
	round := h.now.Add(time.Minute)
	if err := h.s.Ledger.Rollup(ctx, round.AddDate(0, 0, -1), round); err != nil {
		t.Fatal(err)
	}
	same("after the first round")
	// The settled days come from the rollup: a change there shows.
	var rolled int
	if err := h.pool.QueryRow(ctx, `SELECT count(*) FROM rollup_volunteer_days WHERE user_id = $1`, userID).
		Scan(&rolled); err != nil || rolled < 8 {
		t.Fatalf("%d rows in rollup_volunteer_days (%v), want one a day of May 1–8", rolled, err)
	}
	if _, err := h.pool.Exec(ctx, `UPDATE rollup_volunteer_days SET njobs_success = njobs_success + 1000 WHERE day = '2026-05-03'`); err != nil {
		t.Fatal(err)
	}
	if _, history := h.volunteerFromLedger(userID); history["2026-05-03"][2] < 1000 {
		t.Errorf("History does not read the rollup for a settled day: %v", history["2026-05-03"])
	}
	rep, err := h.s.Ledger.RebuildTotals(ctx, true)
	if err != nil || len(rep.Rollups) != 1 || rep.Rollups[0].UserID != userID || rep.Rollups[0].Column != "njobs_success" {
		t.Errorf("check of a changed volunteer rollup: %v %+v", err, rep.Rollups)
	}
	if _, err := h.pool.Exec(ctx, `UPDATE rollup_volunteer_days SET njobs_success = njobs_success - 1000 WHERE day = '2026-05-03'`); err != nil {
		t.Fatal(err)
	}

	// A round five days later settles May 9–13; the RPC of May 11 wrote
	// May 10 and 11 unmarked, and that round folds them.
	round = time.Date(2026, 5, 16, 0, 5, 0, 0, time.UTC)
	if err := h.s.Ledger.Rollup(ctx, round.AddDate(0, 0, -1), round); err != nil {
		t.Fatal(err)
	}
	same("after days settled")

	// The host is back after that round: its credit spreads over May
	// 11–16 and marks May 11–14, of which May 11–13 were settled.
	h.sync(5*24*time.Hour+time.Hour, &accounting.Counters{CPUEC: 900, CPUTime: 20000, JobsSuccess: 60})
	if h.dirtyDays() == 0 {
		t.Fatal("the RPC marked no day")
	}
	same("after an RPC over settled days")
	// Confirmed credit for settled days, marked as a reconciliation does.
	if _, err := h.pool.Exec(ctx, `
		INSERT INTO confirmed_ledger (host_id, project_id, day, user_id, granted_micro)
		SELECT host_id, project_id, day, user_id, 7000000 FROM ledger WHERE day BETWEEN '2026-05-02' AND '2026-05-04';
		INSERT INTO ledger_dirty_days (day) VALUES ('2026-05-02'), ('2026-05-03'), ('2026-05-04') ON CONFLICT DO NOTHING`); err != nil {
		t.Fatal(err)
	}
	same("after confirmed credit")
	round = h.now.Add(time.Minute)
	if err := h.s.Ledger.Rollup(ctx, round.AddDate(0, 0, -1), round); err != nil {
		t.Fatal(err)
	}
	same("after the next round")
	if rep, err := h.s.Ledger.RebuildTotals(ctx, true); err != nil || len(rep.Rollups) != 0 || h.dirtyDays() != 0 {
		t.Errorf("check after the next round: %v %+v, %d days marked", err, rep.Rollups, h.dirtyDays())
	}
	// Every day is within the last 30: the summary has them all.
	ledger, _ := h.volunteerFromLedger(userID)
	var want [3]float64
	for _, v := range ledger {
		want = [3]float64{want[0] + v[0], want[1] + v[1], want[2] + v[2]}
	}
	sum, err := h.s.Ledger.Summary(ctx, userID, h.s.Ledger.Today(h.now, "UTC"))
	if got := [3]float64{sum.Last30.Estimated, sum.AllTime.Confirmed, float64(sum.Last30.JobsOK)}; err != nil ||
		!cmp.Equal(got, want, cmpopts.EquateApprox(0, 1e-6)) || want[1] != 21 {
		t.Errorf("summary: last 30 days' credit, all-time confirmed, jobs %v, want %v (%v)", got, want, err)
	}
}

// The first round ever folds every day: an RPC before it left its own day
// and the day before unmarked, and a first round days later must still
// fold them.
func TestRollupFirstRoundFoldsEveryDay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t)                                                                      // May 1, 10:00
	h.sync(time.Minute, &accounting.Counters{CPUEC: 100, CPUTime: 1000, JobsSuccess: 5}) // the baseline
	h.sync(time.Hour, &accounting.Counters{CPUEC: 300, CPUTime: 4600, JobsSuccess: 9})   // May 1, unmarked
	if h.dirtyDays() != 0 {
		t.Fatalf("the RPC marked %d days", h.dirtyDays())
	}
	first := time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC)
	if err := h.s.Ledger.Rollup(ctx, first.AddDate(0, 0, -1), first); err != nil {
		t.Fatal(err)
	}
	rollup, ledger := h.rollupVsLedger()
	if diff := cmp.Diff(ledger, rollup); diff != "" || len(ledger) == 0 {
		t.Errorf("ledger days %v (-ledger +rollup):\n%s", ledger, diff)
	}
}
