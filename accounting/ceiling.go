package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// CeilingReport is one project's lifetime counters, in millionths, as a
// ceiling RPC reports them.
type CeilingReport struct {
	ProjectID     int64
	ProjectHostID int64
	Counters      Usage
}

// CeilingSync does the database work of one RPC of a known host, with the
// queries, batch builders and round trips Sync uses: the host's volunteer
// presents authenticator, and in one transaction it locks the host that
// hostToken names, reads what an RPC reads (the preferences aside: an RPC
// keeps them in memory), updates the host row and upserts the host's
// host_projects rows and today's ledger rows. It leaves out Cobble's
// decisions (limits, spreading over days, assignment, events): each project
// is credited its growth over the stored counters, on today's UTC ledger
// day. It exists for cmd/cobble-load, whose PostgreSQL ceiling must
// measure the SQL that RPCs send; Cobble itself never calls it.
func (s *Store) CeilingSync(ctx context.Context, authenticator, hostToken string, host HostReport,
	reports []CeilingReport, now time.Time) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return op("ceiling sync", err)
	}
	defer conn.Release()
	k, err := s.lockKnownHost(ctx, conn, authenticator, hostToken, now)
	if err == nil {
		b := &pgx.Batch{}
		pairs, changes := ceilingCredit(k.state.pairs, reports, now)
		queueHostUpdate(b, k.host.ID, host, nil, now, k.host.budget) // the same columns an RPC writes
		saveHostProjects(b, k.user.ID, k.host.ID, pairs)
		saveLedger(b, k.user.ID, k.host.ID, changes)
		b.Queue(`COMMIT`)
		s.rewrites.positional(b)
		err = conn.SendBatch(ctx, b).Close()
	}
	if err != nil {
		conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`)
	}
	return op("ceiling sync", err)
}

// ceilingCredit credits each reported project its growth over the stored
// counters, on today's UTC ledger day.
func ceilingCredit(stored map[int64]*hostProject, reports []CeilingReport, now time.Time) (map[int64]*hostProject, []creditChange) {
	pairs := make(map[int64]*hostProject, len(reports))
	changes := make([]creditChange, 0, len(reports))
	day := now.UTC().Truncate(24 * time.Hour)
	for _, r := range reports {
		p := &hostProject{ProjectID: r.ProjectID, Assigned: true, Attached: true}
		if st := stored[r.ProjectID]; st != nil {
			p = st
		}
		var last Usage
		if p.Last != nil {
			last = *p.Last
		}
		delta := r.Counters.Sub(last)
		p.ProjectHostID, p.Last, p.ReportedAt, p.Total = r.ProjectHostID, &r.Counters, now, p.Total.Add(delta)
		pairs[r.ProjectID] = p
		changes = append(changes, creditChange{ProjectID: r.ProjectID,
			Days: []DayUsage{{Day: day, Credited: delta}}})
	}
	return pairs, changes
}
