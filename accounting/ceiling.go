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
// queries and batch builders Sync uses: in one transaction it locks the
// host (found by its token), reads what an RPC reads, updates the host row
// and upserts the host's host_projects rows and today's ledger rows. It
// leaves out Cobble's decisions (limits, spreading over days, assignment,
// events): each project is credited its growth over the stored counters,
// on today's UTC ledger day. It exists for cmd/cobble-load, whose
// PostgreSQL ceiling must measure the SQL that RPCs send; Cobble itself
// never calls it.
func (s *Store) CeilingSync(ctx context.Context, userID int64, hostToken string, host HostReport,
	reports []CeilingReport, now time.Time) error {
	return op("ceiling sync", s.tx(ctx, func(tx pgx.Tx) error {
		h, err := findHost(ctx, tx, userID, hostToken, host)
		if err != nil {
			return err
		}
		st, err := s.loadRPCState(ctx, tx, userID, h.ID, now)
		if err != nil {
			return err
		}
		pairs := make(map[int64]*hostProject, len(reports))
		changes := make([]creditChange, 0, len(reports))
		day := now.UTC().Truncate(24 * time.Hour)
		for _, r := range reports {
			p := &hostProject{ProjectID: r.ProjectID, Assigned: true, Attached: true}
			if stored := st.pairs[r.ProjectID]; stored != nil {
				p = stored
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
		b := &pgx.Batch{}
		queueHostUpdate(b, h.ID, host, nil, now, h.budget) // the same columns an RPC writes
		saveHostProjects(b, userID, h.ID, pairs)
		saveLedger(b, userID, h.ID, changes)
		s.rewrites.positional(b)
		return tx.SendBatch(ctx, b).Close()
	}))
}
