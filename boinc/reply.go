package boinc

import (
	"math"
	"strconv"
)

// xmlHeader begins every document Cobble writes.
const xmlHeader = `<?xml version="1.0" encoding="UTF-8" ?>` + "\n"

// MaxOpaqueLen is the longest Reply.Opaque a BOINC client accepts in the
// layout AppendXML writes. The client reads <opaque> into a 256-byte
// buffer that must also hold the surrounding white space and the end tag;
// a longer value makes it reject the whole reply.
const MaxOpaqueLen = 240

// Reply is Cobble's answer to an account manager request, written as an
// <acct_mgr_reply> by AppendXML.
type Reply struct {
	Name          string  // the account manager's name; omitted when empty
	ErrorNum      int     // 0 = none
	ErrorMsg      string  // shown to the volunteer
	UserName      string  // omitted when empty
	Authenticator string  // the client's key for later requests; omitted when empty
	RepeatSec     float64 // seconds until the next request; 0 = omit (the client waits a day)
	Dynamic       bool    // ask for per-project counters in later requests
	// SigningKey is the public key text from PublicKeyText, written raw.
	// The client requires it in the reply to a join and rejects every
	// reply whose key differs from the first one it stored.
	SigningKey string
	// Opaque is written raw and echoed verbatim by the client in later
	// requests. It must not exceed MaxOpaqueLen bytes.
	Opaque   string
	Messages []string // each shown to the volunteer as a notice
	// RSSFeeds are notices feeds the client polls and shows in the Manager's
	// Notices tab (reply_rss.go).
	RSSFeeds []RSSFeed
	Accounts []Account
	// GlobalPreferences, when non-nil, replace the client's preferences.
	GlobalPreferences *GlobalPreferences
	// HostVenue, when a ValidVenueName, is written as <host_venue>: the
	// venue whose block of GlobalPreferences the computer uses. A 7.20.5
	// client ignores an empty one and keeps its venue (client/acct_mgr.cpp),
	// so a computer leaves a venue only for another name.
	HostVenue string
	// UserKeywords, when non-nil and not empty, are written as <user_keywords>.
	UserKeywords *UserKeywords
}

// Account tells the client what to do with one project. Projects not
// listed are left alone.
type Account struct {
	URL                 string   // required; the project's master URL
	URLSignature        string   // SignURL text, written raw; needed to attach
	Authenticator       string   // the project account key; needed to attach
	ResourceShare       float64  // 0 = omit: the project's own share applies
	NoRsc               []string // resource names not to use ("CPU", "NVIDIA", ...)
	DontRequestMoreWork bool     // stop fetching work; omitted (false) when not set
	DetachWhenDone      bool     // detach once the tasks in hand are done
	Detach              bool     // detach now
	Update              bool     // contact the project's scheduler soon
	// Suspend, when non-nil, suspends (true) or resumes (false) the
	// project; nil leaves it as the client has it.
	Suspend     *bool
	UserTotalEC *float64 // the volunteer's credit on the project; omitted when nil
	UserAvgEC   *float64 // the volunteer's average credit; omitted when nil
	// AttachCounters, when non-nil, are the host's counters for the
	// project, which newer clients adopt when attaching.
	AttachCounters *Counters
}

// AppendXML appends the reply as an XML document to dst and returns the
// extended slice.
//
// A reply with a non-zero ErrorNum or a non-empty ErrorMsg is an error
// reply: only <name>, <error_num> and <error_msg> are written, as the
// client ignores everything else in it. Otherwise empty strings, a zero
// RepeatSec and a zero ResourceShare are omitted, booleans that are true
// are written as <x/>, and SigningKey, URLSignature and Opaque are
// written raw on lines of their own; they must not contain their own end
// tags. Other strings are XML-escaped: & < > " ' become entity
// references, non-ASCII text stays raw UTF-8 (a BOINC client would decode
// a numeric reference below 256 as a single byte), and invalid UTF-8 and
// characters XML 1.0 cannot carry become U+FFFD. Numbers are written in
// plain decimal notation (strconv 'f' format), in the shortest form that
// reads back exactly; NaN, ±Inf and -0 are written as 0 (and so omitted
// where 0 is).
func (r *Reply) AppendXML(dst []byte) []byte {
	dst = append(dst, xmlHeader+"<acct_mgr_reply>\n"...)
	dst = appendStringElem(dst, "    ", "name", r.Name, false)
	if r.ErrorNum != 0 || r.ErrorMsg != "" {
		dst = appendIntElem(dst, "    ", "error_num", int64(r.ErrorNum))
		dst = appendStringElem(dst, "    ", "error_msg", r.ErrorMsg, true)
		return append(dst, "</acct_mgr_reply>\n"...)
	}
	dst = appendStringElem(dst, "    ", "user_name", r.UserName, false)
	dst = appendStringElem(dst, "    ", "authenticator", r.Authenticator, false)
	dst = appendRawElem(dst, "    ", "signing_key", r.SigningKey)
	dst = appendFloatElem(dst, "    ", "repeat_sec", r.RepeatSec, false)
	dst = appendFlag(dst, "    ", "dynamic", r.Dynamic)
	dst = appendRawElem(dst, "    ", "opaque", r.Opaque)
	for _, m := range r.Messages {
		dst = appendStringElem(dst, "    ", "message", m, true)
	}
	dst = appendRSSFeeds(dst, r.RSSFeeds)
	for i := range r.Accounts {
		dst = r.Accounts[i].appendXML(dst)
	}
	if r.GlobalPreferences != nil {
		dst = r.GlobalPreferences.appendXML(dst)
	}
	if ValidVenueName(r.HostVenue) {
		dst = appendStringElem(dst, "    ", "host_venue", r.HostVenue, true)
	}
	if r.UserKeywords != nil {
		dst = r.UserKeywords.appendXML(dst)
	}
	return append(dst, "</acct_mgr_reply>\n"...)
}

// appendXML appends the <account> element.
func (a *Account) appendXML(dst []byte) []byte {
	const in = "        "
	dst = append(dst, "    <account>\n"...)
	dst = appendStringElem(dst, in, "url", a.URL, true)
	dst = appendRawElem(dst, in, "url_signature", a.URLSignature)
	dst = appendStringElem(dst, in, "authenticator", a.Authenticator, false)
	dst = appendFloatElem(dst, in, "resource_share", a.ResourceShare, false)
	for _, rsc := range a.NoRsc {
		dst = appendStringElem(dst, in, "no_rsc", rsc, true)
	}
	dst = appendFlag(dst, in, "dont_request_more_work", a.DontRequestMoreWork)
	dst = appendFlag(dst, in, "detach_when_done", a.DetachWhenDone)
	dst = appendFlag(dst, in, "detach", a.Detach)
	dst = appendFlag(dst, in, "update", a.Update)
	if a.Suspend != nil {
		dst = appendIntElem(dst, in, "suspend", boolInt(*a.Suspend))
	}
	if a.UserTotalEC != nil {
		dst = appendFloatElem(dst, in, "user_total_ec", *a.UserTotalEC, true)
	}
	if a.UserAvgEC != nil {
		dst = appendFloatElem(dst, in, "user_avg_ec", *a.UserAvgEC, true)
	}
	if c := a.AttachCounters; c != nil {
		dst = appendFloatElem(dst, in, "cpu_ec", c.CPUEC, true)
		dst = appendFloatElem(dst, in, "cpu_time", c.CPUTime, true)
		dst = appendFloatElem(dst, in, "gpu_ec", c.GPUEC, true)
		dst = appendFloatElem(dst, in, "gpu_time", c.GPUTime, true)
		dst = appendIntElem(dst, in, "njobs_success", c.JobsSuccess)
		dst = appendIntElem(dst, in, "njobs_error", c.JobsError)
	}
	return append(dst, "    </account>\n"...)
}

// ProjectConfig is Cobble's answer to get_project_config.php, which BOINC
// Manager's wizard reads to learn that the URL belongs to an account
// manager.
type ProjectConfig struct {
	Name            string // the account manager's name
	MasterURL       string // omitted when empty
	MinPasswdLength int    // shown by the wizard when asking for a password
	// UsesUsername says that volunteers log in with a user name rather
	// than an email address.
	UsesUsername bool
}

// AppendXML appends the configuration as a <project_config> document to
// dst and returns the extended slice. <account_manager/> and
// <client_account_creation_disabled/> are always written. Strings are
// escaped as in Reply.AppendXML.
func (c *ProjectConfig) AppendXML(dst []byte) []byte {
	const in = "    "
	dst = append(dst, xmlHeader+"<project_config>\n"...)
	dst = appendStringElem(dst, in, "name", c.Name, true)
	dst = appendStringElem(dst, in, "master_url", c.MasterURL, false)
	dst = appendFlag(dst, in, "account_manager", true)
	dst = appendFlag(dst, in, "uses_username", c.UsesUsername)
	dst = appendIntElem(dst, in, "min_passwd_length", int64(c.MinPasswdLength))
	dst = appendFlag(dst, in, "client_account_creation_disabled", true)
	return append(dst, "</project_config>\n"...)
}

// appendStringElem writes <tag>escaped s</tag>, or nothing when s is
// empty unless always is set.
func appendStringElem(dst []byte, indent, tag, s string, always bool) []byte {
	if s == "" && !always {
		return dst
	}
	dst = appendOpen(dst, indent, tag)
	dst = appendEscaped(dst, s)
	return appendClose(dst, tag)
}

// appendRawElem writes s unescaped on lines of its own between <tag> and
// </tag>, or nothing when s is empty.
func appendRawElem(dst []byte, indent, tag, s string) []byte {
	if s == "" {
		return dst
	}
	dst = appendOpen(dst, indent, tag)
	dst = append(dst, '\n')
	dst = append(dst, s...)
	if s[len(s)-1] != '\n' {
		dst = append(dst, '\n')
	}
	dst = append(dst, indent...)
	return appendClose(dst, tag)
}

// appendFloatElem writes <tag>f</tag>; a non-finite f is written as 0,
// and a zero value is omitted unless always is set.
func appendFloatElem(dst []byte, indent, tag string, f float64, always bool) []byte {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		f = 0 // also turns -0 into 0
	}
	if f == 0 && !always {
		return dst
	}
	dst = appendOpen(dst, indent, tag)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	return appendClose(dst, tag)
}

// appendIntElem writes <tag>n</tag>.
func appendIntElem(dst []byte, indent, tag string, n int64) []byte {
	dst = appendOpen(dst, indent, tag)
	dst = strconv.AppendInt(dst, n, 10)
	return appendClose(dst, tag)
}

// appendFlag writes <tag/> when b is true.
func appendFlag(dst []byte, indent, tag string, b bool) []byte {
	if !b {
		return dst
	}
	dst = append(dst, indent...)
	dst = append(dst, '<')
	dst = append(dst, tag...)
	return append(dst, "/>\n"...)
}

func appendOpen(dst []byte, indent, tag string) []byte {
	dst = append(dst, indent...)
	dst = append(dst, '<')
	dst = append(dst, tag...)
	return append(dst, '>')
}

func appendClose(dst []byte, tag string) []byte {
	dst = append(dst, "</"...)
	dst = append(dst, tag...)
	return append(dst, ">\n"...)
}

// boolInt is 1 for true, 0 for false.
func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
