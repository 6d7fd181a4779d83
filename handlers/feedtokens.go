package handlers

import (
	"context"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/cache"
	"github.com/cobble-am/cobble/boinc"
)

// feedPollInterval is how often clients fetch a volunteer's notices feed.
const feedPollInterval = 6 * 60 * 60

// feedTokenTTL is how long an instance reuses a volunteer's feed token in
// the RPC replies that do not read it with the host. A renewed token is
// forgotten when it commits (ForgetCached, told by the database), and
// while no such word can come the cache is not used.
const feedTokenTTL = 10 * time.Minute

// maxCachedFeedTokens bounds the feed-token cache: one entry per volunteer
// whose hosts made an RPC other than a steady-state one lately.
const maxCachedFeedTokens = 100_000

// newFeedTokens returns the cache of volunteers' notices-feed tokens by
// user ID for RPC replies, so that RPCs other than steady-state ones do not
// read them each time. It measures feedTokenTTL on now.
func newFeedTokens(now func() time.Time) *cache.Cache[int64, string] {
	return cache.New[int64](cache.Options[string]{Max: maxCachedFeedTokens, TTL: feedTokenTTL, Now: now})
}

// rssFeeds returns the reply's <rss_feeds> for a volunteer: their notices
// feed. A steady-state RPC read the token with the host (token); other
// RPCs read it here, cached. When it cannot be read the reply goes
// without it.
func (a *Client) rssFeeds(ctx context.Context, userID int64, token string) []boinc.RSSFeed {
	if token != "" {
		return []boinc.RSSFeed{{URL: a.feedURL(token), PollInterval: feedPollInterval}}
	}
	// The cache is trusted only while the store hears of changes (a token
	// renewed on another instance); otherwise each such RPC reads it.
	token, ok := a.feeds.Get(userID)
	if !ok || !a.instance.Listening() {
		var err error
		if token, err = a.accounts.FeedToken(ctx, userID); err != nil {
			a.log.WarnContext(ctx, "notices feed token", "err", err)
			return nil
		}
		a.feeds.Put(userID, token)
	}
	return []boinc.RSSFeed{{URL: a.feedURL(token), PollInterval: feedPollInterval}}
}

// ForgetCached drops what the handlers keep in memory that c changed: a
// volunteer's feed token, or every one when c.All.
func (a *Client) ForgetCached(c accounting.Change) {
	switch {
	case c.All:
		a.feeds.Clear()
	case c.FeedUser != 0:
		a.feeds.Delete(c.FeedUser)
	}
}

// feedURL is the address of the notices feed with token.
func (a *base) feedURL(token string) string {
	return a.cfg.BaseURL + "notices/" + token + ".rss"
}
