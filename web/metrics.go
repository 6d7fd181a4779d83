package web

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
)

// metrics are the server's Prometheus metrics, on a registry of their own,
// and the RPC counts not yet added to the database's hourly counters.
type metrics struct {
	reg          *prometheus.Registry
	rpcs         *prometheus.CounterVec
	rpcSeconds   prometheus.Histogram
	reconRuns    *prometheus.CounterVec
	reconSeconds prometheus.Histogram
	mailSent     *prometheus.CounterVec
	// accepted and clamped are the database-wide credit totals (float64
	// bits) as of the last rollup.
	accepted, clamped atomic.Uint64

	mu      sync.Mutex
	pending map[time.Time]map[string]int64 // hour → outcome → RPCs
}

func newMetrics(pool *pgxpool.Pool, store *accounting.Store) *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), pending: map[time.Time]map[string]int64{}}
	m.rpcs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cobble_rpc_requests_total",
		Help: "Account-manager RPCs answered, by outcome: ok, error_reply (an error shown to the volunteer), unavailable (HTTP 503)."},
		[]string{"outcome"})
	m.rpcSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "cobble_rpc_duration_seconds",
		Help: "Time to answer an account-manager RPC.", Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}})
	m.reconRuns = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cobble_reconcile_runs_total",
		Help: "Reconciliation runs finished by this instance, by outcome (ok, unchanged, failed)."}, []string{"outcome"})
	m.reconSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "cobble_reconcile_duration_seconds",
		Help: "Duration of reconciliation runs.", Buckets: prometheus.ExponentialBuckets(1, 4, 8)})
	m.mailSent = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cobble_mail_sent_total",
		Help: "Delivery attempts of outbox messages by this instance, by kind and result: sent, retry (failed, tried again later), failed (given up)."},
		[]string{"kind", "result"})
	for _, o := range []string{accounting.OutcomeOK, accounting.OutcomeErrorReply, accounting.OutcomeUnavailable} {
		m.rpcs.WithLabelValues(o)
	}
	for _, s := range []reconcile.RunStatus{reconcile.RunOK, reconcile.RunUnchanged, reconcile.RunFailed} {
		m.reconRuns.WithLabelValues(string(s))
	}
	m.reg.MustRegister(m.rpcs, m.rpcSeconds, m.reconRuns, m.reconSeconds, prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "cobble_credit_accepted_cobblestones_total",
		Help: "Estimated credit accepted into the ledger, database-wide, as of the last rollup (each minute)."},
		func() float64 { return float64frombits(m.accepted.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "cobble_credit_clamped_cobblestones_total",
			Help: "Estimated credit claimed beyond host limits and not credited, database-wide, as of the last rollup."},
			func() float64 { return float64frombits(m.clamped.Load()) }),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		poolCollector(pool), m.mailSent,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "cobble_mail_queue_depth",
			Help: "Messages in the outbox waiting to be sent, database-wide (-1: the database did not answer)."},
			func() float64 { return mailQueueDepth(store) }))
	return m
}

// handler serves the metrics in Prometheus' text format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// observeMail counts a delivery attempt of an outbox message.
func (m *metrics) observeMail(kind accounting.MailKind, result string) {
	m.mailSent.WithLabelValues(string(kind), result).Inc()
}

// mailQueueDepth reads the outbox's queued messages for a scrape.
func mailQueueDepth(store *accounting.Store) float64 {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n, err := store.Mail.MailQueueDepth(ctx)
	if err != nil {
		return -1
	}
	return float64(n)
}

// observeRun counts a finished reconciliation run.
func (m *metrics) observeRun(status reconcile.RunStatus, took time.Duration) {
	m.reconRuns.WithLabelValues(string(status)).Inc()
	m.reconSeconds.Observe(took.Seconds())
}

// rpc wraps the RPC handler: it times each RPC and counts it by outcome,
// read from the reply (HTTP 503, or an <error_num> in the XML).
func (m *metrics) rpc(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &replyRecorder{ResponseWriter: w, status: http.StatusOK}
		next(rec, r)
		outcome := accounting.OutcomeOK
		switch {
		case rec.status == http.StatusServiceUnavailable:
			outcome = accounting.OutcomeUnavailable
		case rec.status != http.StatusOK || rec.errorReply:
			outcome = accounting.OutcomeErrorReply
		}
		m.rpcSeconds.Observe(time.Since(start).Seconds())
		m.rpcs.WithLabelValues(outcome).Inc()
		m.mu.Lock()
		hour := start.UTC().Truncate(time.Hour)
		if m.pending[hour] == nil {
			m.pending[hour] = map[string]int64{}
		}
		m.pending[hour][outcome]++
		m.mu.Unlock()
	}
}

// takePending returns the RPC counts since the last call, per hour.
func (m *metrics) takePending() map[time.Time]map[string]int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.pending
	m.pending = map[time.Time]map[string]int64{}
	return p
}

// givePending puts counts back that could not be stored.
func (m *metrics) givePending(p map[time.Time]map[string]int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for hour, counts := range p {
		if m.pending[hour] == nil {
			m.pending[hour] = map[string]int64{}
		}
		for o, n := range counts {
			m.pending[hour][o] += n
		}
	}
}

// replyRecorder notes an RPC reply's status and whether it is an error reply.
type replyRecorder struct {
	http.ResponseWriter
	status     int
	errorReply bool
}

func (r *replyRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *replyRecorder) Write(b []byte) (int, error) {
	if !r.errorReply && bytes.Contains(b, []byte("<error_num>")) {
		r.errorReply = true
	}
	return r.ResponseWriter.Write(b)
}
