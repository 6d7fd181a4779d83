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

// How long a web session lasts: at most SessionLifetime from its log-in,
// and until SessionIdle passes without a request. The session manager
// (scs) and the rows of user_sessions use the same two.
const (
	SessionLifetime = 30 * 24 * time.Hour
	SessionIdle     = 14 * 24 * time.Hour
)
