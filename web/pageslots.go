package web

import "net/http"

// pageSlots bounds the page requests that work at once: every request but
// BOINC clients' (the RPC, the project configuration, the notices), the
// static files and the health checks. Each page holds a database
// connection while it works; under a burst of heavy pages (50 visitors
// beside a reconciliation, at 50 M ledger rows) they took every
// connection of the pool, and the clients' RPCs waited for one: 75 % of
// the acquisitions waited, 197 ms each on average, and the RPC's p99 was
// 1.4 s. With at most half the pool's connections for pages, the rest
// stay for the RPCs and the background jobs. A page request waits for a
// slot until its deadline, and is then answered busy.
type pageSlots chan struct{}

// newPageSlots returns n slots: by default (n ≤ 0) half the connections of
// a pool of poolConns, but never fewer than minPageSlots, so that a small
// pool (tests, a laptop) is not held to one page at a time.
func newPageSlots(n int, poolConns int32) pageSlots {
	if n <= 0 {
		n = max(int(poolConns)/2, minPageSlots)
	}
	return make(pageSlots, n)
}

// minPageSlots is the fewest page slots by default.
const minPageSlots = 8

// limit is a middleware that holds a slot while the request works; busy
// answers a request whose deadline passed while it waited for one.
func (s pageSlots) limit(busy http.HandlerFunc) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case s <- struct{}{}:
			case <-r.Context().Done():
				busy(w, r)
				return
			}
			defer func() { <-s }()
			next.ServeHTTP(w, r)
		})
	}
}
