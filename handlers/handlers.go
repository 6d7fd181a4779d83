// Package handlers holds Cobble's HTTP handlers: the account-manager RPC that
// BOINC clients call, the volunteer, admin and public pages, and the JSON
// API, in rooms by audience (App). Handlers are thin: they parse, call the
// accounting domain, and render a view or redirect.
package handlers

import (
	"context"
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

// App is the handlers, in rooms by audience: each room is a type over the
// narrow store interfaces it uses (stores.go), and the plumbing they share
// (session user, rendering, language, errors, conditional GET) is base's,
// once. The route table (web/routes.go) takes each handler from its room;
// App's own methods are base's.
type App struct {
	*base
	Client    *Client    // the BOINC client's endpoints: the AM RPC, project config, notices
	Account   *Account   // signing in and up, passwords, email, two factors, sessions
	Volunteer *Volunteer // a volunteer's dashboard, computers, projects and downloads
	Settings  *Settings  // a volunteer's settings, certificates, public profile and API tokens
	Admin     *Admin     // the admin console
	Public    *Public    // public profiles, badges, leaderboards, certificates, credit fairness
	Teams     *Teams     // teams: the list, a team's page and badge, joining, leaving, the founder's part
	API       *API       // the JSON API under /api/v1/ and its document
	Stats     *Stats     // the statistics export's files, for statistics sites
}

// base is the plumbing every room shares: sessions and the signed-in
// user, re-authentication, the guard against guessing, rendering, the
// language, the error pages and the clock.
type base struct {
	access   accessStore
	sessions *scs.SessionManager
	log      *slog.Logger
	cfg      Config
	guard    *guard
	now      func() time.Time
}

// Client answers the BOINC client: the account-manager RPC, the project
// configuration and a volunteer's notices feed.
type Client struct {
	*base
	sync      syncStore
	accounts  accountsStore
	computers computersStore
	ledger    ledgerStore
	instance  instanceStore
	signer    *signer
	feeds     *cache.Cache[int64, string] // user ID → notices-feed token
}

// Account is a volunteer's account: signing in (with two factors) and up,
// the password, the email address and its alerts' unsubscribe links, two
// factors and the sessions.
type Account struct {
	*base
	accounts accountsStore
	mail     mailStore
}

// Volunteer is a volunteer's own pages: the dashboard, the computers (their
// settings, pause and days), the projects and the history's downloads.
type Volunteer struct {
	*base
	catalog   catalogStore
	computers computersStore
	ledger    ledgerStore
	reports   reportsStore
	teams     teamsStore
}

// Settings is a volunteer's settings: alerts, time zone, language,
// preferences and locations, the password and email forms, deleting the
// account, the public profile, certificates and API tokens.
type Settings struct {
	*base
	accounts  accountsStore
	catalog   catalogStore
	computers computersStore
	ledger    ledgerStore
	mail      mailStore
	public    publicStore
	api       apiStore
	teams     teamsStore
}

// Admin is the admin console: the overview, lookups, accounts, the
// catalog, mail, the audit log, reconciliation and reports.
type Admin struct {
	*base
	accounts   accountsStore
	admin      adminStore
	catalog    catalogStore
	computers  computersStore
	ledger     ledgerStore
	mail       mailStore
	reports    reportsStore
	jobs       jobsStore
	instance   instanceStore
	reconciler *reconcile.Reconciler
	fairness   fairnessStore
}

// Public is what anyone may read: public profiles, badges, leaderboards,
// certificates by their code and the credit fairness measure.
type Public struct {
	*base
	public   publicStore
	fairness fairnessStore
	teams    teamsStore
}

// Teams is the team pages: the list, a team's page and badge, creating a
// team, joining it (open, or by its invitation link) and leaving it, and
// its founder's part: the invitation link, editing, handing over and
// deleting.
type Teams struct {
	*base
	teams  teamsStore
	ledger ledgerStore
	mail   mailStore
}

// API is the JSON API under /api/v1/, with its OpenAPI document and page.
type API struct {
	*base
	api       apiStore
	computers computersStore
	ledger    ledgerStore
	teams     teamsStore
}

// Stats serves the statistics export's files (stats.go).
type Stats struct {
	*base
	stats statsStore
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
	if cfg.APIPerMinute <= 0 {
		cfg.APIPerMinute = APIRequestsPerMinute
	}
	b := &base{access: store.Access, sessions: sessions, log: log, cfg: cfg,
		guard: newGuard(store.Access, cfg.SignupsPerHour), now: time.Now}
	if cfg.Now != nil {
		b.now = cfg.Now
	}
	var fairness fairnessStore
	if reconciler != nil {
		fairness = reconciler.Fairness
	}
	return &App{base: b,
		Client: &Client{base: b, sync: store.Sync, accounts: store.Accounts, computers: store.Computers,
			ledger: store.Ledger, instance: store, signer: s, feeds: newFeedTokens(func() time.Time { return b.now() })},
		Account: &Account{base: b, accounts: store.Accounts, mail: store.Mail},
		Volunteer: &Volunteer{base: b, catalog: store.Catalog, computers: store.Computers, ledger: store.Ledger,
			reports: store.Reports, teams: store.Teams},
		Settings: &Settings{base: b, accounts: store.Accounts, catalog: store.Catalog, computers: store.Computers,
			ledger: store.Ledger, mail: store.Mail, public: store.Public, api: store.API, teams: store.Teams},
		Admin: &Admin{base: b, accounts: store.Accounts, admin: store.Admin, catalog: store.Catalog,
			computers: store.Computers, ledger: store.Ledger, mail: store.Mail, reports: store.Reports,
			jobs: store.Jobs, instance: store, reconciler: reconciler, fairness: fairness},
		Public: &Public{base: b, public: store.Public, fairness: fairness, teams: store.Teams},
		Teams:  &Teams{base: b, teams: store.Teams, ledger: store.Ledger, mail: store.Mail},
		API:    &API{base: b, api: store.API, computers: store.Computers, ledger: store.Ledger, teams: store.Teams},
		Stats:  &Stats{base: b, stats: store.Stats},
	}, nil
}
