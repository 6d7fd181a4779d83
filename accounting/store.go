package accounting

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting/cache"
)

// Store keeps Cobble's data in PostgreSQL. It is safe for concurrent use.
// Its methods are the instance's own (the database, the read replica, the
// changes it hears of); the domain's queries are on its areas, one type
// each, all sharing one core (areas.go, docs/ARCHITECTURE.md).
type Store struct {
	*core

	Accounts  *AccountsStore  // volunteers, sign-up, recovery, email changes, link and feed tokens
	Access    *AccessStore    // sessions, two-factor sign-in, counted attempts
	Catalog   *CatalogStore   // projects, keywords, the catalog's import
	Sync      *SyncStore      // the RPC: read, plan, write; signing key, recent work
	Computers *ComputersStore // a volunteer's computers, preferences and locations
	Ledger    *LedgerStore    // credit: rollups, partitions, retention, rebuild, history
	Mail      *MailStore      // the outbox and the alerts that fill it
	Admin     *AdminStore     // the admin's overview, lookups, audit log, users
	Jobs      *JobsStore      // the job queue's health
	Reports   *ReportsStore   // volunteers' reports about a day, the admin's queue
	API       *APIStore       // personal API tokens, their rate counts, the API's own reads
	Public    *PublicStore    // the public profile, badge, leaderboards, certificates
	Teams     *TeamsStore     // teams, memberships, team history and leaderboards
	Stats     *StatsStore     // the statistics export in BOINC's format
}

// core is what every area shares: the pool, the options, the caches and
// the clockless helpers (transactions, the catalog, time zones).
type core struct {
	pool *pgxpool.Pool
	opts Options

	catalogs    *cache.Cache[struct{}, []Project] // the catalog, read at most catalogTTL ago
	catalogRead sync.Mutex                        // held while the catalog is read from the database

	locations *cache.Cache[string, *time.Location] // time zone name → location
	rewrites  rewrites                             // the RPC's queries with positional placeholders

	// listening is set while ListenChanges is connected: only then may
	// caches without a short TTL (feed tokens) be trusted.
	listening atomic.Bool
	replica   replica // the read replica, if any (store_replica.go)

	// jobs is an insert-only River client: it enqueues the outbox's
	// MailJobs in the transactions of their causes (enqueueMail).
	jobs *river.Client[pgx.Tx]

	recent   RecentWork                       // Cobble's recent work per project, for share balancing
	oddPrefs *cache.Cache[int64, struct{}]    // volunteers whose odd preferences were logged
	oddPause atomic.Bool                      // an unusable stored pause state was logged
	prefs    *cache.Cache[int64, cachedPrefs] // volunteers' preferences for the steady-state RPC
	credits  *creditCache                     // volunteers' credit per host, for the steady-state RPC

	// comparePassword checks a BOINC password hash against a stored
	// bcrypt hash (bcrypt.CompareHashAndPassword; tests count the calls).
	comparePassword func(hashed, password []byte) error
	// generatePassword makes a bcrypt hash (bcrypt.GenerateFromPassword;
	// tests count the calls).
	generatePassword func(password []byte, cost int) ([]byte, error)
	// unknownHash is a bcrypt hash, made like a volunteer's, that a
	// password is checked against when no account has the email given.
	unknownHash func() []byte
}

// catalogTTL is how long an instance reuses the catalog it read; a change
// made on another instance reaches RPCs here within this time.
const catalogTTL = 5 * time.Second

// Bounds of the Store's caches that sync_prefs_cache.go and rewrites.go do not
// hold. There are about 600 IANA time zone names, and a stored name that
// is not one reads as UTC.
const (
	maxCachedLocations = 1024
	maxOddPrefsLogged  = 10_000
)

// NewStore returns a Store on pool, which must point at a migrated database.
func NewStore(pool *pgxpool.Pool, opts Options) *Store {
	if opts.MaxProjects <= 0 {
		opts.MaxProjects = 4
	}
	if opts.PasswordCost == 0 {
		opts.PasswordCost = bcrypt.DefaultCost
	}
	s := &core{pool: pool, opts: opts, comparePassword: bcrypt.CompareHashAndPassword,
		generatePassword: bcrypt.GenerateFromPassword,
		catalogs:         cache.New[struct{}](cache.Options[[]Project]{Max: 1, TTL: catalogTTL}),
		locations:        cache.New[string](cache.Options[*time.Location]{Max: maxCachedLocations}),
		rewrites:         newRewrites(),
		// Only the first Put of a volunteer stores: that one logs.
		oddPrefs: cache.New[int64](cache.Options[struct{}]{Max: maxOddPrefsLogged,
			Replace: func(_, _ struct{}) bool { return false }}),
		prefs:   newPrefsCache(),
		credits: newCreditCache(),
		jobs:    newJobInserter(pool),
	}
	s.unknownHash = sync.OnceValue(func() []byte {
		h, _ := s.hashPassword("no account has this email")
		return []byte(h)
	})
	st := &Store{core: s, Accounts: &AccountsStore{s}, Access: &AccessStore{s}, Catalog: &CatalogStore{s},
		Sync: &SyncStore{s}, Computers: &ComputersStore{s}, Ledger: &LedgerStore{s}, Mail: &MailStore{s, nil, nil},
		Admin: &AdminStore{s}, Jobs: &JobsStore{s}, Reports: &ReportsStore{s}, API: &APIStore{s}}
	st.Mail.ledger, st.Mail.computers = st.Ledger, st.Computers
	st.Public = &PublicStore{core: s, ledger: st.Ledger}
	st.Teams = &TeamsStore{core: s, ledger: st.Ledger}
	st.Stats = &StatsStore{core: s, ledger: st.Ledger}
	return st
}

// newJobInserter returns a River client that only inserts jobs, on pool.
// River refuses only a configuration it was not given, so an error is a
// programming error.
//
// River's insert also notifies the queue's workers, at most once per
// FetchCooldown; the mail workers need no notice (they poll, every
// MailConfig.Poll), and a notice sent or not, depending on the time since
// the last message, would make two sign-up or reset requests differ in
// their statements. So the cooldown is a day: an instance notifies once a
// day at most, whatever the address.
func newJobInserter(pool *pgxpool.Pool) *river.Client[pgx.Tx] {
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{FetchCooldown: insertNoticeEvery,
		FetchPollInterval: insertNoticeEvery})
	if err != nil {
		panic("accounting: River's insert-only client: " + err.Error())
	}
	return c
}

// insertNoticeEvery is how often at most the job inserter tells River's
// workers of new jobs (newJobInserter).
const insertNoticeEvery = 24 * time.Hour

// Ping reports whether the database answers (ErrUnavailable if not).
func (s *Store) Ping(ctx context.Context) error {
	return op("ping", s.pool.Ping(ctx))
}

// tx runs fn in one transaction, committed if fn returns nil. When
// PostgreSQL ends the transaction to break a deadlock or a serialization
// failure (clashed), which undoes all of it, tx runs fn once more in a new
// one after a short pause, which lets the transaction it clashed with
// finish first: fn must set what it returns afresh on each run. A second
// clash is ErrUnavailable (see unavailable).
func (s *core) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, s.pool, fn)
	if !clashed(err) {
		return err
	}
	pause := time.NewTimer(clashPause + rand.N(clashPause))
	defer pause.Stop()
	select {
	case <-ctx.Done():
		return err
	case <-pause.C:
	}
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// clashPause is the least pause before a clashed transaction runs again;
// the pause is up to twice as long, at random.
const clashPause = 20 * time.Millisecond

// clashed reports whether err is PostgreSQL ending a transaction because
// it clashed with another: deadlock_detected (40P01) or
// serialization_failure (40001). Nothing of the transaction remains.
func clashed(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

// dbErr maps PostgreSQL's answers onto the domain's vocabulary.
func dbErr(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return fmt.Errorf("%w (%s)", ErrConflict, pgErr.ConstraintName)
	}
	return err
}

// unavailable marks err with ErrUnavailable when it says that the database
// could not be reached or did not answer in time: a failed connection, a
// timeout, a connection lost mid-answer, or PostgreSQL's classes 08
// (connection exception) and 57 (operator intervention: a statement
// timeout, a shutdown, a terminated connection). A transaction ended for
// a clash with another (a deadlock, a serialization failure) is
// ErrUnavailable too: nothing was changed, and the call may succeed later.
func unavailable(err error) error {
	if errors.Is(err, ErrUnavailable) || !(connectionLost(err) || clashed(err) ||
		errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// connectionLost reports whether err says that the connection to the
// database failed or went away: a failed connection attempt, a network
// error, the end of the stream in the middle of an answer (pgx's
// unexpected EOF, when the server dies or the connection is cut), a
// connection that pgx closed after such a loss, or the server's own
// word for it (classes 08 and 57).
func connectionLost(err error) bool {
	var connErr *pgconn.ConnectError
	var netErr net.Error
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &connErr), errors.As(err, &netErr),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, pgconn.ErrConnClosed):
		return true
	case errors.As(err, &pgErr):
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57")
	}
	return false
}

// Classify maps an error met on Cobble's database outside the Store (the
// session store's, say) onto the domain's vocabulary: ErrNotFound,
// ErrConflict, ErrUnavailable, or err itself.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	return unavailable(dbErr(err))
}

// querier is what both a pool and a transaction offer.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// catalog returns the project catalog, read at most catalogTTL ago. The
// returned slice is shared: callers must not modify it. One call at a time
// reads it from the database; calls that miss meanwhile wait for that read.
func (s *core) catalog(ctx context.Context) ([]Project, error) {
	if ps, ok := s.catalogs.Get(struct{}{}); ok {
		return ps, nil
	}
	s.catalogRead.Lock()
	defer s.catalogRead.Unlock()
	if ps, ok := s.catalogs.Get(struct{}{}); ok {
		return ps, nil // read by the call this one waited for
	}
	ps, err := s.projects(ctx, s.pool)
	if err != nil {
		return nil, err
	}
	s.catalogs.Put(struct{}{}, ps)
	return ps, nil
}

// forgetCatalog makes the next RPC read the catalog afresh. It waits for a
// read under way, which may have begun before the change being made.
func (s *core) forgetCatalog() {
	s.catalogRead.Lock()
	s.catalogs.Delete(struct{}{})
	s.catalogRead.Unlock()
}

// location returns the named time zone, or UTC when the name is unknown.
func (s *core) location(name string) *time.Location {
	if l, ok := s.locations.Get(name); ok {
		return l
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		loc = time.UTC
	}
	s.locations.Put(name, loc)
	return loc
}

// backgroundTx is tx for background work (reconciliation, rollups): inside
// the transaction it lifts the statement_timeout that serving sessions
// carry as a net for requests; ctx still bounds the work.
func (s *core) backgroundTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL statement_timeout = 0`); err != nil {
			return err
		}
		return fn(tx)
	})
}
