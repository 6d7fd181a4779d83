package accounting_test

import (
	"context"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
)

// checkValues returns the values that the CHECK constraint named conname
// allows, sorted, as PostgreSQL itself prints the constraint.
func checkValues(t *testing.T, pool *pgxpool.Pool, conname string) []string {
	t.Helper()
	var def string
	err := pool.QueryRow(context.Background(), `SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conname = $1`, conname).Scan(&def)
	if err != nil {
		t.Fatalf("constraint %s: %v", conname, err)
	}
	var values []string
	for _, m := range regexp.MustCompile(`'((?:[^']|'')*)'`).FindAllStringSubmatch(def, -1) {
		values = append(values, strings.ReplaceAll(m[1], "''", "'"))
	}
	slices.Sort(values)
	return values
}

// sortedStrings returns the values of a string type as sorted strings.
func sortedStrings[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	slices.Sort(out)
	return out
}

// EventKinds are the kinds the database allows, and each of those has a
// name and a sentence of its own.
func TestEventKindsMatchTheDatabase(t *testing.T) {
	t.Parallel()
	_, pool := storeAndPool(t)
	allowed := checkValues(t, pool, "accounting_events_kind_check")
	if diff := cmp.Diff(allowed, sortedStrings(accounting.EventKinds)); diff != "" {
		t.Errorf("EventKinds differ from the kinds the database allows (-database +EventKinds):\n%s", diff)
	}
	for _, k := range allowed {
		e := accounting.Event{Kind: accounting.EventKind(k)}
		if strings.HasPrefix(e.Sentence(), "Accounting noticed something") || strings.HasPrefix(e.Kind.String(), "Event (") {
			t.Errorf("%s has no sentence or name of its own: %q, %q", k, e.Sentence(), e.Kind.String())
		}
	}
}

// Every kind of event the RPC records, recorded and read back, tells what
// happened in a sentence of its own, with the detail it recorded.
func TestEveryEventKindIsTold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t)
	hostID := h.sync(time.Hour, &accounting.Counters{CPUEC: 1000, CPUTime: 1000, JobsSuccess: 5}).HostID
	h.sync(time.Hour, &accounting.Counters{CPUEC: 2000, CPUTime: 4600, JobsSuccess: 6})      // +1,000 in an hour: clamped
	h.sync(time.Hour, &accounting.Counters{CPUEC: 1500, CPUTime: 4600, JobsSuccess: 6})      // lower, yet too high to be new: stale
	h.sync(time.Hour, &accounting.Counters{CPUEC: 2, CPUTime: 100, JobsSuccess: 1})          // lower, and could be new: a reset
	h.sync(time.Hour, &accounting.Counters{CPUEC: math.NaN(), CPUTime: 100, JobsSuccess: 1}) // bad counters
	req := h.request(time.Hour, &accounting.Counters{CPUEC: 2, CPUTime: 100, JobsSuccess: 1})
	req.Host.NCPUs = 1_000_000
	if _, err := h.s.Sync.Sync(ctx, req); err != nil {
		t.Fatal(err)
	}
	events, err := h.s.Computers.HostEvents(ctx, hostID, 20)
	if err != nil {
		t.Fatal(err)
	}

	want := map[accounting.EventKind][]string{
		accounting.EventClamp:           {"claimed 1,000 credit for P", "kept 932 aside"},
		accounting.EventStaleReport:     {"older report for P", "1,500 credit, where Cobble had 2,000"},
		accounting.EventReset:           {"counters for P started again from zero"},
		accounting.EventBadCounters:     {"counters for P that cannot be right"},
		accounting.EventImplausibleHost: {"1000000 CPUs"},
	}
	var seen []accounting.EventKind
	for _, ev := range events {
		seen = append(seen, ev.Kind)
		s := ev.Sentence()
		if strings.HasPrefix(s, "Accounting noticed something") {
			t.Errorf("%s: the generic sentence %q", ev.Kind, s)
		}
		for _, part := range want[ev.Kind] {
			if !strings.Contains(s, part) {
				t.Errorf("%s: %q does not say %q", ev.Kind, s, part)
			}
		}
	}
	// A reconciliation run records the credit decreases; package
	// reconcile's TestCreditDecreaseIsTold tells them.
	rpcKinds := slices.DeleteFunc(slices.Clone(accounting.EventKinds),
		func(k accounting.EventKind) bool {
			return k == accounting.EventCreditDecrease || k == accounting.EventFailing || k == accounting.EventFailingCleared
		})
	if diff := cmp.Diff(sortedStrings(rpcKinds), sortedStrings(seen)); diff != "" {
		t.Errorf("kinds recorded (-every kind +recorded):\n%s", diff)
	}
}

// Details stored before EventDetail existed (by maps, by SQL, by hand in
// the demo data) read as they were written; a detail that does not read as
// its kind's is an error naming the event, never a sentence of zeros.
func TestStoredEventDetails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t)
	hostID := h.sync(time.Hour, &accounting.Counters{}).HostID
	const counters = `{"cpu_ec": 41234.5, "cpu_time": 8100000, "gpu_ec": 0, "gpu_time": 0, "njobs_success": 1200, "njobs_error": 4}`
	for _, c := range []struct {
		kind, detail string // detail: an SQL expression
		ok           bool
	}{
		{"reset", `'{"before": ` + counters + `, "after": ` + counters + `}'`, true},
		{"stale_report", `'{"before": ` + counters + `, "after": ` + counters + `}'`, true},
		{"clamp", `'{"requested": ` + counters + `, "clamped": ` + counters + `}'`, true},
		{"implausible_host", `'{"claims": ["1000000 CPUs"]}'`, true},
		{"bad_counters", `'{"reported": "{CPUEC:NaN CPUTime:100 GPUEC:0 GPUTime:0 JobsSuccess:1 JobsError:0}"}'`, true},
		{"credit_decrease", `jsonb_build_object('decrease', 50::float8, 'total_credit', 250::float8, 'since', now())`, true},
		{"clamp", `'{"requested": {"cpu_ec": "many"}, "clamped": {}}'`, false},
		{"clamp", `'{"requested": {"cpu_ec": 10}}'`, false},
		{"reset", `'{"x": 1}'`, false},
		{"credit_decrease", `'{}'`, false},
	} {
		var id int64
		err := h.pool.QueryRow(ctx, `INSERT INTO accounting_events (user_id, host_id, at, kind, detail)
			SELECT user_id, id, now(), $2, `+c.detail+` FROM hosts WHERE id = $1 RETURNING id`, hostID, c.kind).Scan(&id)
		if err != nil {
			t.Fatal(err)
		}
		events, err := h.s.Computers.HostEvents(ctx, hostID, 10)
		switch {
		case c.ok && (err != nil || len(events) != 1):
			t.Errorf("%s %s: %v", c.kind, c.detail, err)
		case c.ok && strings.HasPrefix(events[0].Sentence(), "Accounting noticed something"):
			t.Errorf("%s %s: %q", c.kind, c.detail, events[0].Sentence())
		case !c.ok && (err == nil || !strings.Contains(err.Error(), "event "+strconv.FormatInt(id, 10))):
			t.Errorf("%s %s: events %+v, error %v; want an error naming event %d", c.kind, c.detail, events, err, id)
		}
		if _, err := h.pool.Exec(ctx, `DELETE FROM accounting_events WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
	}
}
