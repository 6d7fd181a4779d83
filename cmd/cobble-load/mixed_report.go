package main

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// The mixed load's budgets beyond the pages' own.
const (
	rpcP99Budget   = 50 * time.Millisecond
	resetP99Budget = 10 * time.Second
)

// mixed records the mixed load against the same work alone.
func (r *report) mixed(cfg config, pages []page, rpcAlone stats, alone *visitors, m mixedResult) {
	verdict := func(over bool) string {
		if over {
			return "OVER"
		}
		return "within"
	}
	r.printf("\nunder the mix against alone, in this run (p50 / p99; a download's to its first byte; " +
		"a page's verdict is of its requests begun while the reconciliation ran, if it ran):\n")
	r.printf("  %-32s %23s %23s %6s %23s %9s\n", "", "alone", "at once", "count", "while reconciling", "budget")
	r.printf("  %-32s %23s %23s %6d %23s %9s %s\n", "RPC", pair(rpcAlone.percentile(0.5), rpcAlone.percentile(0.99)),
		pair(m.rpc.percentile(0.5), m.rpc.percentile(0.99)), m.rpc.ok, "", "<"+ms(rpcP99Budget),
		verdict(m.rpc.percentile(0.99) >= rpcP99Budget))
	from, until := m.began.Add(m.exportAt[0]), m.began.Add(m.exportAt[1])
	for i, p := range pages {
		a, b := alone.times[i].judged(p), m.pages.times[i].judged(p)
		c := b
		if m.export.took > 0 {
			c = m.pages.times[i].between(p, from, until)
		}
		state := "no request"
		if len(c) > 0 {
			_, p99, _ := quantiles(c)
			state = verdict(p99 >= p.budget)
		}
		r.printf("  %-32s %23s %23s %6d %23s %9s %s\n", p.name, pageQuantiles(a), pageQuantiles(b), len(b),
			pageQuantiles(c), "<"+ms(p.budget), state)
	}
	for i, vs := range []*visitors{alone, m.pages} {
		for _, k := range slices.Sorted(maps.Keys(vs.failed)) {
			r.printf("  failed %s: %s: %d\n", []string{"alone", "at once"}[i], k, vs.failed[k])
		}
	}
	r.resets(m)
	if m.export.took > 0 {
		r.printf("export reconciliation: from %v to %v after the mix began (its measured part: %v to %v)\n",
			round(m.exportAt[0]), round(m.exportAt[1]), round(m.win.measureFrom.Sub(m.began)),
			round(m.win.stop.Sub(m.began)))
	}
	r.printf("credit measure at the start: %s (the one after the reconciliation is in its process)\n", ms(m.measure))
}

// resets records the password resets' mail.
func (r *report) resets(m mixedResult) {
	asked := len(m.resets) + m.missing
	r.printf("password resets: %d accepted, %d messages arrived at the SMTP server", asked, len(m.resets))
	if m.missing > 0 {
		r.printf(", %d did not within %v of the load's end", m.missing, resetWait)
	}
	r.printf("\n")
	for _, k := range slices.Sorted(maps.Keys(m.refused)) {
		r.printf("  not accepted: %s: %d\n", k, m.refused[k])
	}
	if len(m.resets) == 0 {
		return
	}
	p50, p99, most := quantiles(m.resets)
	verdict := "within"
	if p99 >= resetP99Budget || m.missing > 0 {
		verdict = "OVER"
	}
	r.printf("reset mail, from the request to the message at the SMTP server: p50 %s  p99 %s  max %s "+
		"(budget p99 < %v) %s\n", secs(p50), secs(p99), secs(most), resetP99Budget, verdict)
}

// pair is "p50 / p99" in milliseconds.
func pair(p50, p99 time.Duration) string { return ms(p50) + " / " + ms(p99) }

// pageQuantiles is pair of a page's times, or a dash without any.
func pageQuantiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "—"
	}
	p50, p99, _ := quantiles(ds)
	return pair(p50, p99)
}

// secs formats d in seconds.
func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
