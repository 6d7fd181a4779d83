package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/web"
)

// serverConns is the least pool size of Cobble's server, as `cobble serve`
// sets it.
const serverConns = 16

// target is the Cobble under load.
type target struct {
	urls      []string          // base URLs, ending in /: one, or several instances
	what      string            // for the report
	store     *accounting.Store // for adding the catalog (the server's own when in-process)
	inProcess bool
	// pool is the in-process server's pool, on whose connections the
	// ceiling replays what the server sent; nil for a running Cobble.
	pool *pgxpool.Pool
	// recorder records what the in-process server sends to PostgreSQL,
	// for the ceiling; nil for a running Cobble.
	recorder *recorder
	// relay is the SMTP server the in-process server sends its mail to,
	// with --mixed; nil otherwise (its mail stays queued).
	relay *relay
	stop  func() error
}

// startTarget starts Cobble in this process, or describes the --url one.
// With --mixed, the in-process server sends its mail to an SMTP server on
// loopback that the tool starts.
func startTarget(ctx context.Context, cfg config, db *database, logw io.Writer) (*target, error) {
	if cfg.url != "" {
		what := "a running Cobble at " + cfg.url
		if len(cfg.urls()) > 1 {
			what = fmt.Sprintf("%d running Cobble instances, in turn: %s", len(cfg.urls()), cfg.url)
		}
		return &target{urls: cfg.urls(), what: what,
			store: accounting.NewStore(db.pool, accounting.Options{})}, nil
	}
	pc, err := pgxpool.ParseConfig(db.url)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	pc.MaxConns = max(pc.MaxConns, serverConns)
	rec := newRecorder()
	pc.ConnConfig.Tracer = rec
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	var rl *relay
	if cfg.history.mixed.on {
		if rl, err = startRelay(logw); err != nil {
			pool.Close()
			return nil, err
		}
	}
	tgt, err := serve(ctx, pool, rl)
	if err != nil {
		pool.Close()
		if rl != nil {
			rl.stop()
		}
		return nil, err
	}
	tgt.recorder, tgt.pool, tgt.relay = rec, pool, rl
	tgt.what = fmt.Sprintf("Cobble in this process at %s (pool of %d connections, at most %d projects a host, "+
		"request log discarded)", tgt.urls[0], pc.MaxConns, projectsPerHost)
	return tgt, nil
}

// serve runs Cobble's web server on pool, on a free loopback port. With a
// relay, it sends its mail there, and trusts the loopback proxy's
// X-Forwarded-For, so that the tool's requests come from addresses of
// their own.
func serve(ctx context.Context, pool *pgxpool.Pool, rl *relay) (*target, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	base := "http://" + l.Addr().String() + "/"
	wc := web.Config{Site: web.Site{Name: "Cobble load test", BaseURL: base, RepeatSec: 3600, APIPerMinute: 1_000_000},
		MaxProjects: projectsPerHost}
	if rl != nil {
		wc.Mail = web.MailConfig{SMTPURL: rl.srv.URL(), From: "Cobble load test <load@cobble.example>"}
		wc.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	}
	srv, err := web.New(ctx, wc, pool, slog.New(slog.DiscardHandler))
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("server: %w", err)
	}
	serveCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(serveCtx, l) }()
	stop := func() error {
		cancel()
		err := <-done
		pool.Close()
		if rl != nil {
			rl.stop()
		}
		return err
	}
	return &target{urls: []string{base}, store: srv.Store(), inProcess: true, stop: stop}, nil
}

// close stops an in-process server.
func (t *target) close(logw io.Writer) {
	if t.stop == nil {
		return
	}
	if err := t.stop(); err != nil {
		fmt.Fprintln(logw, "cobble-load: stopping the server:", err)
	}
}
