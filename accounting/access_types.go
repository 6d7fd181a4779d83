package accounting

import "time"

// WebSession is one logged-in web session of a volunteer.
type WebSession struct {
	ID        int64     `db:"id"`
	StartedAt time.Time `db:"started_at"`
	// LastSeenAt is the session's latest request, to within about a minute.
	LastSeenAt time.Time `db:"last_seen_at"`
	// UserAgent is what the browser said it is when the session started.
	UserAgent string `db:"user_agent"`
	// Address is the client's address (an IPv6 client's /64) when last seen.
	Address string `db:"address"`
}

// How long a web session lasts: at most SessionLifetime from its log-in,
// and until SessionIdle passes without a request. The session manager
// (scs) and the rows of user_sessions use the same two.
const (
	SessionLifetime = 30 * 24 * time.Hour
	SessionIdle     = 14 * 24 * time.Hour
)

// AttemptKind names what a counter in attempt_counts counts.
type AttemptKind string

// The kinds of attempt Cobble limits, one counter per key and window.
const (
	AttemptAddr    AttemptKind = "addr"    // wrong passwords from a client address
	AttemptPair    AttemptKind = "pair"    // wrong passwords from an address on one account
	AttemptAccount AttemptKind = "account" // wrong passwords on an account, from anywhere
	AttemptSignup  AttemptKind = "signup"  // accounts made (or tried) from an address
	AttemptMail    AttemptKind = "mail"    // password resets asked for from an address
)

// FailureCounts are the wrong-password counts that decide whether a client
// address may try a password on an account, in the current window.
type FailureCounts struct {
	Addr, Pair, Account int
	AccountLast         time.Time // of the account's last failure; zero if none
}
