package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
)

// historyConfig is what --history and the flags beside it ask for: a year
// of ledger built directly in SQL, and what to measure on it.
type historyConfig struct {
	rows         int64 // ledger rows wanted; 0 builds no history
	pages        bool  // measure the pages on it
	pageRequests int   // requests per page
	exportHosts  int   // hosts in the export reconciled on it; 0 skips that
	rounds       int   // measurements of it, each beside an empty database
	cobbleBin    string
	mixed        mixedConfig // everything at once on it
}

// The history's shape: each of its hosts works for historyProjects
// projects every day of historyDays; a volunteer owns hostsPerVolunteer.
// 50M asks for 50,000 hosts of 5,000 volunteers (54.75 M ledger rows).
const (
	historyProjects   = 3
	historyDays       = 365
	hostsPerVolunteer = 10
	rowsPerHostAsked  = 1000 // --history N builds N/1000 hosts
	maxHistoryRows    = 500_000_000
	historyChunk      = 500 // hosts per INSERT of their ledger rows
)

// register adds the history's flags to fs.
func (h *historyConfig) register(fs *flag.FlagSet) {
	fs.Func("history", "build a year of ledger of about `N` rows first (such as 2M or 50M: N/1000 hosts of "+
		"N/10000 volunteers × 3 projects × 365 days, and confirmed rows), in SQL, and compare the RPC load "+
		"before and after it", func(s string) error {
		n, err := parseCount(s)
		h.rows = n
		return err
	})
	fs.BoolVar(&h.pages, "pages", false, "with --history: measure the pages and downloads on the history")
	fs.IntVar(&h.pageRequests, "page-requests", 50, "with --pages: requests per page (after one not counted)")
	fs.IntVar(&h.exportHosts, "export-hosts", 1_000_000, "with --history: hosts in the credit export "+
		"reconciled on the history (0 skips it)")
	fs.IntVar(&h.rounds, "rounds", 1, "with --history: measure it this many times, each round the RPC load "+
		"on an empty database and then on the history, the pages, and the export")
	fs.StringVar(&h.cobbleBin, "cobble", "", "with --history: the cobble binary that reconciles the export "+
		"(default: built with 'go build' into a temporary directory)")
	h.mixed.register(fs)
}

// validate adds the history flags' problems to check.
func (h *historyConfig) validate(check func(bool, string)) {
	check(h.rows >= 0 && h.rows <= maxHistoryRows, fmt.Sprintf("--history must be at most %d", maxHistoryRows))
	check(h.rows == 0 || h.rows >= rowsPerHostAsked*hostsPerVolunteer, "--history must be at least 10k")
	check(h.rows > 0 || !h.pages, "--pages needs --history")
	check(h.pageRequests >= 1 && h.pageRequests <= 10_000, "--page-requests must be between 1 and 10000")
	check(h.rounds >= 1 && h.rounds <= 10, "--rounds must be between 1 and 10")
	check(h.exportHosts >= 0 && h.exportHosts <= 10_000_000, "--export-hosts must be between 0 and 10000000")
	h.mixed.validate(h, check)
}

// parseCount reads a count such as 2000000, 500k, 2M or 1.5G.
func parseCount(s string) (int64, error) {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult = 1e3
	case strings.HasSuffix(s, "M"):
		mult = 1e6
	case strings.HasSuffix(s, "G"):
		mult = 1e9
	}
	if mult != 1 {
		s = s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f*mult > maxHistoryRows {
		return 0, fmt.Errorf("not a count such as 2M or 50M")
	}
	return int64(f * mult), nil
}

// history is what the builder made: the ids the measurements need.
type history struct {
	hosts, volunteers int
	ledgerRows        int64
	confirmedRows     int64
	projects          [historyProjects]accounting.Project
	run               string // the run that built it: its emails and names carry it
	volunteerEmail    string // the measured volunteer: the first, with 10 hosts
	volunteerID       int64
	hostID            int64 // the measured volunteer's first host
	accountUserID     int64 // Cobble's account on the history projects
	firstHostID       int64
	today             time.Time
}

// historyPassword is the password of the measured volunteer and the admin.
const historyPassword = "history-password"

// historyAccount is the project user id of Cobble's shared account on the
// history projects (the export's records of Cobble's hosts carry it).
const historyAccount = 777_000_001

// allowance is the time the history's building and measuring may take
// beyond the load's phases: generous, for a shared 2-core machine.
func (h historyConfig) allowance() time.Duration {
	if h.rows == 0 {
		return 0
	}
	return 30*time.Minute + time.Duration(h.rows/5_000)*time.Second + time.Duration(h.rounds)*roundAllowance
}

// roundAllowance bounds a round's pages and export reconciliation.
const roundAllowance = 15 * time.Minute

// findHistory returns the history an earlier run built in the database
// (kept with --cluster), or nil if it holds none. Its size must be the
// one asked for.
func findHistory(ctx context.Context, pool *pgxpool.Pool, cfg config) (*history, error) {
	var run string
	err := pool.QueryRow(ctx, `
		SELECT substring(name FROM '^History project 1 \((.*)\)$') FROM projects
		WHERE name LIKE 'History project 1 (%)' ORDER BY id LIMIT 1`).Scan(&run)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history: looking for an earlier one: %w", err)
	}
	hs := &history{today: accounting.CivilDay(time.Now().UTC()), accountUserID: historyAccount,
		run: run, volunteerEmail: fmt.Sprintf("history-%s-1@example.org", run)}
	for i := range hs.projects {
		p := &hs.projects[i]
		if err := pool.QueryRow(ctx, `SELECT id, url FROM projects WHERE name = $1`,
			fmt.Sprintf("History project %d (%s)", i+1, run)).Scan(&p.ID, &p.URL); err != nil {
			return nil, fmt.Errorf("history %s: project %d: %w", run, i+1, err)
		}
	}
	err = pool.QueryRow(ctx, `
		SELECT u.id, (SELECT min(id) FROM hosts WHERE user_id = u.id),
			(SELECT count(*) FROM users WHERE email LIKE format('history-%s-%%', $2::text) AND NOT is_admin),
			(SELECT min(id) FROM hosts WHERE opaque_token LIKE format('history-%s-%%', $2::text)),
			(SELECT count(*) FROM hosts WHERE opaque_token LIKE format('history-%s-%%', $2::text))
		FROM users u WHERE u.email = $1`, hs.volunteerEmail, run).
		Scan(&hs.volunteerID, &hs.hostID, &hs.volunteers, &hs.firstHostID, &hs.hosts)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", run, err)
	}
	if want := int(cfg.history.rows / rowsPerHostAsked); hs.hosts != want {
		return nil, fmt.Errorf("%w: the database holds a history of %d hosts (run %s), and --history asks for %d",
			errUsage, hs.hosts, run, want)
	}
	last := hs.firstHostID + int64(hs.hosts) - 1
	err = pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM ledger WHERE host_id BETWEEN $1 AND $2),
		       (SELECT count(*) FROM confirmed_ledger WHERE host_id BETWEEN $1 AND $2)`, hs.firstHostID, last).
		Scan(&hs.ledgerRows, &hs.confirmedRows)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", run, err)
	}
	return hs, nil
}
