package accounting

import "time"

// WebSession is one logged-in web session of a volunteer.
type WebSession struct {
	ID        int64
	StartedAt time.Time
	// LastSeenAt is the session's latest request, to within about a minute.
	LastSeenAt time.Time
	// UserAgent is what the browser said it is when the session started.
	UserAgent string
	// Address is the client's address (an IPv6 client's /64) when last seen.
	Address string
}
