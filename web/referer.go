package web

import (
	"net/http"
	"net/url"
)

// refererCheck refuses an unsafe request that carries neither Origin nor
// Sec-Fetch-Site (which http.CrossOriginProtection judges) but whose
// Referer names another origin: older browsers, and some privacy
// settings, send only the Referer. A request without any of the three is
// not from a browser form and passes.
func refererCheck(deny http.Handler) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !safeMethod(r.Method) && r.Header.Get("Origin") == "" && r.Header.Get("Sec-Fetch-Site") == "" {
				if ref := r.Header.Get("Referer"); ref != "" && !sameHost(ref, r.Host) {
					deny.ServeHTTP(w, r)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// sameHost says whether the URL ref is on host (host[:port] as the
// request's Host header gives it). An unreadable Referer is foreign.
func sameHost(ref, host string) bool {
	u, err := url.Parse(ref)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host == host
}
