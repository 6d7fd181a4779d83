package accounting

import "strconv"

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
	res.Prefs, res.Keywords, res.FeedToken = prefs.Compute, prefs.Keywords, rd.feedToken
	odd := prefs.Odd
	if prefs.Compute != nil {
		res.HostVenue = DefaultVenue
		res.Venues = make([]Venue, len(prefs.Venues))
		for i, v := range prefs.Venues {
			res.Venues[i] = Venue{Name: v.Name, Compute: v.Compute}
			if at := rd.host.LocationID; at != nil && *at == v.ID {
				res.HostVenue = v.Name
			}
		}
		if at := rd.host.LocationID; at != nil && res.HostVenue == DefaultVenue && odd == "" {
			odd = "the computer's location " + strconv.FormatInt(*at, 10) + " is unknown"
		}
	}
	s.noteOddPrefs(rd.user.ID, odd)
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
