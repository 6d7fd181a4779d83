package handlers

import (
	"context"
	"sync"
	"time"

	"github.com/cobble-am/cobble/boinc"
)

// feedPollInterval is how often clients fetch a volunteer's notices feed.
const feedPollInterval = 6 * 60 * 60

// feedTokenTTL is how long an instance reuses a volunteer's feed token in
// the RPC replies that do not read it with the host. Nothing in Cobble
// renews a token yet (Store.RenewFeedToken has no caller); should one
// change, these replies carry the new one within this time.
const feedTokenTTL = 10 * time.Minute

// feedTokens caches volunteers' notices-feed tokens for RPC replies, so
// that steady-state RPCs do not read them each time.
type feedTokens struct {
	mu sync.Mutex
	m  map[int64]feedToken
}

type feedToken struct {
	token string
	at    time.Time
}

// rssFeeds returns the reply's <rss_feeds> for a volunteer: their notices
// feed. A steady-state RPC read the token with the host (token); other
// RPCs read it here, cached. When it cannot be read the reply goes
// without it.
func (a *App) rssFeeds(ctx context.Context, userID int64, token string) []boinc.RSSFeed {
	if token != "" {
		return []boinc.RSSFeed{{URL: a.feedURL(token), PollInterval: feedPollInterval}}
	}
	now := a.now()
	a.feeds.mu.Lock()
	t, ok := a.feeds.m[userID]
	a.feeds.mu.Unlock()
	if !ok || now.Sub(t.at) > feedTokenTTL {
		token, err := a.store.FeedToken(ctx, userID)
		if err != nil {
			a.log.WarnContext(ctx, "notices feed token", "err", err)
			return nil
		}
		t = feedToken{token: token, at: now}
		a.feeds.mu.Lock()
		if len(a.feeds.m) > 100_000 {
			clear(a.feeds.m)
		}
		a.feeds.m[userID] = t
		a.feeds.mu.Unlock()
	}
	return []boinc.RSSFeed{{URL: a.feedURL(t.token), PollInterval: feedPollInterval}}
}
