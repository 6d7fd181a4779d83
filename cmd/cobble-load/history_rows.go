package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
)

// historyWorkers is how many chunks are written at once.
const historyWorkers = 2

// bulkConn returns a connection that skips the foreign keys' triggers
// (the builder writes rows whose references it has just written): in a
// throwaway cluster the tool connects as a superuser, who may.
func bulkConn(ctx context.Context, pool *pgxpool.Pool) (*pgxpool.Conn, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, `SET session_replication_role = replica`); err != nil {
		conn.Release()
		return nil, fmt.Errorf("skipping foreign-key checks while building (needs a superuser): %w", err)
	}
	return conn, nil
}

// dropLedgerIndexes drops the ledgers' secondary indexes, so that the
// bulk writes maintain only their primary keys, and returns the
// statements that create them again.
func dropLedgerIndexes(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	rows, _ := pool.Query(ctx, `
		SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
		FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
		WHERE t.relname IN ('ledger', 'confirmed_ledger') AND t.relnamespace = 'public'::regnamespace
		  AND NOT i.indisprimary AND NOT i.indisunique`)
	var names, defs []string
	var name, def string
	_, err := pgx.ForEachRow(rows, []any{&name, &def}, func() error {
		// A partitioned table's index is defined ON ONLY the parent; made
		// again it must reach every partition.
		names, defs = append(names, name), append(defs, strings.Replace(def, " ON ONLY ", " ON ", 1))
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if _, err := pool.Exec(ctx, `DROP INDEX `+n); err != nil {
			return nil, err
		}
	}
	return defs, nil
}

// createIndexes runs the statements dropLedgerIndexes returned, two at
// a time.
func createIndexes(ctx context.Context, pool *pgxpool.Pool, defs []string) error {
	var wg sync.WaitGroup
	errs := make([]error, len(defs))
	sem := make(chan struct{}, historyWorkers)
	for i, def := range defs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			conn, err := pool.Acquire(ctx)
			if err != nil {
				errs[i] = err
				return
			}
			defer conn.Release()
			if _, err = conn.Exec(ctx, `SET maintenance_work_mem = '256MB'`); err == nil {
				_, err = conn.Exec(ctx, def)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// addRows writes the ledger and confirmed rows and the pairs' lifetime
// totals, historyChunk hosts at a time, historyWorkers at once.
func (hs *history) addRows(ctx context.Context, pool *pgxpool.Pool, progress func(string, ...any)) error {
	chunks := make(chan int64)
	errs := make(chan error, historyWorkers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done, began := 0, time.Now()
	for range historyWorkers {
		wg.Go(func() {
			conn, err := bulkConn(ctx, pool)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Release()
			for first := range chunks {
				if err := hs.addChunk(ctx, conn, first, first+historyChunk-1); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				done += historyChunk
				if done%(historyChunk*20) == 0 {
					progress("history: %d of %d hosts' rows written in %v", min(done, hs.hosts), hs.hosts, since(began))
				}
				mu.Unlock()
			}
		})
	}
	var err error
send:
	for first := hs.firstHostID; first < hs.firstHostID+int64(hs.hosts); first += historyChunk {
		select {
		case chunks <- first:
		case err = <-errs:
			break send
		case <-ctx.Done():
			err = ctx.Err()
			break send
		}
	}
	close(chunks)
	wg.Wait()
	if err == nil && len(errs) > 0 {
		err = <-errs
	}
	if err != nil {
		return err
	}
	return pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM ledger WHERE host_id >= $1),
		       (SELECT count(*) FROM confirmed_ledger WHERE host_id >= $1)`, hs.firstHostID).
		Scan(&hs.ledgerRows, &hs.confirmedRows)
}

// addChunk writes the rows of hosts first–last, day after day, as Cobble
// writes them: a day's rows lie together, not a host's. A host earns 0.2–1.0 of
// its 8 cores' day on each project; one host in three also has a GPU. The
// projects grant 0.85–1.05 of the estimate two days later, except for one
// host in 97 (a third: flagged low) and one in 89 (three times: high).
func (hs *history) addChunk(ctx context.Context, pool *pgxpool.Conn, first, last int64) error {
	var totals, sums []string
	for _, f := range accounting.UsageFields {
		totals = append(totals, f.Total+" = s."+f.Column)
		sums = append(sums, "sum("+f.Column+") AS "+f.Column)
	}
	from := hs.today.AddDate(0, 0, -(historyDays - 1))
	// Through the ledger's one writer, which also marks the days; the
	// rollups are rebuilt after the history is written.
	_, err := pool.Exec(ctx, accounting.LedgerFrom(`
		SELECT hp.host_id, hp.user_id, hp.project_id, d::date,
			round(x.cpu_s * `+microPerSecond(4e9)+`), x.cpu_s * 1000000,
			CASE WHEN hp.host_id % 3 = 0 THEN round(x.cpu_s * `+microPerSecond(2e12)+`) ELSE 0 END,
			CASE WHEN hp.host_id % 3 = 0 THEN x.cpu_s * 250000 ELSE 0 END,
			x.cpu_s / 3600, CASE WHEN (hp.host_id + x.n) % 29 = 0 THEN 1 ELSE 0 END,
			0, 0, 0, 0, 0, 0
		FROM host_projects hp
		CROSS JOIN generate_series($3::date, $4::date, interval '1 day') AS d
		CROSS JOIN LATERAL (SELECT (d::date - $3::date) AS n) AS k
		CROSS JOIN LATERAL (SELECT k.n, (8 * 86400 / 3 * (20 + (hp.host_id * 31 + k.n * 17 + hp.project_id * 7) % 81)
			/ 100)::bigint AS cpu_s) AS x
		WHERE hp.host_id BETWEEN $1 AND $2 AND hp.project_id = ANY($5)
		ORDER BY d, hp.host_id, hp.project_id`), first, last, from, hs.today, hs.projectIDs())
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	_, err = pool.Exec(ctx, `
		INSERT INTO confirmed_ledger (host_id, project_id, day, user_id, granted_micro)
		SELECT host_id, project_id, day, user_id, round(`+accounting.CreditSQL("")+` *
			CASE WHEN host_id % 97 = 0 THEN 0.3 WHEN host_id % 89 = 0 THEN 3
			     ELSE 0.85 + 0.2 * ((host_id * 13 + (day - $3::date)) % 11) / 10 END)
		FROM ledger WHERE host_id BETWEEN $1 AND $2 AND day <= $3::date - 2 AND project_id = ANY($4)
		ORDER BY day, host_id, project_id`, first, last, hs.today, hs.projectIDs())
	if err != nil {
		return fmt.Errorf("confirmed ledger: %w", err)
	}
	_, err = pool.Exec(ctx, `
		UPDATE host_projects hp SET `+strings.Join(totals, ", ")+`
		FROM (SELECT host_id, project_id, `+strings.Join(sums, ", ")+` FROM ledger
		      WHERE host_id BETWEEN $1 AND $2 AND project_id = ANY($3) GROUP BY host_id, project_id) s
		WHERE hp.host_id = s.host_id AND hp.project_id = s.project_id`, first, last, hs.projectIDs())
	if err != nil {
		return fmt.Errorf("totals: %w", err)
	}
	return nil
}

// microPerSecond is, as SQL, the estimated credit in millionths that a
// second of a device of flops earns.
func microPerSecond(flops float64) string {
	return strconv.FormatFloat(flops*accounting.CobblestoneScale*1e6, 'f', 6, 64)
}
