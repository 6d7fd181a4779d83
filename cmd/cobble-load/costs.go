package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"
	"github.com/jackc/pgx/v5/pgxpool"
)

// What one RPC costs, so that a regression names its statement or its Go
// code: the statements' time in PostgreSQL (pg_stat_statements, reset
// when the measured load begins) and the CPU time of Cobble's server and
// of the load generator (a CPU profile of the measured load; this tool's
// functions are main's in its binary and carry its import path in tests). --costs=false
// leaves both out, and the throwaway cluster then runs without
// pg_stat_statements, as the tool's builds before it did.

// costs measures the costs of the measured part of the load phase.
type costs struct {
	pool    *pgxpool.Pool // nil: no statement statistics
	file    *os.File      // --cpuprofile's, or nil
	buf     bytes.Buffer  // the profile when there is no file
	profile bool
	started bool
	// pgPID is the throwaway cluster's postmaster, whose CPU time (and
	// this process's) is measured over the phase into used; 0 for none.
	pgPID       int
	cpuAt       cpuTimes
	used        cpuTimes
	cpuMeasured bool
}

// measureCPU makes c measure the CPU time of db's throwaway cluster and
// of this process; with --db it measures none.
func (c *costs) measureCPU(db *database) {
	if db.cluster != nil {
		c.pgPID, _ = db.cluster.PID()
	}
}

// newCosts prepares what cfg asks for: statement statistics when the
// database has pg_stat_statements (made in a throwaway cluster, looked for
// elsewhere), and a CPU profile.
func newCosts(ctx context.Context, cfg config, db *database) (*costs, error) {
	c := &costs{profile: cfg.costs || cfg.cpuProfile != ""}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		c.file = f
	}
	if cfg.costs && cfg.url == "" && hasStatements(ctx, db.pool) {
		c.pool = db.pool
	}
	if cfg.url == "" {
		c.measureCPU(db)
	}
	return c, nil
}

// statementCosts prepares statement statistics alone (no CPU profile),
// for the ceiling's replay, when cfg and the database allow them.
func statementCosts(ctx context.Context, cfg config, db *database) *costs {
	c := &costs{}
	if cfg.costs && cfg.url == "" && hasStatements(ctx, db.pool) {
		c.pool = db.pool
	}
	c.measureCPU(db)
	return c
}

// hasStatements reports whether pg_stat_statements can be read in the
// database, creating the extension where its library is loaded.
func hasStatements(ctx context.Context, pool *pgxpool.Pool) bool {
	var loaded bool
	err := pool.QueryRow(ctx, `SELECT 'pg_stat_statements' = ANY(string_to_array(
		replace(current_setting('shared_preload_libraries'), ' ', ''), ','))`).Scan(&loaded)
	if err != nil || !loaded {
		return false
	}
	_, err = pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`)
	return err == nil
}

// startAt waits until at, then resets the statement statistics and starts
// profiling.
func (c *costs) startAt(ctx context.Context, at time.Time) error {
	if err := sleep(ctx, time.Until(at)); err != nil {
		return err
	}
	if c.pool != nil {
		if _, err := c.pool.Exec(ctx, `SELECT pg_stat_statements_reset()`); err != nil {
			return fmt.Errorf("pg_stat_statements: %w", err)
		}
	}
	if c.pgPID > 0 {
		var err error
		if c.cpuAt, err = readCPUTimes(c.pgPID); err != nil {
			c.pgPID = 0 // not on Linux, or the cluster's processes cannot be read: no CPU split
		}
	}
	if !c.profile {
		return nil
	}
	var w io.Writer = &c.buf
	if c.file != nil {
		w = io.MultiWriter(c.file, &c.buf)
	}
	if err := pprof.StartCPUProfile(w); err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	c.started = true
	return nil
}

// stop ends the measurements: the profile (closing its file) and the
// CPU times.
func (c *costs) stop() error {
	if c.pgPID > 0 {
		if now, err := readCPUTimes(c.pgPID); err == nil {
			c.used, c.cpuMeasured = now.sub(c.cpuAt), true
		}
	}
	if c.started {
		pprof.StopCPUProfile()
	}
	if c.file != nil {
		return c.file.Close()
	}
	return nil
}

// statementCost is one statement's share of an RPC.
type statementCost struct {
	query                  string
	calls, micros, buffers float64 // per RPC; buffers hit or read per call
}

// statements reads what each statement of the load's database cost per
// RPC, the costliest first; nil without statement statistics.
func (c *costs) statements(ctx context.Context, rpcs int) ([]statementCost, error) {
	if c.pool == nil || rpcs == 0 {
		return nil, nil
	}
	rows, err := c.pool.Query(ctx, `
		SELECT query, calls, total_exec_time, shared_blks_hit + shared_blks_read FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND query NOT LIKE '%pg_stat_statements%'
		ORDER BY total_exec_time DESC`)
	if err != nil {
		return nil, fmt.Errorf("pg_stat_statements: %w", err)
	}
	defer rows.Close()
	var out []statementCost
	for rows.Next() {
		var s statementCost
		var calls, blocks int64
		var ms float64
		if err := rows.Scan(&s.query, &calls, &ms, &blocks); err != nil {
			return nil, fmt.Errorf("pg_stat_statements: %w", err)
		}
		s.calls, s.micros = float64(calls)/float64(rpcs), ms*1000/float64(rpcs)
		if calls > 0 {
			s.buffers = float64(blocks) / float64(calls)
		}
		s.query = shorten(s.query, 100)
		out = append(out, s)
	}
	return out, rows.Err()
}

var spaces = regexp.MustCompile(`\s+`)

// shorten puts query on one line of at most n characters.
func shorten(query string, n int) string {
	q := strings.TrimSpace(spaces.ReplaceAllString(query, " "))
	if r := []rune(q); len(r) > n {
		q = string(r[:n-1]) + "…"
	}
	return q
}

// cpuSplit is the CPU time of the profiled load, by who spent it.
type cpuSplit struct {
	server, client, other time.Duration
}

// cpu splits the profile's samples: Cobble's server (its HTTP
// connections' goroutines and Cobble's packages), the load generator (this
// tool's workers and its HTTP client), and the rest (garbage collection,
// the scheduler).
func (c *costs) cpu() (cpuSplit, error) {
	var s cpuSplit
	if !c.started {
		return s, nil
	}
	p, err := profile.Parse(bytes.NewReader(c.buf.Bytes()))
	if err != nil {
		return s, fmt.Errorf("cpu profile: %w", err)
	}
	at := slices.IndexFunc(p.SampleType, func(t *profile.ValueType) bool { return t.Type == "cpu" })
	if at < 0 {
		return s, fmt.Errorf("cpu profile: no cpu samples")
	}
	for _, sample := range p.Sample {
		d := time.Duration(sample.Value[at])
		switch sideOf(sample) {
		case "server":
			s.server += d
		case "client":
			s.client += d
		default:
			s.other += d
		}
	}
	return s, nil
}

// sideOf names who ran a sample, from its stack's functions.
func sideOf(sample *profile.Sample) string {
	for _, loc := range sample.Location {
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			switch name := line.Function.Name; {
			case strings.HasPrefix(name, "net/http.(*conn)."),
				strings.HasPrefix(name, "github.com/cobble-am/cobble/") &&
					!strings.HasPrefix(name, "github.com/cobble-am/cobble/cmd/"):
				return "server"
			case strings.HasPrefix(name, "main."), strings.HasPrefix(name, "github.com/cobble-am/cobble/cmd/cobble-load."),
				strings.HasPrefix(name, "net/http.(*persistConn)."),
				strings.HasPrefix(name, "net/http.(*Transport)."):
				return "client"
			}
		}
	}
	return "other"
}
