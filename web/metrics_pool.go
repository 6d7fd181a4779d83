package web

import (
	"math"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

func float64frombits(b uint64) float64 { return math.Float64frombits(b) }

// poolCollector reports the PostgreSQL connection pool's statistics.
func poolCollector(pool *pgxpool.Pool) prometheus.Collector {
	return &poolStats{pool: pool,
		total:    prometheus.NewDesc("cobble_db_pool_connections", "Connections in the pool, by state.", []string{"state"}, nil),
		max:      prometheus.NewDesc("cobble_db_pool_max_connections", "The most connections the pool opens.", nil, nil),
		acquires: prometheus.NewDesc("cobble_db_pool_acquires_total", "Connections acquired from the pool.", nil, nil),
		waits: prometheus.NewDesc("cobble_db_pool_empty_acquires_total",
			"Acquires that waited because the pool had no idle connection.", nil, nil),
		waited: prometheus.NewDesc("cobble_db_pool_acquire_seconds_total", "Total time spent acquiring connections.", nil, nil),
	}
}

type poolStats struct {
	pool                                *pgxpool.Pool
	total, max, acquires, waits, waited *prometheus.Desc
}

func (p *poolStats) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{p.total, p.max, p.acquires, p.waits, p.waited} {
		ch <- d
	}
}

func (p *poolStats) Collect(ch chan<- prometheus.Metric) {
	s := p.pool.Stat()
	ch <- prometheus.MustNewConstMetric(p.total, prometheus.GaugeValue, float64(s.AcquiredConns()), "acquired")
	ch <- prometheus.MustNewConstMetric(p.total, prometheus.GaugeValue, float64(s.IdleConns()), "idle")
	ch <- prometheus.MustNewConstMetric(p.total, prometheus.GaugeValue, float64(s.ConstructingConns()), "constructing")
	ch <- prometheus.MustNewConstMetric(p.max, prometheus.GaugeValue, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(p.acquires, prometheus.CounterValue, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(p.waits, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(p.waited, prometheus.CounterValue, s.AcquireDuration().Seconds())
}
