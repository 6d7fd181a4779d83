package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"runtime"
	"strings"
	"time"
)

// report writes the record of a run: what was run, on what, and the results.
type report struct {
	w io.Writer
}

func (r *report) printf(format string, args ...any) { fmt.Fprintf(r.w, format, args...) }

// header records the command line, the machine and the load's settings.
func (r *report) header(cfg config, args []string) {
	r.printf("cobble-load %s\n", quoteArgs(args))
	r.printf("started %s on %s/%s, %s, GOMAXPROCS %d, %d CPUs\n", time.Now().UTC().Format(time.RFC3339),
		runtime.GOOS, runtime.GOARCH, runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU())
	rate := "as fast as possible"
	if cfg.rate > 0 {
		rate = fmt.Sprintf("paced at %g RPCs/s", cfg.rate)
	}
	r.printf("load: %d workers, %v measured after a %v warm-up, %s, RPC timeout %v\n",
		cfg.concurrency, cfg.duration, cfg.warmup, rate, cfg.timeout)
}

// database records where PostgreSQL runs and the settings in force.
func (r *report) database(ctx context.Context, db *database) error {
	settings, err := db.settings(ctx)
	if err != nil {
		return err
	}
	r.printf("database: %s\n", db.what)
	if db.migrated != "" {
		r.printf("schema: %s\n", db.migrated)
	}
	r.printf("PostgreSQL: %s\n", strings.Join(settings, " "))
	return nil
}

// population records what the run created.
func (r *report) population(cfg config, pop *population, took time.Duration) {
	r.printf("population: %d volunteers × %d hosts = %d hosts, %d projects each = %d (host, project) pairs "+
		"(created in %v; emails load-%s-N@example.org)\n", cfg.users, cfg.hostsPerUser, len(pop.hosts),
		projectsPerHost, len(pop.hosts)*projectsPerHost, took.Round(time.Millisecond), pop.run)
	if len(pop.hosts) < cfg.concurrency {
		r.printf("note: only %d workers, one per host: a host never has two RPCs in flight\n", len(pop.hosts))
	}
}

// load records the measured part of the load phase.
func (r *report) load(cfg config, s stats) {
	r.printf("RPCs: %d sent, %d OK, %d failed in %v\n", s.sent, s.ok, s.failed(), round(s.elapsed))
	for _, line := range s.errorLines() {
		r.printf("  failed: %s\n", line)
	}
	r.printf("throughput: %.1f RPCs/s OK\n", s.perSecond())
	if cfg.rate > 0 && s.perSecond() < 0.95*cfg.rate {
		r.printf("note: below the %g RPCs/s asked for: the workers could not keep up\n", cfg.rate)
	}
	r.printf("latency (OK RPCs, send to whole reply): %s\n", s.latencyLine())
	if cfg.cpuProfile != "" {
		what := "Cobble and the load generator"
		if cfg.url != "" {
			what = "the load generator only"
		}
		r.printf("CPU profile of the measured load (%s): %s\n", what, cfg.cpuProfile)
	}
}

// costs records what one RPC of the measured load cost, in PostgreSQL per
// statement and in CPU.
func (r *report) costs(ctx context.Context, c *costs, rpcs int) error {
	if err := r.statements(ctx, c, rpcs, "RPC", "load"); err != nil {
		return err
	}
	r.cpuTimes(c, rpcs, "RPC", "load", "Cobble's server, the load generator and the Go runtime")
	cpu, err := c.cpu()
	if err != nil || rpcs == 0 || cpu == (cpuSplit{}) {
		return err
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(rpcs) }
	r.printf("CPU per RPC (Go, from a CPU profile of the measured load): Cobble's server %.0f µs, "+
		"the load generator %.0f µs, garbage collection and the rest of the runtime %.0f µs\n",
		per(cpu.server), per(cpu.client), per(cpu.other))
	return nil
}

// statements records what each statement cost per call (an RPC, a
// replayed transaction) of a measured phase, from pg_stat_statements.
func (r *report) statements(ctx context.Context, c *costs, calls int, call, phase string) error {
	st, err := c.statements(ctx, calls)
	if err != nil || len(st) == 0 {
		return err
	}
	total := 0.0
	for _, s := range st {
		total += s.micros
	}
	r.printf("PostgreSQL per %s (pg_stat_statements over the measured %s): %.0f µs of statement time\n",
		call, phase, total)
	for _, s := range st[:min(len(st), 10)] {
		if s.micros < 0.05 {
			break
		}
		r.printf("  %7.1f µs  %5.2f calls  %6.1f buffers  %s\n", s.micros, s.calls, s.buffers, s.query)
	}
	return nil
}

// cpuTimes records the CPU time per call of a measured phase, of
// PostgreSQL and of this process (self says what ran in it).
func (r *report) cpuTimes(c *costs, calls int, call, phase, self string) {
	if !c.cpuMeasured || calls == 0 {
		return
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(calls) }
	r.printf("CPU per %s (/proc and getrusage over the measured %s): PostgreSQL %.0f µs, this process "+
		"(%s) %.0f µs\n", call, phase, per(c.used.pg), self, per(c.used.self))
}

// ceiling records the PostgreSQL ceiling and compares Cobble with it.
func (r *report) ceiling(workers, conns int, rec recording, cobble, pg stats) {
	r.printf("PostgreSQL ceiling: Cobble's own transactions of one recorded steady-state RPC per host, replayed "+
		"with their arguments, batches and COMMIT by %d workers on Cobble's pool of %d connections, each "+
		"host's by one worker; no HTTP, no XML and none of Cobble's decisions (%s)\n", workers, conns, rec)
	r.printf("transactions: %d sent, %d OK, %d failed in %v\n", pg.sent, pg.ok, pg.failed(), round(pg.elapsed))
	for _, line := range pg.errorLines() {
		r.printf("  failed: %s\n", line)
	}
	r.printf("throughput: %.1f tx/s\n", pg.perSecond())
	r.printf("latency (send BEGIN to COMMIT done): %s\n", pg.latencyLine())
	if pg.perSecond() > 0 {
		r.printf("Cobble ÷ PostgreSQL: %.1f RPCs/s ÷ %.1f tx/s = %.2f\n",
			cobble.perSecond(), pg.perSecond(), cobble.perSecond()/pg.perSecond())
	}
}

// quoteArgs renders args as a shell would need them, with the database's
// password hidden.
func quoteArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if name, value, ok := strings.Cut(a, "="); ok && (name == "--db" || name == "-db") {
			a = name + "=" + describeDB(value)
		} else if i > 0 && (args[i-1] == "--db" || args[i-1] == "-db") {
			a = describeDB(a)
		}
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?&;|<>()[]{}~#!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// describeDB shows a connection string without its password.
func describeDB(s string) string {
	if !strings.Contains(s, "://") {
		return "(a keyword/value connection string)"
	}
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return "(a URL that does not parse)"
}

// since is the time since t, rounded for people.
func since(t time.Time) time.Duration { return round(time.Since(t)) }

// round rounds d for people.
func round(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
