package handlers

import (
	"net/http"
	"net/netip"

	"github.com/cobble-am/cobble/views"
)

// logIn starts a web session of the volunteer in this browser: a new
// session token (against fixation) and a row in user_sessions that the
// volunteer sees on /settings/sessions.
func (a *base) logIn(r *http.Request, userID int64) error {
	if err := a.endThisSession(r); err != nil { // a browser logged in already
		return err
	}
	rowID, err := a.access.StartSession(r.Context(), userID, r.UserAgent(), a.clientAddrText(r))
	if err != nil {
		return err
	}
	if err := a.renewSession(r.Context(), userID); err != nil {
		return err
	}
	a.sessions.Put(r.Context(), sessionRowID, rowID)
	return nil
}

// endThisSession logs this browser's session out and removes its row.
func (a *base) endThisSession(r *http.Request) error {
	if id := a.sessions.GetInt64(r.Context(), sessionRowID); id != 0 {
		if err := a.access.EndSession(r.Context(), id); err != nil {
			return err
		}
	}
	a.forgetUser(r)
	return nil
}

// forgetUser logs this browser's session out, a log-in waiting for its
// second factor too (the session's row is the caller's business).
func (a *base) forgetUser(r *http.Request) {
	for _, k := range []string{sessionUserID, sessionRowID, sessionAuthAt, sessionPendingUser, sessionPendingUntil} {
		a.sessions.Remove(r.Context(), k)
	}
}

// clientAddrText is the client's address as the sessions page shows it:
// an IPv4 address alone, an IPv6 client's /64, "" when unknown.
func (a *base) clientAddrText(r *http.Request) string {
	return addrText(a.clientAddr(r))
}

func addrText(p netip.Prefix) string {
	switch {
	case !p.IsValid():
		return ""
	case p.Addr().Is4() && p.Bits() == 32:
		return p.Addr().String()
	}
	return p.String()
}

// Sessions lists the volunteer's web sessions (GET /settings/sessions):
// where and since when they are logged in, this session marked.
func (a *Account) Sessions(w http.ResponseWriter, r *http.Request) error {
	list, err := a.access.Sessions(r.Context(), currentUser(r).ID)
	if err != nil {
		return err
	}
	d := views.SessionsPage{Current: a.sessions.GetInt64(r.Context(), sessionRowID), Sessions: list,
		Ended: r.URL.Query().Get("ended") == "others"}
	a.render(w, r, http.StatusOK, views.Sessions(a.volunteerPage(r, tr(r, "sessions.title"), "settings"), d))
	return nil
}

// EndOtherSessions logs out every other session of the volunteer (POST
// /settings/sessions/end-others), on every instance; this one stays.
func (a *Account) EndOtherSessions(w http.ResponseWriter, r *http.Request) error {
	keep := a.sessions.GetInt64(r.Context(), sessionRowID)
	if _, err := a.access.EndOtherSessions(r.Context(), currentUser(r).ID, keep); err != nil {
		return err
	}
	http.Redirect(w, r, "/settings/sessions?ended=others", http.StatusSeeOther)
	return nil
}
