package web

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"time"
)

// rollupLoop, every period until ctx ends, adds this instance's RPC counts
// to the hourly counters and refreshes the overview's daily credit and
// counts. Its queries read the ledger's last two days only (and the older
// days that changed). At once and
// then in every round, it creates the ledger's coming month partitions.
func (s *Server) rollupLoop(ctx context.Context, period time.Duration) {
	s.ensurePartitions(ctx, time.Now())
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			// The counts of the last minute still go in.
			flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			s.rollup(flushCtx, time.Now())
			cancel()
			return
		case now := <-t.C:
			s.rollup(ctx, now)
		}
	}
}

// rollup runs one round of the rollup; failures are logged and the counts
// kept for the next round.
func (s *Server) rollup(ctx context.Context, now time.Time) {
	s.ensurePartitions(ctx, now)
	pending := s.metrics.takePending()
	for hour, counts := range pending {
		if err := s.store.Ledger.AddRPCCounts(ctx, hour, counts); err != nil {
			s.log.Warn("storing RPC counts failed", "err", err)
			s.metrics.givePending(map[time.Time]map[string]int64{hour: counts})
		}
	}
	if err := s.store.Ledger.Rollup(ctx, now.AddDate(0, 0, -1), now); err != nil {
		s.log.Warn("rollup failed", "err", err)
		return
	}
	accepted, clamped, err := s.store.Ledger.CreditTotals(ctx)
	if err != nil {
		s.log.Warn("credit totals failed", "err", err)
		return
	}
	s.metrics.accepted.Store(math.Float64bits(accepted))
	s.metrics.clamped.Store(math.Float64bits(clamped))
}

// ensurePartitions creates the ledger's partitions for now's month and the
// next ones if they are missing, and with --ledger-detail-months drops the
// partitions of older months (keeping per-volunteer totals); a failure is
// logged and retried next round (rows of a month without its partition are
// kept in the DEFAULT one).
func (s *Server) ensurePartitions(ctx context.Context, now time.Time) {
	n, err := s.store.Ledger.EnsurePartitions(ctx, now)
	switch {
	case err != nil:
		s.log.Warn("creating ledger partitions failed", "err", err)
	case n > 0:
		s.log.Info("created ledger partitions", "count", n)
	}
	if s.detail <= 0 {
		return
	}
	n, err = s.store.Ledger.RetireLedger(ctx, now, s.detail)
	switch {
	case err != nil:
		s.log.Warn("dropping old ledger detail failed", "err", err)
	case n > 0:
		s.log.Info("dropped the per-computer ledger rows of old months", "months", n, "keep_months", s.detail)
	}
}

// Rollup runs one round of the periodic rollup now (for tests and tools).
func (s *Server) Rollup(ctx context.Context) { s.rollup(ctx, time.Now()) }

// MetricsHandler serves the Prometheus metrics (for tests).
func (s *Server) MetricsHandler() http.Handler { return s.metrics.handler() }

// serveMetrics serves /metrics on addr until the returned function is called.
func (s *Server) serveMetrics(addr string) (func(), error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, errors.New("listen for metrics on " + addr + ": " + err.Error())
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.metrics.handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
	go srv.Serve(l)
	s.log.Info("serving metrics", "addr", l.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}
