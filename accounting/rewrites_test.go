package accounting

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// rpcBatch queues the RPC's reads and writes as the RPC does, with values
// that differ from call to call.
func rpcBatch(hostID int64) *pgx.Batch {
	now := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	last := Usage{CPUEC: 5, CPUTime: 7, JobsSuccess: 1}
	pairs := map[int64]*hostProject{3: {ProjectID: 3, Assigned: true, Last: &last, ReportedAt: now}}
	changes := []creditChange{{ProjectID: 3, Days: []DayUsage{{Day: now.Truncate(24 * time.Hour), Credited: last}}}}
	b := &pgx.Batch{}
	queueKnownHostState(b, "host-token")
	queueVolunteerCredit(b, "host-token")
	queueRPCState(b, 1, hostID, now)
	queueHostUpdate(b, 1, hostID, HostReport{CPID: "cpid", NCPUs: 2, PFPOps: 1e9}, nil, now, budget{}, pauseDecision{})
	saveHostProjects(b, 1, hostID, pairs)
	saveLedger(b, 1, hostID, now, changes)
	saveEvents(b, 1, hostID, now, []event{{Kind: EventClamp, Detail: EventDetail{Requested: &Counters{}, Clamped: &Counters{}}}})
	b.Queue(`SELECT @missing::int, @host_id::bigint`, pgx.NamedArgs{"host_id": hostID})
	b.Queue(`SELECT $1::bigint`, hostID)
	return b
}

// TestRewritesMatchPGX: the cached rewriting of every RPC query is exactly
// the one pgx makes itself, on the first call and on later calls with other
// values; a query naming an argument its map lacks is left to pgx.
func TestRewritesMatchPGX(t *testing.T) {
	c := newRewrites()
	for _, hostID := range []int64{11, 12} {
		want := rpcBatch(hostID)
		got := rpcBatch(hostID)
		c.positional(got)
		for i, q := range want.QueuedQueries {
			wantSQL, wantArgs := q.SQL, q.Arguments
			if na, ok := q.Arguments[0].(pgx.NamedArgs); ok && len(q.Arguments) == 1 && i != len(want.QueuedQueries)-2 {
				var err error
				if wantSQL, wantArgs, err = na.RewriteQuery(context.Background(), nil, q.SQL, nil); err != nil {
					t.Fatal(err)
				}
			}
			g := got.QueuedQueries[i]
			if g.SQL != wantSQL {
				t.Errorf("host %d, query %d: SQL\n%s\nwant\n%s", hostID, i, g.SQL, wantSQL)
			}
			if diff := cmp.Diff(wantArgs, g.Arguments); diff != "" {
				t.Errorf("host %d, query %d: arguments (-want +got):\n%s", hostID, i, diff)
			}
		}
	}
	if n := c.m.Len(); n == 0 || n >= len(rpcBatch(1).QueuedQueries) {
		t.Errorf("%d rewritings cached, want one per rewritable query text", n)
	}
}
