package accounting

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// A volunteer's public side: the profile (off until they turn it on), the
// badge, the leaderboards and the certificates. What is public is read
// from the rollups only, and never names a computer, a location, a time
// zone, an email or a CPID.

// PublicProfile is what a volunteer chose to show at /v/{handle}. With
// Public off nothing is shown, whatever the ticks say.
type PublicProfile struct {
	Handle       string
	Public       bool // the one switch
	ShowTotals   bool // all-time estimated and confirmed credit
	ShowProjects bool // per-project totals
	ShowAreas    bool // per-science-area totals
	ShowChart    bool // the last 365 days, by day
	ListMe       bool // on the leaderboards (only while Public)
	InStats      bool // in the statistics export (only while Public)
	StatsHosts   bool // their computers too, in host.gz
	// StatsCPID is their cross-project id in the statistics export, made
	// when they first opt in and renewed on their asking; "" before.
	StatsCPID string
}

// InExport reports whether the volunteer is in the statistics export.
func (p PublicProfile) InExport() bool { return p.Public && p.InStats }

// Listed reports whether the volunteer is on the leaderboards.
func (p PublicProfile) Listed() bool { return p.Public && p.ListMe }

// handlePattern is what a handle is made of: 3 to 32 of a-z, 0-9 and '-'.
var handlePattern = regexp.MustCompile(`^[a-z0-9-]{3,32}$`)

// ReservedHandles are words a handle may not be: Cobble's own paths and
// words a visitor could take for Cobble speaking.
var ReservedHandles = []string{
	"about", "account", "admin", "administrator", "api", "badge", "certificate", "certificates",
	"cobble", "computers", "dashboard", "dev", "email", "export", "favicon", "healthz", "help",
	"language", "leaderboard", "leaderboards", "login", "logout", "mail", "me", "moderator",
	"new", "notices", "null", "password", "profile", "projects", "public", "readyz", "root",
	"rpc", "settings", "signup", "static", "staff", "support", "system", "unsubscribe", "user",
	"users", "www",
}

// Validate checks the handle (trimmed of spaces) when the profile is
// public or a handle is given: a *ValidationError on field "handle".
func (p *PublicProfile) Validate() error {
	p.Handle = strings.TrimSpace(p.Handle)
	v := validation{}
	if p.Handle == "" {
		v.check(!p.Public, "handle", locale.M("public.handle_needed"))
		return v.err()
	}
	v.check(handlePattern.MatchString(p.Handle), "handle", locale.M("public.handle_form"))
	v.check(!slices.Contains(ReservedHandles, p.Handle), "handle", locale.M("public.handle_reserved"))
	return v.err()
}

// ValidHandle reports whether h could be a handle, so that a visitor's
// guess is answered without reading the database.
func ValidHandle(h string) bool {
	return handlePattern.MatchString(h) && !slices.Contains(ReservedHandles, h)
}

// CreditPair is estimated and confirmed credit, in Cobblestones.
type CreditPair struct {
	Estimated float64 `db:"estimated"`
	Confirmed float64 `db:"confirmed"`
}

// RolledProject is a volunteer's credit for one project over some days,
// read from the rollups.
type RolledProject struct {
	ProjectID int64  `db:"project_id"`
	Name      string `db:"name"`
	Keywords  []int  `db:"keywords"`
	CreditPair
}

// RolledDay is a volunteer's credit on one day, read from the rollups.
type RolledDay struct {
	Day time.Time `db:"day"` // midnight UTC
	CreditPair
}

// RolledShare is one volunteer's confirmed credit for one project over
// some days, read from the rollups (the leaderboards).
type RolledShare struct {
	UserID    int64   `db:"user_id"`
	ProjectID int64   `db:"project_id"`
	Confirmed float64 `db:"confirmed"`
}

// AreaCredit is credit to the projects of one science area (a top-level
// science keyword).
type AreaCredit struct {
	Area int // BOINC keyword id
	CreditPair
}

// ScienceAreas returns the science areas of a project's keywords: the
// top-level science keyword of each, without repeats, in keyword order.
func ScienceAreas(keywords []int) []int {
	var areas []int
	for _, id := range keywords {
		k, ok := KeywordByID(id)
		if !ok || k.Category != CategoryScience {
			continue
		}
		if up := k.Ancestors(); len(up) > 0 {
			k.ID = up[len(up)-1]
		}
		if !slices.Contains(areas, k.ID) {
			areas = append(areas, k.ID)
		}
	}
	return areas
}

// ByArea sums projects' credit per science area, largest confirmed
// first; a project of two areas counts in both, one without any in none.
func ByArea(projects []RolledProject) []AreaCredit {
	sums := map[int]CreditPair{}
	for _, p := range projects {
		for _, a := range ScienceAreas(p.Keywords) {
			s := sums[a]
			s.Estimated += p.Estimated
			s.Confirmed += p.Confirmed
			sums[a] = s
		}
	}
	out := make([]AreaCredit, 0, len(sums))
	for a, s := range sums {
		out = append(out, AreaCredit{Area: a, CreditPair: s})
	}
	slices.SortFunc(out, func(x, y AreaCredit) int {
		if x.Confirmed != y.Confirmed {
			return cmpDesc(x.Confirmed, y.Confirmed)
		}
		return x.Area - y.Area
	})
	return out
}

// cmpDesc orders larger numbers first.
func cmpDesc(x, y float64) int {
	switch {
	case x > y:
		return -1
	case x < y:
		return 1
	}
	return 0
}

// PublicPage is what /v/{handle} may show: only the parts ticked are
// filled. Through is the last day the rollups hold.
type PublicPage struct {
	Profile  PublicProfile
	Through  time.Time
	Totals   CreditPair      // all time (ShowTotals)
	Projects []RolledProject // all time, largest confirmed first (ShowProjects)
	Areas    []AreaCredit    // all time (ShowAreas)
	Days     []RolledDay     // the 365 days to Through (ShowChart)
}

// Badge is what a badge shows: the handle, confirmed credit all time and
// over the last 30 days, and the top science areas.
type Badge struct {
	Handle    string
	Language  string // the volunteer's language code ("" for English)
	Totals    bool   // the profile shows its totals: Confirmed and Last30 are drawn
	Confirmed float64
	Last30    float64
	Areas     []int // at most three, largest first; none unless the profile shows its areas
	Through   time.Time
	Site      string // the site's name, set by the caller
}

// CertificateRequest is what a volunteer asks a certificate for: the name
// it gives and the days it covers (midnight UTC, inclusive).
type CertificateRequest struct {
	Name     string
	From, To time.Time
	Language string // the catalog code it is written in
}

// Certificates' bounds.
const (
	MaxCertificateYears = 10  // the longest span a certificate covers
	MaxCertificates     = 100 // certificates a volunteer keeps, withdrawn ones too
)

// Validate checks the name (trimmed) and the days against today: from
// not after to, to not after today, the span at most MaxCertificateYears.
func (c *CertificateRequest) Validate(today time.Time) error {
	c.Name = strings.TrimSpace(c.Name)
	v := validation{}
	if c.Name == "" {
		v.check(false, "name", locale.M("certificate.name_needed"))
	} else {
		v.check(len([]rune(c.Name)) <= 100 && textOnly(c.Name), "name", locale.M("certificate.name_form"))
	}
	v.check(!c.From.After(c.To), "from", locale.M("certificate.from_after_to"))
	v.check(!c.To.After(today), "to", locale.M("certificate.to_future"))
	v.check(!c.From.Before(c.To.AddDate(-MaxCertificateYears, 0, 0)), "from", locale.M("certificate.too_long"))
	return v.err()
}

// settledThrough ends the request's days at through, the last day whose
// credit is settled: a *ValidationError on "from" when none of its days
// is.
func (c *CertificateRequest) settledThrough(through time.Time) error {
	v := validation{}
	if through.IsZero() {
		v.check(false, "from", locale.M("certificate.none_settled"))
	} else {
		v.check(!c.From.After(through), "from", locale.M("certificate.not_settled", "Day", locale.Date(through)))
	}
	if c.To.After(through) {
		c.To = through
	}
	return v.err()
}

// textOnly reports whether s has no control characters.
func textOnly(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// Certificate is what a certificate certifies, fixed when it was issued.
type Certificate struct {
	Code        string // the verification code, 26 of a-z and 2-7 (130 bits)
	Name        string
	From, To    time.Time // the days covered, midnight UTC
	Confirmed   float64
	Estimated   float64
	Projects    []string // the projects with credit then, largest confirmed first
	Language    string
	IssuedAt    time.Time
	WithdrawnAt *time.Time // only on the volunteer's own list
}

// BoardSize is how many volunteers a leaderboard lists.
const BoardSize = 100

// BoardEntry is one line of a leaderboard.
type BoardEntry struct {
	Rank      int
	Handle    string
	Confirmed float64
	user      int64 // the volunteer who had the handle when the entry was computed
}

// Board is a leaderboard over one span: overall and per science area
// (keyword id → entries).
type Board struct {
	Overall []BoardEntry
	Areas   map[int][]BoardEntry
}

// Boards are the leaderboards: the last 30 days and all time, as of
// Through (the last day the rollups hold).
type Boards struct {
	Last30, AllTime Board
	Through         time.Time
}
