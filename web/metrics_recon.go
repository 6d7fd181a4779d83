package web

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cobble-am/cobble/accounting/reconcile"
)

// reconCollector reports, per project, when reconciliation last succeeded,
// read from the database at each scrape: every instance reports the same
// values, which survive restarts and do not depend on which instance ran.
type reconCollector struct {
	reconciler *reconcile.Reconciler
	last       *prometheus.Desc
}

func newReconCollector(reconciler *reconcile.Reconciler) *reconCollector {
	return &reconCollector{reconciler: reconciler, last: prometheus.NewDesc("cobble_reconcile_last_success_timestamp_seconds",
		"When the project's latest successful reconciliation run (ok or unchanged) finished, database-wide, "+
			"for each project with a stats URL that is not retired; before its first, when it was added to the catalog. "+
			"Absent when the database did not answer.",
		[]string{"project"}, nil)}
}

func (c *reconCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.last }

func (c *reconCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	last, err := c.reconciler.LastReconciled(ctx)
	if err != nil {
		return
	}
	for url, t := range last {
		ch <- prometheus.MustNewConstMetric(c.last, prometheus.GaugeValue, float64(t.UnixMilli())/1e3, url)
	}
}
