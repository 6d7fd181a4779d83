package web

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"time"

	"github.com/cobble-am/cobble/internal/every"
)

// countsLoop, every countsEvery until ctx ends, adds this instance's RPC
// counts to the hourly counters and reads the credit metrics; when ctx
// ends, the counts of the last period still go in. The rollup itself is
// the cluster's (rollupRound).
func (s *Server) countsLoop(ctx context.Context) {
	every.Loop(ctx, countsEvery, false, func(ctx context.Context, _ time.Time) { s.flushCounts(ctx) })
	flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	s.flushCounts(flushCtx)
}

// flushCounts stores this instance's RPC counts, keeping those that fail
// for the next time, and reads the credit totals into the metrics.
func (s *Server) flushCounts(ctx context.Context) {
	pending := s.metrics.takePending()
	for hour, counts := range pending {
		if err := s.store.Ledger.AddRPCCounts(ctx, hour, counts); err != nil {
			s.log.Warn("storing RPC counts failed", "err", err)
			s.metrics.givePending(map[time.Time]map[string]int64{hour: counts})
		}
	}
	accepted, clamped, err := s.store.Ledger.CreditTotals(ctx)
	if err != nil {
		s.log.Warn("credit totals failed", "err", err)
		return
	}
	s.metrics.accepted.Store(math.Float64bits(accepted))
	s.metrics.clamped.Store(math.Float64bits(clamped))
}

// Rollup runs one round of the rollup now, the cluster's and this
// instance's (for tests and tools).
func (s *Server) Rollup(ctx context.Context) {
	_ = s.rollupCluster(ctx, time.Now()) // logged
	s.flushCounts(ctx)
}

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
