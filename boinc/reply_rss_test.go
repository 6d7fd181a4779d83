package boinc

import (
	"strings"
	"testing"
)

func TestReplyRSSFeeds(t *testing.T) {
	r := Reply{Name: "Cobble", RSSFeeds: []RSSFeed{{URL: "http://127.0.0.1:8080/notices/a&b.rss", PollInterval: 21600}}}
	got := string(r.AppendXML(nil))
	want := "    <rss_feeds>\n        <rss_feed>\n            <url>http://127.0.0.1:8080/notices/a&amp;b.rss</url>\n" +
		"            <poll_interval>21600</poll_interval>\n        </rss_feed>\n    </rss_feeds>\n"
	if !strings.Contains(got, want) {
		t.Errorf("reply:\n%s\nwant it to hold:\n%s", got, want)
	}
	if r.RSSFeeds = nil; strings.Contains(string(r.AppendXML(nil)), "rss_feeds") {
		t.Error("a reply without feeds writes <rss_feeds>")
	}
}
