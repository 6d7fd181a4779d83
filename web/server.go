// Package web is Cobble's HTTP server: the route table, middleware, sessions
// and the server's lifecycle.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/handlers"
	"github.com/cobble-am/cobble/internal/primary"
	"github.com/cobble-am/cobble/static"
	"github.com/cobble-am/cobble/views"
)

// Config is how one Cobble server runs.
type Config struct {
	// Site is the name, base URL, call-back time, trusted proxies,
	// sign-up limit, version and clock, which the handlers take as they are.
	Site
	MaxProjects int // the most projects one host works for
	// Reconcile tunes reconciliation: the periodic runs (Every; zero
	// turns them off), the export downloads and the reports. Other zero
	// values take reconcile.DefaultOptions. An Observe set here is called
	// beside the server's metrics; Log is the server's.
	Reconcile reconcile.Options
	// MetricsAddr, when set, is where Prometheus metrics are served, on a
	// listener of their own so that they are never public by accident.
	MetricsAddr string
	// RequestTimeout bounds the work of one request (default 10 s): when
	// it passes, the database calls of the request fail and it answers 503.
	RequestTimeout time.Duration
	// Mail says how messages leave the outbox.
	Mail MailConfig
	// AlertsEvery is how often due alerts are queued (default
	// DefaultAlertsEvery).
	AlertsEvery time.Duration
	// LedgerDetailMonths is how many months before the current one keep
	// their per-computer ledger rows; the rollup drops older months'
	// partitions, keeping per-volunteer totals. 0 keeps everything.
	LedgerDetailMonths int
	// Failing are the thresholds of the failing-computer warnings; zero
	// fields take accounting.DefaultFailingThresholds.
	Failing accounting.FailingThresholds
	// PasswordCost is the bcrypt cost of new password hashes; 0 takes
	// bcrypt's default. Tests set bcrypt.MinCost.
	PasswordCost int
	// Replica, when set, is the pool of a streaming replica of the
	// database, which takes the admin reports, lookups and downloads while
	// it answers and keeps up (accounting.Store.UseReplica).
	Replica *pgxpool.Pool
	// AdminTwoFactor is "required" (an admin without two-factor sign-in
	// who opens an admin page is sent to enrol first) or "optional"; ""
	// means optional. `cobble serve` defaults to required.
	AdminTwoFactor string
	// LogFormat is how the log is written, "text" or "json": the command
	// that calls New builds from it the logger it passes. New does not
	// read it.
	LogFormat string
}

// mailMode says for the pages how messages leave: "smtp", "mailbox" (the
// development mailbox), or "" (they stay queued).
func mailMode(c MailConfig) string {
	switch {
	case c.SMTPURL != "":
		return "smtp"
	case c.DevMailbox:
		return "mailbox"
	}
	return ""
}

// Config.AdminTwoFactor's values.
const (
	AdminTwoFactorRequired = "required"
	AdminTwoFactorOptional = "optional"
)

// Site is what the server and its handlers both know of the account
// manager (handlers.Site), embedded in Config.
type Site = handlers.Site

// DefaultSignupsPerHour is Config.SignupsPerHour's default.
const DefaultSignupsPerHour = handlers.DefaultSignupsPerHour

// DefaultRequestTimeout is Config.RequestTimeout's default.
const DefaultRequestTimeout = 10 * time.Second

// DefaultAPIPerMinute is how many API requests one token may send in a
// minute unless Config.APIPerMinute says otherwise.
const DefaultAPIPerMinute = handlers.APIRequestsPerMinute

// Server is a configured Cobble HTTP server.
type Server struct {
	http       *http.Server
	log        *slog.Logger
	store      *accounting.Store
	reconciler *reconcile.Reconciler
	metrics    *metrics
	metricsOn  string
	mailer     *mailer               // nil: messages stay queued
	jobs       *river.Client[pgx.Tx] // the job queue: mail and the cluster's periodic rounds
	alerts     time.Duration
	detail     int                     // Config.LedgerDetailMonths
	forget     func(accounting.Change) // drops the handlers' cached data a change names
	primary    *primary.Watcher        // which server is the primary
	measured   atomic.Bool             // this process has computed the credit fairness measure
	timeouts   accounting.JobTimeouts  // the job kinds' (JobTimeouts)
}

// New builds the server on pool, which must hold a migrated database.
// What log logs for a request carries the request's id, as request_id.
func New(ctx context.Context, cfg Config, pool *pgxpool.Pool, log *slog.Logger) (*Server, error) {
	log = withRequestIDs(log)
	base, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("base URL: %w", err)
	}
	switch cfg.AdminTwoFactor {
	case "", AdminTwoFactorRequired, AdminTwoFactorOptional:
	default:
		return nil, fmt.Errorf("admin two-factor: %q is neither %q nor %q", cfg.AdminTwoFactor,
			AdminTwoFactorRequired, AdminTwoFactorOptional)
	}
	assets, err := static.Load()
	if err != nil {
		return nil, fmt.Errorf("static assets: %w", err)
	}
	store := accounting.NewStore(pool, accounting.Options{MaxProjects: cfg.MaxProjects, PasswordCost: cfg.PasswordCost,
		Failing: cfg.Failing, Log: log})
	if cfg.Replica != nil {
		store.UseReplica(cfg.Replica)
	}
	m := newMetrics(pool, store)
	watcher := primary.New(pool, log)
	m.reg.MustRegister(primaryCollectors(watcher)...)
	ro := cfg.Reconcile
	ro.Observe, ro.Log = observeBoth(m.observeRun, ro.Observe), log
	reconciler := reconcile.New(store, pool, ro)
	m.reg.MustRegister(newReconCollector(reconciler))
	sessions := scs.New()
	sessions.Store = newSessionStore(pool)
	sessions.Lifetime = accounting.SessionLifetime
	sessions.IdleTimeout = accounting.SessionIdle
	sessions.Cookie.Name = "cobble_session"
	sessions.Cookie.HttpOnly = true
	sessions.Cookie.SameSite = http.SameSiteLaxMode
	sessions.Cookie.Secure = base.Scheme == "https"
	site := views.MailSite{Name: cfg.Name, BaseURL: cfg.BaseURL}
	mailer, err := newMailer(cfg.Mail, site, store, log, m.observeMail)
	if err != nil {
		return nil, fmt.Errorf("mail: %w", err)
	}
	timeouts := JobTimeouts(cfg)
	hsite := cfg.Site
	if from, err := mail.ParseAddress(cfg.Mail.From); err == nil && hsite.Contact == "" {
		hsite.Contact = from.Address // the operators' own sender; noreply@ is no contact
	}
	app, err := handlers.New(ctx, store, reconciler, sessions, log, handlers.Config{Site: hsite, JobTimeouts: timeouts,
		CSS: assets.Path("style.css"), Mail: mailMode(cfg.Mail), DevMailbox: cfg.Mail.DevMailbox && cfg.Mail.SMTPURL == "",
		AdminTwoFactor: cfg.AdminTwoFactor == AdminTwoFactorRequired, Primary: watcher.Status})
	if err != nil {
		return nil, err
	}
	sessions.ErrorFunc = app.SessionError
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	cop := http.NewCrossOriginProtection()
	deny := app.Handle(app.CrossOrigin)
	cop.SetDenyHandler(deny)
	referer := refererCheck(deny)
	mw := middleware{log: log, sessions: sessions, ping: store.Ping, primary: watcher, timeout: cfg.RequestTimeout, metrics: m,
		version: cfg.Version, proxies: cfg.TrustedProxies, replica: cfg.Replica != nil,
		crossOrigin: func(next http.Handler) http.Handler { return cop.Handler(referer(next)) }}
	s := &Server{
		store:      store,
		reconciler: reconciler,
		metrics:    m,
		metricsOn:  cfg.MetricsAddr,
		mailer:     mailer,
		alerts:     cmpDur(cfg.AlertsEvery, DefaultAlertsEvery),
		detail:     cfg.LedgerDetailMonths,
		forget:     app.Client.ForgetCached,
		primary:    watcher,
		timeouts:   timeouts,
		log:        log,
		http: &http.Server{
			Handler:           routes(app, assets, mw),
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			// Past the request's deadline, so that its 503 reaches the client.
			WriteTimeout:   max(30*time.Second, cfg.RequestTimeout+10*time.Second),
			IdleTimeout:    120 * time.Second,
			MaxHeaderBytes: 64 << 10,
			ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
	}
	if s.jobs, err = s.newJobs(pool, cmpDur(cfg.Mail.Poll, DefaultMailPoll)); err != nil {
		return nil, err
	}
	return s, nil
}

// observeBoth tells a run's outcome to first, then to then if it is set.
func observeBoth(first, then func(reconcile.RunStatus, time.Duration)) func(reconcile.RunStatus, time.Duration) {
	if then == nil {
		return first
	}
	return func(status reconcile.RunStatus, took time.Duration) {
		first(status, took)
		then(status, took)
	}
}

// Store returns the server's domain store (for tests and tools in the same
// process, which then see the same catalog cache).
func (s *Server) Store() *accounting.Store { return s.store }

// Handler returns the server's root handler (for tests).
func (s *Server) Handler() http.Handler { return s.http.Handler }

// Serve answers requests on l, and runs the background work (this
// instance's loops and its part of the job queue), until ctx ends; then it
// shuts down gracefully: requests in flight get up to 10 seconds to finish,
// then the job queue stops (jobsStop) and the loops are stopped and
// waited for.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	var work sync.WaitGroup
	defer s.reconciler.Close()
	defer work.Wait()
	defer stopWork()
	// This instance's own work (periods.go).
	work.Go(func() { s.store.Sync.RecentWorkLoop(workCtx, recentWorkEvery, s.log) })
	work.Go(func() { s.store.Sync.ExpectedWorkLoop(workCtx, s.log) })
	work.Go(func() { s.store.ListenChanges(workCtx, s.log, s.forget) })
	work.Go(func() { s.primary.Loop(workCtx, primaryEvery) })
	work.Go(func() { s.store.ReplicaLoop(workCtx, replicaEvery, s.log) })
	work.Go(func() { s.countsLoop(workCtx) })
	work.Go(func() { s.store.Public.RunBoards(workCtx) })
	// The cluster's: mail and the periodic rounds (jobs.go).
	if err := s.jobs.Start(workCtx); err != nil {
		return fmt.Errorf("job queue: %w", err)
	}
	defer s.stopJobs()
	if s.metricsOn != "" {
		stop, err := s.serveMetrics(s.metricsOn)
		if err != nil {
			return err
		}
		defer stop()
	}
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.http.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
