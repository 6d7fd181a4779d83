package boinc

// RSSFeed is a notices feed for the client to poll. The client needs both
// fields (a feed without either is dropped) and keeps at most 255 bytes of
// URL.
type RSSFeed struct {
	URL string
	// PollInterval is the seconds between the client's fetches of the feed.
	PollInterval float64
}

// appendRSSFeeds writes <rss_feeds> with one <rss_feed> (url, poll_interval)
// per feed; nothing when there are none.
func appendRSSFeeds(dst []byte, feeds []RSSFeed) []byte {
	if len(feeds) == 0 {
		return dst
	}
	dst = append(dst, "    <rss_feeds>\n"...)
	for _, f := range feeds {
		dst = append(dst, "        <rss_feed>\n"...)
		dst = appendStringElem(dst, "            ", "url", f.URL, true)
		dst = appendFloatElem(dst, "            ", "poll_interval", f.PollInterval, true)
		dst = append(dst, "        </rss_feed>\n"...)
	}
	return append(dst, "    </rss_feeds>\n"...)
}
