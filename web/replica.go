package web

import (
	"net/http"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// wroteCookie marks a browser that posted a change lately: its reads go
// to the primary, so that a person always sees their own change even when
// the read replica lags.
const wroteCookie = "cobble_wrote"

// wroteFor is how long after a change a browser's reads go to the primary:
// longer than the lag past which the replica is not read at all.
const wroteFor = time.Minute

// readYourWrites sends to the primary every read of a request that changes
// something (any unsafe method but logging in), or that comes from a
// browser that did within wroteFor. It is used only when there is a read
// replica.
func readYourWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := r.Cookie(wroteCookie)
		// Logging in changes nothing the replica's readers show.
		unsafe := r.Method != http.MethodGet && r.Method != http.MethodHead && r.URL.Path != "/login"
		if unsafe {
			http.SetCookie(w, &http.Cookie{Name: wroteCookie, Value: "1", Path: "/", MaxAge: int(wroteFor / time.Second),
				HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
		}
		if unsafe || err == nil {
			r = r.WithContext(accounting.WithPrimary(r.Context()))
		}
		next.ServeHTTP(w, r)
	})
}
