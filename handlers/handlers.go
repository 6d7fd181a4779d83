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
	// Name is the account manager's name shown to clients and volunteers.
	Name string
	// BaseURL is the URL clients use, ending in "/".
	BaseURL string
	// RepeatSec is how often clients should call back, in seconds.
	RepeatSec float64
	// CSS is the fingerprinted path of the stylesheet.
	CSS string
	// TrustedProxies are the proxies whose X-Forwarded-For names the
	// client's address.
	TrustedProxies []netip.Prefix
	// SignupsPerHour is how many accounts one address may create in an
	// hour (default 20).
	SignupsPerHour int
	// Mail is how messages leave the outbox: "smtp", "mailbox" (the
	// development mailbox at /dev/mail) or "" (they stay queued).
	Mail string
	// DevMailbox serves /dev/mail, the development mailbox.
	DevMailbox bool
	// Version is the build's version on one line, shown on the admin
	// overview; empty shows none.
	Version string
	// AdminTwoFactor sends an admin without two-factor sign-in who opens
	// an admin page to enrol first.
	AdminTwoFactor bool
	// Now is the clock (nil: time.Now); tests move it.
	Now func() time.Time
	// Primary says which database server is the primary, for the admin
	// overview; nil shows nothing.
	Primary func() primary.Status
}

// App carries the dependencies of every handler.
type App struct {
	accounts   accountsStore
	access     accessStore
	catalog    catalogStore
	sync       syncStore
	computers  computersStore
	ledger     ledgerStore
	mail       mailStore
	admin      adminStore
	instance   instanceStore
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
		computers: store.Computers, ledger: store.Ledger, mail: store.Mail, admin: store.Admin, instance: store,
		reconciler: reconciler, sessions: sessions, log: log, cfg: cfg, signer: s,
		guard: newGuard(store.Access, cfg.SignupsPerHour), now: time.Now}
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
