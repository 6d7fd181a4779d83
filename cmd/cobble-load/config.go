package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// errUsage marks errors in the command line.
var errUsage = errors.New("usage")

// config is one run of the tool, as the flags set it.
type config struct {
	dbURL        string        // the database; "" starts a throwaway cluster
	url          string        // running Cobbles' base URLs, comma-separated; "" serves in-process
	users        int           // volunteers
	hostsPerUser int           // hosts per volunteer
	concurrency  int           // workers sending RPCs at once
	duration     time.Duration // the measured part of the load
	warmup       time.Duration // load before it, not counted
	rate         float64       // RPCs per second in all; 0 = as fast as possible
	timeout      time.Duration // for one RPC
	cpuProfile   string        // file for a CPU profile of the measured load
	pgDurable    bool          // a throwaway cluster keeps fsync and synchronous commit on
	pgBuffers    string        // the private cluster's shared_buffers; "" keeps PostgreSQL's default
	clusterDir   string        // a private cluster kept in this directory, not thrown away
	ceiling      bool          // measure the PostgreSQL ceiling after the check
	costs        bool          // report each RPC's statement and CPU costs
	seed         uint64        // of the counters' random growth
	history      historyConfig // a year of ledger to build and measure on
	teams        teamsConfig   // teams and listed volunteers on it (teams.go)
}

// Bounds on the flags, so that every run ends in reasonable time.
const (
	maxUsers       = 200_000
	maxHostsEach   = 100
	maxHosts       = 1_000_000
	maxConcurrency = 4096
	maxDuration    = time.Hour
	maxWarmup      = 10 * time.Minute
	// setupAllowance bounds everything but the load and ceiling phases.
	setupAllowance = 15 * time.Minute
)

// parseConfig reads the flags; getenv supplies DATABASE_URL.
func parseConfig(args []string, stderr io.Writer, getenv func(string) string) (config, error) {
	var c config
	fs := flag.NewFlagSet("cobble-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.dbURL, "db", getenv("DATABASE_URL"),
		"PostgreSQL `URL` (default $DATABASE_URL; if neither is set, a throwaway private cluster)")
	fs.StringVar(&c.url, "url", "", "base `URL` of a running Cobble on a loopback address, ending in /, or several, "+
		"comma-separated, of instances on one database, which get the RPCs in turn; "+
		"--db must then be their database (default: Cobble runs in this process)")
	fs.IntVar(&c.users, "users", 200, "volunteers to create")
	fs.IntVar(&c.hostsPerUser, "hosts", 5, "hosts per volunteer (each attached to 5 projects)")
	fs.IntVar(&c.concurrency, "concurrency", 32, "workers sending RPCs at once (each owns a share of the hosts)")
	fs.DurationVar(&c.duration, "duration", 20*time.Second, "length of the measured load")
	fs.DurationVar(&c.warmup, "warmup", 2*time.Second, "load before the measured part, not counted")
	fs.Float64Var(&c.rate, "rate", 0, "RPCs per second over all workers; 0 sends as fast as possible")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Second, "how long one RPC may take")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured load to `file`")
	fs.BoolVar(&c.pgDurable, "pg-durable", false,
		"throwaway cluster only: keep fsync, synchronous_commit and full_page_writes on")
	fs.StringVar(&c.pgBuffers, "pg-shared-buffers", "", "private cluster only: its shared_buffers, "+
		"such as 4GB for a history that outgrows the default (default: PostgreSQL's, 128MB)")
	fs.StringVar(&c.clusterDir, "cluster", "", "keep the private cluster in `DIR` (made there if missing) "+
		"instead of throwing it away, so that a later run measures the history built there again")
	fs.BoolVar(&c.ceiling, "pg-ceiling", true, "measure the PostgreSQL ceiling after the ledger check")
	fs.BoolVar(&c.costs, "costs", true, "report what an RPC costs: each statement's time in PostgreSQL "+
		"(pg_stat_statements, loaded into a throwaway cluster) and the CPU time of Cobble and of the load generator "+
		"(a CPU profile); false measures throughput alone, as builds without this flag did")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the counters' random growth")
	c.history.register(fs)
	c.teams.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	rateSet := false
	fs.Visit(func(f *flag.Flag) { rateSet = rateSet || f.Name == "rate" })
	if c.history.mixed.on && !rateSet {
		c.rate = mixedRate
	}
	return c, c.validate()
}

// validate checks that the flags make a bounded, meaningful run.
func (c *config) validate() error {
	var problems []string
	check := func(ok bool, msg string) {
		if !ok {
			problems = append(problems, msg)
		}
	}
	check(c.users >= 1 && c.users <= maxUsers, fmt.Sprintf("--users must be between 1 and %d", maxUsers))
	check(c.hostsPerUser >= 1 && c.hostsPerUser <= maxHostsEach,
		fmt.Sprintf("--hosts must be between 1 and %d", maxHostsEach))
	check(c.hosts() <= maxHosts, fmt.Sprintf("--users × --hosts must be at most %d", maxHosts))
	check(c.concurrency >= 1 && c.concurrency <= maxConcurrency,
		fmt.Sprintf("--concurrency must be between 1 and %d", maxConcurrency))
	check(c.duration > 0 && c.duration <= maxDuration, "--duration must be above 0 and at most 1h")
	check(c.warmup >= 0 && c.warmup <= maxWarmup, "--warmup must be between 0 and 10m")
	check(c.rate >= 0 && c.rate <= 1e6, "--rate must be between 0 and 1000000") // NaN fails too
	check(c.timeout > 0 && c.timeout <= time.Minute, "--timeout must be above 0 and at most 1m")
	c.history.validate(check)
	c.teams.validate(check, c.history)
	check(c.history.rows == 0 || c.url == "", "--history needs Cobble in this process (no --url)")
	if c.url != "" {
		check(c.dbURL != "", "--url needs --db (or DATABASE_URL): the database of that Cobble, "+
			"for the population and the ledger check")
		check(!c.pgDurable, "--pg-durable applies to a throwaway cluster only")
		for _, u := range c.urls() {
			if err := checkLoopbackURL(u); err != nil {
				problems = append(problems, err.Error())
			}
		}
	} else if c.dbURL != "" && c.pgDurable {
		problems = append(problems, "--pg-durable applies to a throwaway cluster only, not to --db")
	}
	check(c.pgBuffers == "" || c.url == "" && c.dbURL == "", "--pg-shared-buffers applies to a private cluster only")
	check(c.pgBuffers == "" || sizeSetting.MatchString(c.pgBuffers),
		"--pg-shared-buffers must be a size such as 512MB or 4GB")
	check(c.clusterDir == "" || c.dbURL == "", "--cluster and --db (or DATABASE_URL) exclude each other")
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", errUsage, strings.Join(problems, "; "))
	}
	return nil
}

// sizeSetting is a PostgreSQL memory size with its unit.
var sizeSetting = regexp.MustCompile(`^[1-9][0-9]{0,6}(kB|MB|GB)$`)

// urls returns the --url list's base URLs.
func (c config) urls() []string {
	if c.url == "" {
		return nil
	}
	return strings.Split(c.url, ",")
}

// checkLoopbackURL accepts an http base URL on a loopback address: the tool
// measures a Cobble on the same machine and never sends load elsewhere.
func checkLoopbackURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" || !strings.HasSuffix(u.Path, "/") {
		return fmt.Errorf("--url %q must be an http:// base URL ending in /", s)
	}
	ip := net.ParseIP(u.Hostname())
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--url %q must name a loopback address such as 127.0.0.1", s)
	}
	return nil
}

// hosts is the number of hosts in the population.
func (c config) hosts() int { return c.users * c.hostsPerUser }

// deadline bounds the whole run: setup, two timed phases and their tails.
func (c config) deadline() time.Duration {
	phase := c.warmup + c.duration + 2*c.timeout
	d := setupAllowance + time.Duration(2*max(1, c.history.rounds))*phase + c.history.allowance()
	if c.history.mixed.on { // a third phase, and the wait for the resets' mail
		d += phase + resetWait
	}
	return d
}
