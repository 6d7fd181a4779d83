package main

import (
	"context"
	"crypto/sha256"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
)

// The ceiling's SQL is the tool's own, written after a steady-state RPC's
// (accounting's lockKnownHost, queueHostUpdate, saveHostProjects and
// saveLedger): the same tables, rows and round trips. Cobble's RPC
// queries may change without it; compare them when the ceiling moves.

// storedPair is a (host, project)'s counters as the database holds them.
type storedPair struct {
	last  *[6]int64 // nil: no baseline yet
	total [6]int64
}

// The counters' column lists of the statements below, built once from
// accounting.UsageFields.
var (
	lastOfHP      = accounting.UsageList("hp.%s", accounting.LastColumn)
	totalOfHP     = accounting.UsageList("hp.%s", accounting.TotalColumn)
	lastColumns   = accounting.UsageList("%s", accounting.LastColumn)
	totalColumns  = accounting.UsageList("%s", accounting.TotalColumn)
	setLast       = accounting.UsageList("%[1]s = EXCLUDED.%[1]s", accounting.LastColumn)
	setTotal      = accounting.UsageList("%[1]s = EXCLUDED.%[1]s", accounting.TotalColumn)
	ledgerColumns = accounting.UsageList("%s", accounting.LedgerColumn)
	addLedger     = accounting.UsageList("%[1]s = l.%[1]s + EXCLUDED.%[1]s", accounting.LedgerColumn)
)

// accountTx does one RPC's database work for h, crediting each project
// the growth of h.sent over the stored counters on today's UTC day, in two
// round trips: lockHost, then the writes and COMMIT.
func accountTx(ctx context.Context, pool *pgxpool.Pool, h *host, projectIDs [projectsPerHost]int64, now time.Time) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	hostID, userID, stored, err := lockHost(ctx, conn, h)
	if err == nil {
		b := &pgx.Batch{}
		queueHostUpdate(b, hostID, h, now)
		queueCredit(b, hostID, userID, h, projectIDs, stored, now)
		b.Queue(`COMMIT`)
		err = conn.SendBatch(ctx, b).Close()
	}
	if err != nil {
		conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`)
	}
	return err
}

// lockHost begins the transaction and, in one round trip, checks h's AM
// token, locks the host its host token names, and reads its project rows
// and the volunteer's credit on their other hosts, as an RPC does.
func lockHost(ctx context.Context, conn *pgxpool.Conn, h *host) (hostID, userID int64, stored map[int64]storedPair, err error) {
	tokenHash := sha256.Sum256([]byte(h.auth))
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(`SELECT set_config('synchronous_commit', 'off', true),
		set_config('plan_cache_mode', 'force_generic_plan', true)`)
	b.Queue(`
		SELECT h.id, h.user_id FROM am_tokens t JOIN users u ON u.id = t.user_id
		JOIN hosts h ON h.user_id = t.user_id AND h.opaque_token = $2
		WHERE t.token_hash = $1 AND u.disabled_at IS NULL
		FOR UPDATE OF h`, tokenHash[:], h.token)
	b.Queue(`
		SELECT hp.project_id, `+lastOfHP+`,
			`+totalOfHP+`
		FROM hosts h JOIN host_projects hp ON hp.host_id = h.id
		WHERE h.opaque_token = $1`, h.token)
	b.Queue(`
		SELECT hp.project_id, sum(`+accounting.CreditSQL("hp.total_")+`)
		FROM hosts h JOIN host_projects hp ON hp.user_id = h.user_id AND hp.host_id <> h.id
		WHERE h.opaque_token = $1
		GROUP BY hp.project_id`, h.token)
	br := conn.SendBatch(ctx, b)
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	for range 2 {
		if _, err = br.Exec(); err != nil {
			return 0, 0, nil, err
		}
	}
	if err = br.QueryRow().Scan(&hostID, &userID); err != nil {
		return 0, 0, nil, err
	}
	if stored, err = readStored(br); err != nil {
		return 0, 0, nil, err
	}
	_, err = br.Exec() // the other hosts' credit: read, as an RPC reads it
	return hostID, userID, stored, err
}

// readStored reads the host's project rows that lockHost queued.
func readStored(br pgx.BatchResults) (map[int64]storedPair, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	stored := map[int64]storedPair{}
	var id int64
	var last [6]*int64
	var p storedPair
	dest := []any{&id, &last[0], &last[1], &last[2], &last[3], &last[4], &last[5],
		&p.total[0], &p.total[1], &p.total[2], &p.total[3], &p.total[4], &p.total[5]}
	_, err = pgx.ForEachRow(rows, dest, func() error {
		p.last = nil
		if last[0] != nil {
			p.last = &[6]int64{}
			for i, v := range last {
				if v != nil {
					p.last[i] = *v
				}
			}
		}
		stored[id] = p
		return nil
	})
	return stored, err
}

// queueHostUpdate writes the host row as an RPC does: what the client
// reports of the computer (the fixture's) and when it called.
func queueHostUpdate(b *pgx.Batch, hostID int64, h *host, now time.Time) {
	b.Queue(`
		UPDATE hosts SET host_cpid = $2, domain_name = 'vm', client_version = '7.20.5',
			platforms = '{x86_64-pc-linux-gnu}', os_name = 'Linux Debian',
			os_version = 'Debian GNU/Linux 12 (bookworm) [6.18.44-fc-v657|libc 2.36]',
			p_vendor = 'AuthenticAMD', p_model = 'AMD EPYC [Family 25 Model 17 Stepping 1]',
			ncpus = 2, p_fpops = 1e9, m_nbytes = 25276510208, coprocs = '[]',
			last_rpc_at = $3, rpc_count = rpc_count + 1, budget_at = $3
		WHERE id = $1`, hostID, h.cpid, now)
}

// queueCredit upserts the host's project rows (new last counters and
// lifetime totals) and today's ledger rows (the growth).
func queueCredit(b *pgx.Batch, hostID, userID int64, h *host, projectIDs [projectsPerHost]int64,
	stored map[int64]storedPair, now time.Time) {
	var last, total, delta [6][]int64
	hostIDs := make([]int64, len(projectIDs))
	for i, pid := range projectIDs {
		sent := h.sent[i].Values()
		st := stored[pid]
		base := sent // no baseline: store one, credit nothing
		if st.last != nil {
			base = *st.last
		}
		for f := range sent {
			last[f] = append(last[f], sent[f])
			delta[f] = append(delta[f], sent[f]-base[f])
			total[f] = append(total[f], st.total[f]+sent[f]-base[f])
		}
		hostIDs[i] = h.projectHostIDs[i]
	}
	ids := projectIDs[:]
	b.Queue(`
		INSERT INTO host_projects AS hp (host_id, user_id, project_id, assigned, attached, project_hostid,
			`+lastColumns+`, reported_at,
			`+totalColumns+`)
		SELECT $1, $2, u.id, true, true, u.hostid, u.l0, u.l1, u.l2, u.l3, u.l4, u.l5, $4,
			u.t0, u.t1, u.t2, u.t3, u.t4, u.t5
		FROM unnest($3::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[],
			$10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[],
			$16::bigint[], $17::bigint[]) AS u (id, hostid, l0, l1, l2, l3, l4, l5, t0, t1, t2, t3, t4, t5)
		ON CONFLICT (host_id, project_id, user_id) DO UPDATE SET
			assigned = EXCLUDED.assigned, attached = EXCLUDED.attached, project_hostid = EXCLUDED.project_hostid,
			`+setLast+`,
			reported_at = EXCLUDED.reported_at,
			`+setTotal,
		hostID, userID, ids, now, hostIDs, last[0], last[1], last[2], last[3], last[4], last[5],
		total[0], total[1], total[2], total[3], total[4], total[5])
	b.Queue(`
		INSERT INTO ledger AS l (host_id, user_id, project_id, day,
			`+ledgerColumns+`)
		SELECT $1, $2, u.* FROM unnest($3::bigint[], $4::date[], $5::bigint[], $6::bigint[], $7::bigint[],
			$8::bigint[], $9::bigint[], $10::bigint[]) AS u
		ON CONFLICT (host_id, project_id, day, user_id) DO UPDATE SET
			`+addLedger,
		hostID, userID, ids, sameDay(len(ids), now), delta[0], delta[1], delta[2], delta[3], delta[4], delta[5])
}

// sameDay returns n times now's UTC day.
func sameDay(n int, now time.Time) []time.Time {
	day := now.UTC().Truncate(24 * time.Hour)
	days := make([]time.Time, n)
	for i := range days {
		days[i] = day
	}
	return days
}
