// Package handlers holds Cobble's HTTP handlers: the account-manager RPC that
// BOINC clients call, and the volunteer and admin pages. Handlers are thin:
// they parse, call the accounting domain, and render a view or redirect.
package handlers

import (
	"context"
	"crypto/rsa"
	"log/slog"
	"net/netip"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/cache"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/internal/primary"
)

// Config is what handlers need to know about this Cobble instance.
type Config struct {
	Site
	// CSS is the fingerprinted path of the stylesheet.
	CSS string
	// Mail is how messages leave the outbox: "smtp", "mailbox" (the
	// development mailbox at /dev/mail) or "" (they stay queued).
	Mail string
	// DevMailbox serves /dev/mail, the development mailbox.
	DevMailbox bool
	// AdminTwoFactor sends an admin without two-factor sign-in who opens
	// an admin page to enrol first.
	AdminTwoFactor bool
	// Primary says which database server is the primary, for the admin
	// overview; nil shows nothing.
	Primary func() primary.Status
	// JobTimeouts are the job kinds' timeouts: the overview names the jobs
	// running past theirs.
	JobTimeouts accounting.JobTimeouts
}

// Site is what the server (web.Config embeds it) and the handlers both
// know of the account manager, set once.
type Site struct {
	// Name is the account manager's name shown to clients and volunteers.
	Name string
	// Contact is the address volunteers write to to reach the operators
	// (the mail's sender when one is configured); "" when there is none.
	Contact string
	// BaseURL is the URL clients use, ending in "/".
	BaseURL string
	// RepeatSec is how often clients should call back, in seconds.
	RepeatSec float64
	// TrustedProxies are the proxies whose X-Forwarded-For names the
	// client's address.
	TrustedProxies []netip.Prefix
	// SignupsPerHour is how many accounts one address may create in an
	// hour (default DefaultSignupsPerHour).
	SignupsPerHour int
	// APIPerMinute is how many API requests one token may send in a
	// minute (default APIRequestsPerMinute).
	APIPerMinute int
	// Version is the build's version on one line, such as "devel (commit
	// 0a0e494abcde, go1.26.8)", shown by /readyz and the admin overview;
	// empty shows none.
	Version string
	// Now is the clock of the pages' sessions and codes (nil: time.Now);
	// tests move it.
	Now func() time.Time
}

// App carries the dependencies of every handler.
type App struct {
	accounts   accountsStore
	access     accessStore
	catalog    catalogStore
	sync       syncStore
	computers  computersStore
	ledger     ledgerStore
	reports    reportsStore
	mail       mailStore
	admin      adminStore
	jobs       jobsStore
	public     publicStore
	instance   instanceStore
	api        apiStore
	reconciler *reconcile.Reconciler
	fairness   fairnessStore
	sessions   *scs.SessionManager
	log        *slog.Logger
	cfg        Config
	signer     *signer
	guard      *guard
	feeds      *cache.Cache[int64, string] // user ID → notices-feed token
	now        func() time.Time
}

// New returns the handlers' App. It loads (on a new database, creates) the
// signing key, so it fails when the database does not answer.
func New(ctx context.Context, store *accounting.Store, reconciler *reconcile.Reconciler,
	sessions *scs.SessionManager, log *slog.Logger, cfg Config) (*App, error) {
	key, err := store.Sync.SigningKey(ctx)
	if err != nil {
		return nil, err
	}
	s, err := newSigner(key)
	if err != nil {
		return nil, err
	}
	a := &App{accounts: store.Accounts, access: store.Access, catalog: store.Catalog, sync: store.Sync,
		computers: store.Computers, ledger: store.Ledger, mail: store.Mail, admin: store.Admin, jobs: store.Jobs, reports: store.Reports, public: store.Public, instance: store,
		reconciler: reconciler, sessions: sessions, log: log, cfg: cfg, signer: s,
		guard: newGuard(store.Access, cfg.SignupsPerHour), now: time.Now}
	a.api = store.API
	if a.cfg.APIPerMinute <= 0 {
		a.cfg.APIPerMinute = APIRequestsPerMinute
	}
	if cfg.Now != nil {
		a.now = cfg.Now
	}
	if reconciler != nil {
		a.fairness = reconciler.Fairness
	}
	a.feeds = newFeedTokens(func() time.Time { return a.now() })
	return a, nil
}

// PublicKey returns the public half of the URL signing key.
func (a *App) PublicKey() *rsa.PublicKey { return &a.signer.key.PublicKey }
