// Package primary follows which PostgreSQL server Cobble writes to. With a
// DATABASE_URL naming several hosts and target_session_attrs=read-write
// (pg_auto_failover's formation URL), the pool connects to whichever host
// is the primary; a Watcher checks it every few seconds, so that /readyz,
// the admin overview and the metrics can say which node it is, and counts
// the failovers it sees: the primary's timeline going up, as it does at
// each promotion.
package primary

import (
	"context"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/internal/every"
)

// Status is what a Watcher last saw.
type Status struct {
	// Addr is the host:port of the server last seen as the primary; ""
	// before the first successful check.
	Addr string
	// Timeline is the primary's WAL timeline, which each promotion of a
	// standby raises.
	Timeline int64
	// Standby says that the primary has a synchronous standby
	// (synchronous_standby_names is set, as pg_auto_failover sets it while
	// the secondary is healthy).
	Standby bool
	// Streaming is how many standbys stream from the primary.
	Streaming int
	// Failovers is how many times, since the process started, the primary
	// was seen to change.
	Failovers int64
	// CheckedAt is when the last check ended; Problem says why it failed
	// ("" when it did not).
	CheckedAt time.Time
	Problem   string
}

// Watcher checks the primary behind a pool.
type Watcher struct {
	pool  *pgxpool.Pool
	hosts int
	log   *slog.Logger

	mu     sync.Mutex
	status Status
}

// New returns a Watcher of pool's primary that logs the failovers it sees
// to log.
func New(pool *pgxpool.Pool, log *slog.Logger) *Watcher {
	cc := pool.Config().ConnConfig
	hosts := map[string]bool{net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))): true}
	for _, f := range cc.Fallbacks {
		hosts[net.JoinHostPort(f.Host, strconv.Itoa(int(f.Port)))] = true
	}
	return &Watcher{pool: pool, hosts: len(hosts), log: log}
}

// Hosts is how many servers the pool's URL names (pgx tries each with and
// without TLS, counted once).
func (w *Watcher) Hosts() int { return w.hosts }

// Status returns what the last check saw.
func (w *Watcher) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status
}

// Failovers is how many failovers the Watcher has seen.
func (w *Watcher) Failovers() int64 { return w.Status().Failovers }

// Loop checks the primary now and every period until ctx ends.
func (w *Watcher) Loop(ctx context.Context, period time.Duration) {
	every.Loop(ctx, period, true, func(ctx context.Context, _ time.Time) { w.Check(ctx) })
}

// checkTimeout bounds one check.
const checkTimeout = 2 * time.Second

// Check asks the pool's server which it is, and counts a failover when
// the timeline went up since the last successful check.
func (w *Watcher) Check(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	seen, err := w.ask(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	prev := w.status
	w.status.CheckedAt = time.Now()
	if err != nil {
		w.status.Problem = err.Error()
		return
	}
	seen.Failovers, seen.CheckedAt = prev.Failovers, w.status.CheckedAt
	switch {
	case prev.Addr == "" || seen.Timeline == 0:
	case seen.Timeline > prev.Timeline:
		seen.Failovers++
		w.log.Warn("the primary database changed: a failover", "from", prev.Addr, "to", seen.Addr,
			"timeline", seen.Timeline, "failovers_seen", seen.Failovers)
	case seen.Timeline < prev.Timeline:
		// A connection reached the old primary before it was demoted:
		// the newer timeline remains the primary's.
		seen.Addr, seen.Timeline = prev.Addr, prev.Timeline
	}
	w.status = seen
}

// ask reads the server's address, timeline and replication on one pooled
// connection.
func (w *Watcher) ask(ctx context.Context) (Status, error) {
	conn, err := w.pool.Acquire(ctx)
	if err != nil {
		return Status{}, err
	}
	defer conn.Release()
	var s Status
	var recovery bool
	// pg_walfile_name names the current timeline's WAL file: its first 8
	// hex digits are the timeline, up to date from the promotion on
	// (pg_control's waits for the next checkpoint).
	err = conn.QueryRow(ctx, `SELECT pg_is_in_recovery(),
		CASE WHEN pg_is_in_recovery() THEN 0
			ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint END,
		current_setting('synchronous_standby_names') <> '',
		(SELECT count(*) FROM pg_stat_replication)::int`).Scan(&recovery, &s.Timeline, &s.Standby, &s.Streaming)
	if err != nil {
		return Status{}, err
	}
	s.Addr = serverAddr(conn.Conn().PgConn().Conn().RemoteAddr(), w.pool)
	if recovery {
		return Status{}, &standbyError{addr: s.Addr}
	}
	return s, nil
}

// serverAddr names the server at the other end of a connection: its
// host:port, or for a Unix socket the URL's first host and port.
func serverAddr(a net.Addr, pool *pgxpool.Pool) string {
	if a != nil && a.Network() == "tcp" {
		return a.String()
	}
	cc := pool.Config().ConnConfig
	return net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port)))
}

// standbyError says that the pool reached a standby, which cannot take
// Cobble's writes.
type standbyError struct{ addr string }

func (e *standbyError) Error() string {
	return "the database at " + e.addr + " is a standby (read-only); DATABASE_URL should end in " +
		"?target_session_attrs=read-write when it names several hosts"
}
