package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// measureHistory builds the history (or finds the one an earlier run kept)
// and measures it in --rounds rounds. Each round runs the RPC load on an
// empty database beside it and on the history, one after the other, so
// that their ratio comes from one moment of the machine; checks the ledger; times a rollup
// round; measures the pages; and reconciles an export.
func measureHistory(ctx context.Context, cfg config, db *database, tgt *target, client *rpcClient,
	pop *population, out *report, logw io.Writer) error {
	progress := func(format string, args ...any) { fmt.Fprintf(logw, "cobble-load: "+format+"\n", args...) }
	hs, err := findHistory(ctx, db.pool, cfg)
	if err != nil {
		return err
	}
	if hs != nil {
		out.printf("history: %d volunteers, %d hosts × %d projects × %d days: %d ledger rows, %d confirmed rows "+
			"(built by an earlier run, found in the database)\n", hs.volunteers, hs.hosts, historyProjects,
			historyDays, hs.ledgerRows, hs.confirmedRows)
	} else if hs, err = newHistory(ctx, cfg, db, tgt, pop, out, progress); err != nil {
		return err
	}
	var th *teamsOnHistory
	if cfg.teams.teams > 0 {
		if th, err = addTeams(ctx, cfg, db, tgt, hs, out, progress); err != nil {
			return err
		}
	}
	if err := out.sizes(ctx, db); err != nil {
		return err
	}
	if cfg.history.mixed.on {
		return measureMixed(ctx, cfg, db, tgt, client, pop, hs, tgt.relay, out, logw)
	}
	empty, err := openEmpty(ctx, cfg, db, out, logw)
	if err != nil {
		return err
	}
	defer empty.close(ctx, db, logw)

	dir, err := os.MkdirTemp("", "cobble-load-export-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := ""
	if cfg.history.exportHosts > 0 || th != nil {
		if bin, err = cobbleBinary(ctx, cfg, dir, logw); err != nil {
			return err
		}
	}
	var rounds []roundResult
	var teamRounds []teamsResult
	for i := range cfg.history.rounds {
		out.printf("\nround %d of %d\n", i+1, cfg.history.rounds)
		r, err := measureRound(ctx, i, cfg, db, tgt, client, pop, empty, hs, bin, dir, out, logw)
		if err != nil {
			return err
		}
		rounds = append(rounds, r)
		if th != nil {
			t, err := measureTeams(ctx, db, tgt, hs, th, bin, cfg.history.pageRequests, out, logw)
			if err != nil {
				return err
			}
			teamRounds = append(teamRounds, t)
		}
	}
	out.rounds(hs, rounds)
	out.teamRounds(th, teamRounds)
	return nil
}

// newHistory builds the history and records what it took.
func newHistory(ctx context.Context, cfg config, db *database, tgt *target, pop *population, out *report,
	progress func(string, ...any)) (*history, error) {
	began := time.Now()
	hs, err := buildHistory(ctx, db.pool, tgt.store, cfg, pop.run, progress)
	if err != nil {
		return nil, err
	}
	built := time.Since(began)
	began = time.Now()
	if _, err := db.pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		return nil, fmt.Errorf("history: vacuum: %w", err)
	}
	out.printf("history: %d volunteers, %d hosts × %d projects × %d days: %d ledger rows, %d confirmed rows "+
		"(built in %v, VACUUM ANALYZE %v)\n", hs.volunteers, hs.hosts, historyProjects, historyDays,
		hs.ledgerRows, hs.confirmedRows, round(built), since(began))
	return hs, nil
}

// roundResult is what one round measured.
type roundResult struct {
	ratio  float64         // RPCs/s with the history ÷ on the empty database
	rollup time.Duration   // one rollup round on the history
	pages  []time.Duration // each history page's p99 (for a download, its first byte's)
	export exportResult
}

// runLoadPlain is runLoad with no costs measured but --cpuprofile's.
func runLoadPlain(ctx context.Context, cfg config, db *database, client *rpcClient, pop *population) (stats, error) {
	cfg.costs = false
	cost, err := newCosts(ctx, cfg, db)
	if err != nil {
		return stats{}, err
	}
	return runLoad(ctx, cfg, client, pop, cost)
}

// measureRound is one round of measureHistory.
func measureRound(ctx context.Context, n int, cfg config, db *database, tgt *target, client *rpcClient,
	pop *population, empty *emptyDatabase, hs *history, bin, dir string, out *report, logw io.Writer) (roundResult, error) {
	var r roundResult
	// The two loads take turns going first, so that neither always meets
	// the other's leftovers (checkpoints, autovacuum).
	loadEmpty := func() (stats, error) {
		out.printf("RPC load on an empty database:\n")
		s, err := runLoadPlain(ctx, cfg, db, empty.client, empty.pop)
		if err == nil {
			out.load(cfg, s)
		}
		return s, err
	}
	loadHistory := func() (stats, error) {
		out.printf("RPC load with the history:\n")
		s, err := runLoadPlain(ctx, cfg, db, client, pop)
		if err == nil {
			out.load(cfg, s)
		}
		return s, err
	}
	var before, after stats
	var err error
	if n%2 == 0 {
		before, err = loadEmpty()
		if err == nil {
			after, err = loadHistory()
		}
	} else {
		after, err = loadHistory()
		if err == nil {
			before, err = loadEmpty()
		}
	}
	if err != nil {
		return r, err
	}
	if b := before.perSecond(); b > 0 {
		r.ratio = after.perSecond() / b
		verdict := "within"
		if r.ratio < 0.9 {
			verdict = "BELOW"
		}
		out.printf("RPC throughput with the history ÷ on the empty database: %.3f (target ≥ 0.9) %s\n", r.ratio, verdict)
	}
	out.printf("the empty database: ")
	if err := settleAndCheck(ctx, cfg, empty.client, empty.db, empty.pop, out); err != nil {
		return r, fmt.Errorf("the empty database: %w", err)
	}
	if err := settleAndCheck(ctx, cfg, client, db, pop, out); err != nil {
		return r, err
	}
	if r.rollup, err = timeRollup(ctx, db, tgt); err != nil {
		return r, err
	}
	out.printf("rollup round on the history (the days it folds again, as every minute): %v\n", round(r.rollup))
	if cfg.history.pages {
		if r.pages, err = measurePages(ctx, db.pool, tgt.store, tgt.urls[0], hs, pop.run, cfg.history.pageRequests, out); err != nil {
			return r, err
		}
	}
	if cfg.history.exportHosts > 0 {
		r.export, err = reconcileExport(ctx, cfg, bin, dir, db.url, hs, out, logw)
	}
	return r, err
}

// timeRollup times a rollup round on the history. The server's own rounds
// take the same lock, and a round that finds it taken does nothing: a
// round counts only once it has recorded its time as the latest.
func timeRollup(ctx context.Context, db *database, tgt *target) (time.Duration, error) {
	for {
		began := time.Now().UTC().Truncate(time.Microsecond)
		if err := tgt.store.Ledger.Rollup(ctx, began.Add(-time.Minute), began); err != nil {
			return 0, err
		}
		took := time.Since(began)
		var at time.Time
		if err := db.pool.QueryRow(ctx, `SELECT at FROM system_counts WHERE name = 'rollup_day'`).Scan(&at); err != nil {
			return 0, fmt.Errorf("rollup: %w", err)
		}
		if at.Equal(began) {
			return took, nil
		}
		if err := sleep(ctx, time.Second); err != nil {
			return 0, err
		}
	}
}

// emptyDatabase is a database beside the history's, with its own Cobble in
// this process and a population like the history database's, on which a
// round measures the RPC load the history's is compared with.
type emptyDatabase struct {
	name   string
	db     *database
	tgt    *target
	pop    *population
	client *rpcClient
}

// emptyDatabaseName is the empty database's name on the history's server.
const emptyDatabaseName = "cobble_load_empty"

// openEmpty makes the empty database afresh on the history database's
// server, serves Cobble on it, and gives its population their baseline.
func openEmpty(ctx context.Context, cfg config, db *database, out *report, logw io.Writer) (*emptyDatabase, error) {
	e := &emptyDatabase{name: emptyDatabaseName}
	for _, q := range []string{`DROP DATABASE IF EXISTS %s WITH (FORCE)`, `CREATE DATABASE %s`} {
		if _, err := db.pool.Exec(ctx, fmt.Sprintf(q, pgx.Identifier{e.name}.Sanitize())); err != nil {
			return nil, fmt.Errorf("the empty database: %w", err)
		}
	}
	u, err := url.Parse(db.url)
	if err != nil {
		return nil, fmt.Errorf("the empty database: %w", err)
	}
	u.Path = "/" + e.name
	ecfg := cfg
	ecfg.dbURL, ecfg.clusterDir = u.String(), ""
	if e.db, err = openDatabase(ctx, ecfg, logw); err != nil {
		return nil, fmt.Errorf("the empty database: %w", err)
	}
	if e.tgt, err = startTarget(ctx, ecfg, e.db, logw); err != nil {
		e.db.close(logw)
		return nil, fmt.Errorf("the empty database: %w", err)
	}
	if e.pop, err = createPopulation(ctx, e.db.pool, e.tgt.store, ecfg); err == nil {
		e.client = newRPCClient(e.tgt.urls, cfg.concurrency, cfg.timeout)
		out.printf("the empty database (%s, on the same server): ", e.name)
		err = baseline(ctx, ecfg, e.client, e.db, e.pop, out)
	}
	if err != nil {
		e.close(ctx, db, logw)
		return nil, fmt.Errorf("the empty database: %w", err)
	}
	return e, nil
}

// close stops the empty database's Cobble and drops it.
func (e *emptyDatabase) close(ctx context.Context, db *database, logw io.Writer) {
	if e.client != nil {
		e.client.close()
	}
	e.tgt.close(logw)
	e.db.close(logw)
	if _, err := db.pool.Exec(context.WithoutCancel(ctx),
		fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, pgx.Identifier{e.name}.Sanitize())); err != nil {
		fmt.Fprintln(logw, "cobble-load: dropping the empty database:", err)
	}
}

// rounds records, when there were several, each figure's minimum, median
// and maximum over the rounds.
func (r *report) rounds(hs *history, rounds []roundResult) {
	if len(rounds) < 2 {
		return
	}
	r.printf("\nover the %d rounds: minimum / median / maximum\n", len(rounds))
	line := func(name string, values []float64, unit string) {
		slices.Sort(values)
		f := func(v float64) string { return fmt.Sprintf("%.3g%s", v, unit) }
		if unit == " ms" || unit == " s" || unit == " MiB" {
			f = func(v float64) string { return fmt.Sprintf("%.1f%s", v, unit) }
		}
		r.printf("  %-40s %s / %s / %s\n", name, f(values[0]), f(values[len(values)/2]), f(values[len(values)-1]))
	}
	collect := func(get func(roundResult) float64) []float64 {
		var vs []float64
		for _, x := range rounds {
			vs = append(vs, get(x))
		}
		return vs
	}
	line("RPC throughput with the history ÷ empty", collect(func(x roundResult) float64 { return x.ratio }), "")
	line("rollup round", collect(func(x roundResult) float64 { return x.rollup.Seconds() * 1000 }), " ms")
	for i, p := range historyPages(hs) {
		if len(rounds[0].pages) <= i {
			break
		}
		name := p.name + ", p99"
		if p.download {
			name = p.name + ", first byte, p99"
		}
		line(name, collect(func(x roundResult) float64 { return x.pages[i].Seconds() * 1000 }), " ms")
	}
	if rounds[0].export.took > 0 {
		line("export reconciliation", collect(func(x roundResult) float64 { return x.export.took.Seconds() }), " s")
		line("export reconciliation, peak RSS",
			collect(func(x roundResult) float64 { return float64(x.export.rss) / (1 << 20) }), " MiB")
	}
}

// sizes records the database's size and its largest tables'.
func (r *report) sizes(ctx context.Context, db *database) error {
	var total, ledger, confirmed string
	// A partitioned table's size is its partitions'.
	err := db.pool.QueryRow(ctx, `SELECT pg_size_pretty(pg_database_size(current_database())),
		pg_size_pretty((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('ledger'))),
		pg_size_pretty((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('confirmed_ledger')))`).
		Scan(&total, &ledger, &confirmed)
	if err != nil {
		return fmt.Errorf("sizes: %w", err)
	}
	r.printf("database size: %s (ledger with its indexes %s, confirmed ledger %s)\n", total, ledger, confirmed)
	return nil
}
