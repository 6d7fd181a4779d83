package accounting

import (
	"strconv"
	"time"
)

// The last stage of an RPC (SyncStore.Sync), after the write: the reply's
// extras. The volunteer's preferences and, in the steady state, their
// notices-feed token were read in the read stage; any other RPC's reply
// gets the feed token from AccountsStore.FeedToken (accounts_feed.go), which the handler
// calls.

// extras adds to res the volunteer's compute preferences and keywords and
// the feed token read with the host, and notes preferences that could not
// be used.
func (s *SyncStore) extras(rd rpcRead, res *SyncResult) {
	prefs := rd.state.prefs
	res.Keywords, res.FeedToken = prefs.Keywords, rd.feedToken
	odd := prefs.Odd
	res.Prefs, res.Venues, res.HostVenue = hostPrefs(prefs, rd.host.LocationID)
	if at := rd.host.LocationID; at != nil && venueName(prefs, *at) == "" && odd == "" {
		odd = "the computer's location " + strconv.FormatInt(*at, 10) + " is unknown"
	}
	s.noteOddPrefs(rd.user.ID, odd)
}

// hostPrefs returns the compute preferences that a computer at location
// at (nil: Default) is sent, and its venue. A computer at Default gets
// Default's values alone, with Default's modification time, and the venue
// DefaultVenue; nothing when the volunteer never chose them, so that it
// keeps its own. A computer at a named location gets Default's values (the
// location's when Default's were never chosen) with that location's one
// venue block, modified when either was. No other location's change
// reaches a computer, so adding, renaming or deleting one leaves every
// other computer's preferences as they were. A location that cannot be
// used (unknown, or left out of prefs.Venues) counts as Default.
func hostPrefs(prefs rpcPrefs, at *int64) (*ComputePrefs, []Venue, string) {
	for _, v := range prefs.Venues {
		if at == nil || *at != v.ID {
			continue
		}
		top := v.Compute
		if prefs.Compute != nil {
			top = *prefs.Compute
			top.ModTime = latest(prefs.Compute.ModTime, v.Compute.ModTime)
		}
		return &top, []Venue{{Name: v.Name, Compute: v.Compute}}, v.Name
	}
	if prefs.Compute == nil {
		return nil, nil, ""
	}
	return prefs.Compute, nil, DefaultVenue
}

// venueName returns the name of the usable location id, or "".
func venueName(prefs rpcPrefs, id int64) string {
	for _, v := range prefs.Venues {
		if v.ID == id {
			return v.Name
		}
	}
	return ""
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// noteOddPrefs logs, once per volunteer and instance (again only if more
// than maxOddPrefsLogged volunteers were logged since), that their stored
// compute preferences could not be used.
func (s *SyncStore) noteOddPrefs(userID int64, odd string) {
	if odd == "" {
		return
	}
	if s.oddPrefs.Put(userID, struct{}{}) && s.opts.Log != nil {
		s.opts.Log.Warn("stored preferences unusable; sending the standard preset or Default's values",
			"user", userID, "problem", odd)
	}
}
