package web

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cobble-am/cobble/internal/primary"
)

// primaryCollectors are the metrics of the primary database: the
// failovers seen, how many hosts DATABASE_URL names, and whether the
// primary has a synchronous standby.
func primaryCollectors(w *primary.Watcher) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "cobble_database_failovers_total",
			Help: "Failovers this instance saw: the primary database's timeline went up (a standby was promoted)."},
			func() float64 { return float64(w.Failovers()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "cobble_database_hosts",
			Help: "PostgreSQL servers DATABASE_URL names: 2 or more for a failover formation."},
			func() float64 { return float64(w.Hosts()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "cobble_database_synchronous_standby",
			Help: "1 when the primary database has a synchronous standby (synchronous_standby_names is set), " +
				"0 when it has none, -1 before the primary was first reached."},
			func() float64 { return standbyValue(w.Status()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "cobble_database_standbys_streaming",
			Help: "Standbys streaming from the primary database at the last check (-1 before it was first reached)."},
			func() float64 { return streamingValue(w.Status()) }),
	}
}

func standbyValue(s primary.Status) float64 {
	switch {
	case s.Addr == "":
		return -1
	case s.Standby:
		return 1
	}
	return 0
}

func streamingValue(s primary.Status) float64 {
	if s.Addr == "" {
		return -1
	}
	return float64(s.Streaming)
}

// primaryLine says in a line which server is the primary, for /readyz.
func primaryLine(s primary.Status) string {
	if s.Addr == "" {
		return "primary database: not reached yet"
	}
	line := fmt.Sprintf("primary database %s (timeline %d", s.Addr, s.Timeline)
	if s.Failovers > 0 {
		line += fmt.Sprintf(", %d failovers seen", s.Failovers)
	}
	line += ")"
	if s.Problem != "" {
		line = "last " + line
	}
	return line
}
