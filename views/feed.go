package views

import (
	"encoding/xml"
	"fmt"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// NoticesFeed is what a volunteer's notices feed says: the last 7 days and
// the warnings of their dashboard.
type NoticesFeed struct {
	SiteName string
	Link     string // the dashboard's URL
	UserID   int64
	Week     accounting.Totals
	Warnings []accounting.Warning
	Now      time.Time
	// Lang is the volunteer's language (nil: English). The guids do not
	// depend on it, so that a client shows a notice once whatever the
	// language.
	Lang *locale.Lang
}

type rss struct {
	XMLName xml.Name   `xml:"rss"`
	Version string     `xml:"version,attr"`
	Channel rssChannel `xml:"channel"`
}

type rssChannel struct {
	Title       string    `xml:"title"`
	Link        string    `xml:"link"`
	Description string    `xml:"description"`
	Items       []rssItem `xml:"item"`
}

type rssItem struct {
	Title       string `xml:"title"`
	Link        string `xml:"link"`
	GUID        string `xml:"guid"`
	PubDate     string `xml:"pubDate"`
	Description string `xml:"description"`
}

// RSS renders the feed as RSS 2.0, as BOINC clients read it: per item a
// title, link, guid (stable, so a client shows each notice once) and
// pubDate (clients drop items older than 30 days).
func (f NoticesFeed) RSS() ([]byte, error) {
	l := f.Lang
	if l == nil {
		l = locale.English()
	}
	week, day := f.Now.UTC().AddDate(0, 0, -int(f.Now.UTC().Weekday()+6)%7), f.Now.UTC()
	y, w := week.ISOWeek()
	c := rssChannel{Title: l.T("feed.channel_title", "Site", f.SiteName), Link: f.Link,
		Description: l.T("feed.channel_description", "Site", f.SiteName)}
	c.Items = append(c.Items, rssItem{
		Title: l.T("feed.week_title", "Site", f.SiteName),
		Link:  f.Link, GUID: fmt.Sprintf("%s-%d-week-%d-%02d", f.SiteName, f.UserID, y, w),
		PubDate: dayStart(week).Format(time.RFC1123Z),
		Description: l.T("feed.week_description", "Credit", locale.Credit(f.Week.Estimated),
			"CPUHours", hoursIn(l, f.Week.CPUHours), "GPUHours", hoursIn(l, f.Week.GPUHours),
			"Jobs", locale.M("mail.jobs", "Count", f.Week.JobsOK), "Failed", f.Week.JobsError),
	})
	for _, wn := range f.Warnings {
		// The guid hashes the English words: the same notice in another
		// language is the same notice.
		c.Items = append(c.Items, rssItem{Title: wn.Kind.Title().In(l), Link: f.Link,
			GUID:    fmt.Sprintf("%s-%d-%s-%s-%x", f.SiteName, f.UserID, string(wn.Kind), day.Format("2006-01-02"), hash(wn.Msg.String())),
			PubDate: dayStart(day).Format(time.RFC1123Z), Description: wn.Msg.In(l)})
	}
	b, err := xml.MarshalIndent(rss{Version: "2.0", Channel: c}, "", " ")
	return append([]byte(xml.Header), b...), err
}

func dayStart(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// hash is FNV-1a of s: distinguishes warnings of one kind in guids.
func hash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}
