package accounting

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting/cache"
)

// Every reply carries the volunteer's credit per project over all their
// hosts (<user_total_ec>, <user_avg_ec>): the host's own rows, which the
// RPC reads anyway, plus the sum over their other hosts' host_projects
// rows. That sum is 5 rows for most volunteers and 500 for a farm of 100
// hosts, where it was the RPC's costliest statement (docs/PERFORMANCE.md).
//
// So the steady-state RPC keeps each volunteer's rows in memory: as read
// at most creditTTL ago, updated with the rows of every RPC this instance
// has committed for them since. A reply is exact for what went through
// this instance; what the volunteer's other hosts reported through other
// instances, or a ledger rebuild changed, reaches it within creditTTL.
// BOINC's clients only show the figure (the projects' own totals, which
// the Manager shows beside it, are hours to days old).

// creditTTL is how long a volunteer's credit read from the database is
// used before it is read again.
const creditTTL = time.Minute

// Bounds of the credit cache: the volunteers whose rows it keeps, and the
// hosts whose volunteer it knows (a steady-state RPC names its host by
// token before the database says whose it is).
const (
	maxCachedCredit     = 100_000
	maxCachedHostOwners = 500_000
)

// creditCache is the volunteers' credit per host and project, for the
// steady-state RPC; newCreditCache makes one. Each read and write of it is
// stamped with a sequence number, so that rows read from the database
// never replace rows that an RPC committed after that read began.
type creditCache struct {
	seq    atomic.Uint64
	owners *cache.Cache[string, int64]           // host token → volunteer
	users  *cache.Cache[int64, *volunteerCredit] // volunteer → their rows
	now    func() time.Time                      // the clock of creditTTL

	// storing, when not nil, runs in stored while it takes the
	// volunteer's entry: tests force other reads and commits in there.
	storing func()
}

// volunteerCredit is one volunteer's credit rows by host.
type volunteerCredit struct {
	mu     sync.Mutex
	readAt time.Time // when the rows were last read from the database
	hosts  map[int64]hostCredit
}

// hostCredit is one host's rows, stamped with the creditCache.seq of the
// read or the commit they come from.
type hostCredit struct {
	seq   uint64
	parts []creditPart
}

// creditPart is one host_projects row's credit: the lifetime total in
// micro-Cobblestones and the recent average at avgTime (zero when NULL).
type creditPart struct {
	project    int64
	totalMicro int64
	avg        float64
	avgTime    time.Time
}

func newCreditCache() *creditCache {
	return &creditCache{
		owners: cache.New[string](cache.Options[int64]{Max: maxCachedHostOwners}),
		users:  cache.New[int64](cache.Options[*volunteerCredit]{Max: maxCachedCredit}),
		now:    time.Now,
	}
}

// fresh returns the volunteer that the host token last named and their
// rows, when those were read less than creditTTL ago; ok is false
// otherwise, and the RPC reads the rows.
func (c *creditCache) fresh(hostToken string) (userID int64, vc *volunteerCredit, ok bool) {
	if userID, ok = c.owners.Get(hostToken); !ok {
		return 0, nil, false
	}
	if vc, ok = c.users.Get(userID); !ok {
		return 0, nil, false
	}
	vc.mu.Lock()
	defer vc.mu.Unlock()
	if c.now().Sub(vc.readAt) >= creditTTL {
		return 0, nil, false
	}
	return userID, vc, true
}

// beginRead returns the stamp of a read that is about to be sent.
func (c *creditCache) beginRead() uint64 { return c.seq.Add(1) }

// stored keeps the rows a read stamped seq found for the volunteer, and
// that the host token is theirs. Hosts that an RPC committed after the
// read began keep the committed rows.
func (c *creditCache) stored(userID int64, hostToken string, seq uint64, rows map[int64][]creditPart) *volunteerCredit {
	c.owners.Put(hostToken, userID)
	if c.storing != nil {
		c.storing()
	}
	// One locked get-or-put: of two reads that find no rows kept, both
	// merge into the entry one of them made, so that a commit noted in it
	// meanwhile stays.
	vc, _ := c.users.GetOrPut(userID, &volunteerCredit{hosts: map[int64]hostCredit{}})
	vc.mu.Lock()
	defer vc.mu.Unlock()
	for id, h := range vc.hosts {
		if _, read := rows[id]; !read && h.seq < seq {
			delete(vc.hosts, id) // gone from the database
		}
	}
	for id, parts := range rows {
		if vc.hosts[id].seq < seq {
			vc.hosts[id] = hostCredit{seq: seq, parts: parts}
		}
	}
	vc.readAt = c.now()
	return vc
}

// committed notes the rows that an RPC of the volunteer's host has just
// committed, if their rows are kept.
func (c *creditCache) committed(userID, hostID int64, pairs map[int64]*hostProject) {
	vc, ok := c.users.Get(userID)
	if !ok {
		return
	}
	seq := c.seq.Add(1)
	parts := make([]creditPart, 0, len(pairs))
	for id, p := range pairs {
		parts = append(parts, creditPart{project: id, totalMicro: p.Total.CreditMicro(), avg: p.Avg, avgTime: p.AvgTime})
	}
	vc.mu.Lock()
	defer vc.mu.Unlock()
	if vc.hosts[hostID].seq < seq {
		vc.hosts[hostID] = hostCredit{seq: seq, parts: parts}
	}
}

// others sums the volunteer's credit per project over their hosts but
// hostID, the average decayed to now, as creditColumns does in SQL.
func (vc *volunteerCredit) others(hostID int64, now time.Time) map[int64]projectCredit {
	micro := map[int64]int64{}
	avg := map[int64]float64{}
	vc.mu.Lock()
	for id, h := range vc.hosts {
		if id == hostID {
			continue
		}
		for _, p := range h.parts {
			micro[p.project] += p.totalMicro
			if !p.avgTime.IsZero() {
				avg[p.project] += decayedAverage(p.avg, p.avgTime, now)
			}
		}
	}
	vc.mu.Unlock()
	out := make(map[int64]projectCredit, len(micro))
	for id, m := range micro {
		out[id] = projectCredit{Total: fromMicro(m), Avg: avg[id]}
	}
	return out
}

// creditRowsColumns are a volunteer's host_projects rows as creditPart
// reads them, host first.
var creditRowsColumns = `hp.host_id, hp.project_id, ` + CreditSQL("hp.total_") + `, hp.avg_ec, hp.avg_time`

// queueVolunteerCredit queues the read of every host_projects row of the
// volunteer whose host the host token names.
func queueVolunteerCredit(b *pgx.Batch, hostToken string) {
	b.Queue(`SELECT `+creditRowsColumns+`
		FROM hosts h JOIN host_projects hp ON hp.user_id = h.user_id
		WHERE h.opaque_token = @host_token`, pgx.NamedArgs{"host_token": hostToken})
}

// readVolunteerCredit reads the rows of queueVolunteerCredit's or
// volunteerCreditByID's query, by host; err is the query's.
func readVolunteerCredit(rows pgx.Rows, err error) (map[int64][]creditPart, error) {
	if err != nil {
		return nil, err
	}
	out := map[int64][]creditPart{}
	var host int64
	var p creditPart
	var avgTime *time.Time
	_, err = pgx.ForEachRow(rows, []any{&host, &p.project, &p.totalMicro, &p.avg, &avgTime}, func() error {
		p.avgTime = time.Time{}
		if avgTime != nil {
			p.avgTime = *avgTime
		}
		out[host] = append(out[host], p)
		return nil
	})
	return out, err
}

// volunteerCreditByID reads the volunteer's rows on conn, inside the RPC's
// transaction: for the rare RPC whose host token, by the time the
// database answered, named another volunteer than the cache said.
func volunteerCreditByID(ctx context.Context, conn querier, userID int64) (map[int64][]creditPart, error) {
	return readVolunteerCredit(conn.Query(ctx, `SELECT `+creditRowsColumns+`
		FROM host_projects hp WHERE hp.user_id = $1`, userID))
}
