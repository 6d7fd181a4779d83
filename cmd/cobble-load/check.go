package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
)

// maxShown bounds the mismatches the report lists.
const maxShown = 10

// baseline gives every host one RPC with its starting counters, which Cobble
// stores as the baseline of later deltas, and checks that it stored them all.
func baseline(ctx context.Context, cfg config, c *rpcClient, db *database, pop *population, out *report) error {
	began := time.Now()
	failed, kind, err := syncAll(ctx, cfg, c, pop, true)
	if err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("baseline: %d of %d hosts had no RPC accepted in %d tries (the last failure: %s)",
			failed, len(pop.hosts), maxTries, kind)
	}
	ids := make([]int64, len(pop.projects))
	for i, p := range pop.projects {
		ids[i] = p.ID
	}
	var n int
	err = db.pool.QueryRow(ctx, `SELECT count(*) FROM host_projects
		WHERE host_id = ANY($1) AND project_id = ANY($2) AND last_cpu_ec_micro IS NOT NULL`,
		pop.hostIDs, ids).Scan(&n)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	if want := len(pop.hosts) * projectsPerHost; n != want {
		return fmt.Errorf("baseline: Cobble stored the counters of %d of %d (host, project) pairs; "+
			"does the server see the load projects in its catalog?", n, want)
	}
	out.printf("baseline: %d RPCs (one per host) accepted in %v\n", len(pop.hosts), since(began))
	return nil
}

// settleAndCheck resends the latest counters of hosts whose last RPC
// failed, so that every host's last report is one Cobble accepted, then
// checks the ledger.
func settleAndCheck(ctx context.Context, cfg config, c *rpcClient, db *database, pop *population, out *report) error {
	unsettled := 0
	for _, h := range pop.hosts {
		if !h.settled() {
			unsettled++
		}
	}
	if unsettled > 0 {
		failed, kind, err := syncAll(ctx, cfg, c, pop, false)
		if err != nil {
			return err
		}
		out.printf("settling: %d hosts whose last RPC failed sent it again; %d still failing (%s)\n",
			unsettled, failed, kind)
	}
	return checkLedger(ctx, db.pool, pop, sentGrowth, out.w, "ledger check")
}

// sentGrowth is what one of h's projects' counters grew by from the
// baseline to the last accepted RPC: what the ledger must hold for it.
func sentGrowth(h *host, i int) accounting.Usage { return h.acked[i].Sub(h.baseline[i]) }

// pairRow is one (host, project)'s lifetime totals and ledger sums.
type pairRow struct {
	hostID, projectID int64
	total, ledger     [6]int64 // in the order of accounting.UsageFields
	clamped           int64    // every clamped amount, summed
}

// checkLedger checks that, for every (host, project) of the population,
// the ledger credited exactly ledger(h, i) (h's ith project), clamped
// nothing, and that the lifetime totals in host_projects are what the
// host's counters grew by between the baseline and the last accepted RPC.
// It writes the verdict under name.
func checkLedger(ctx context.Context, pool *pgxpool.Pool, pop *population, ledger func(h *host, i int) accounting.Usage,
	w io.Writer, name string) error {
	rows, err := loadPairs(ctx, pool, pop.hostIDs)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	want := expectedPairs(pop, ledger)
	var problems []string
	var credited accounting.Usage
	for _, r := range rows {
		exp := want[[2]int64{r.hostID, r.projectID}]
		delete(want, [2]int64{r.hostID, r.projectID})
		problems = append(problems, comparePair(r, exp.ledger.Values(), exp.total.Values())...)
		credited = credited.Add(exp.ledger)
	}
	for k := range want {
		problems = append(problems, fmt.Sprintf("host %d project %d: no host_projects row", k[0], k[1]))
	}
	if len(problems) == 0 {
		fmt.Fprintf(w, "%s: OK (%d pairs; credited %s Cobblestones, %s CPU seconds, %d jobs)\n", name, len(rows),
			micro(credited.CreditMicro()), micro(credited.CPUTime+credited.GPUTime),
			credited.JobsSuccess+credited.JobsError)
		return nil
	}
	fmt.Fprintf(w, "%s: FAILED, %d mismatches in %d pairs; the first:\n", name, len(problems), len(rows))
	for _, p := range problems[:min(len(problems), maxShown)] {
		fmt.Fprintln(w, "  "+p)
	}
	return errors.New(name + " failed")
}

// expectedPair is what the check expects of one (host, project): its
// ledger sums and its lifetime totals since the baseline.
type expectedPair struct {
	ledger, total accounting.Usage
}

// expectedPairs maps each (host ID, project ID) of the population to what
// its ledger must hold and to what its counters grew by from the baseline
// to the last accepted RPC.
func expectedPairs(pop *population, ledger func(h *host, i int) accounting.Usage) map[[2]int64]expectedPair {
	want := make(map[[2]int64]expectedPair, len(pop.hosts)*projectsPerHost)
	for _, h := range pop.hosts {
		for i, p := range pop.projects {
			want[[2]int64{h.id, p.ID}] = expectedPair{ledger: ledger(h, i), total: sentGrowth(h, i)}
		}
	}
	return want
}

// comparePair describes how r differs from the expected ledger sums and
// lifetime totals.
func comparePair(r pairRow, ledger, total [6]int64) []string {
	var out []string
	for i, f := range accounting.UsageFields {
		if r.ledger[i] != ledger[i] {
			out = append(out, fmt.Sprintf("host %d project %d: ledger %s %s, expected %s", r.hostID, r.projectID,
				f.Name, amount(f, r.ledger[i]), amount(f, ledger[i])))
		}
		if r.total[i] != total[i] {
			out = append(out, fmt.Sprintf("host %d project %d: lifetime %s %s, sent %s", r.hostID, r.projectID,
				f.Name, amount(f, r.total[i]), amount(f, total[i])))
		}
	}
	if r.clamped != 0 {
		out = append(out, fmt.Sprintf("host %d project %d: %d micro-units clamped", r.hostID, r.projectID, r.clamped))
	}
	return out
}

// amount formats v, an amount of counter f, for people.
func amount(f accounting.UsageField, v int64) string { return string(appendAmount(nil, f, v)) }

// loadPairs reads the totals and ledger sums of the hosts' projects: per
// counter of accounting.UsageFields, its lifetime total, its ledger sum,
// and the sum of everything clamped.
func loadPairs(ctx context.Context, pool *pgxpool.Pool, hostIDs []int64) ([]pairRow, error) {
	var totals, ledger, sums, clamped []string
	for _, f := range accounting.UsageFields {
		totals, ledger = append(totals, "hp."+f.Total), append(ledger, "coalesce(l."+f.Column+", 0)")
		sums, clamped = append(sums, "sum("+f.Column+")::bigint AS "+f.Column), append(clamped, f.Clamped)
	}
	rows, _ := pool.Query(ctx, `
		SELECT hp.host_id, hp.project_id, `+strings.Join(totals, ", ")+`,
			`+strings.Join(ledger, ", ")+`, coalesce(l.clamped, 0)
		FROM host_projects hp LEFT JOIN (
			SELECT host_id, project_id, `+strings.Join(sums, ", ")+`,
				sum(`+strings.Join(clamped, " + ")+`)::bigint AS clamped
			FROM ledger WHERE host_id = ANY($1) GROUP BY host_id, project_id
		) l USING (host_id, project_id)
		WHERE hp.host_id = ANY($1)
		ORDER BY hp.host_id, hp.project_id`, hostIDs)
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (pairRow, error) {
		var r pairRow
		dest := []any{&r.hostID, &r.projectID}
		for i := range r.total {
			dest = append(dest, &r.total[i])
		}
		for i := range r.ledger {
			dest = append(dest, &r.ledger[i])
		}
		return r, row.Scan(append(dest, &r.clamped)...)
	})
}
