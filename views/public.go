package views

import (
	"context"
	"slices"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// PublicSettingsPage is /settings/public: the handle and the ticks.
type PublicSettingsPage struct {
	Profile accounting.PublicProfile
	Errors  Fields
	Saved   bool
	Renewed bool   // the statistics id was just renewed
	BaseURL string // the site's URL, ending in "/", for the profile's address
}

// PublicProfilePage is /v/{handle}.
type PublicProfilePage struct {
	Page    accounting.PublicPage
	BaseURL string
}

// LeaderboardsPage is /leaderboards, overall or for one science area.
type LeaderboardsPage struct {
	Boards accounting.Boards
	Area   int // a top-level science keyword's id; 0 for overall
	// Teams are the team leaderboards, shown overall (Area 0).
	Teams accounting.TeamBoards
}

// CertificateForm is the form that issues a certificate.
type CertificateForm struct {
	Name, From, To string
	Errors         Fields
	Withdrawn      bool // a certificate was just withdrawn
}

// CertificatesPage is /certificates: the volunteer's certificates and the
// form.
type CertificatesPage struct {
	Form CertificateForm
	List []accounting.Certificate
}

// CertificatePage is /certificates/{code}.
type CertificatePage struct {
	Certificate accounting.Certificate
	URL         string // the page's own address, printed on it
	Base        string // the site's address, naming the issuer
	Mine        bool   // the volunteer reading it issued it: they may withdraw it
}

// areaName is a science area's name in the reader's language.
func areaName(l *locale.Lang, id int) string { return l.T("keyword." + itoa(int64(id))) }

// scienceAreas are the top-level science keywords, the leaderboards'
// areas.
func scienceAreas() []int {
	var out []int
	for _, k := range accounting.Keywords() {
		if k.Category == accounting.CategoryScience && k.Level == 0 {
			out = append(out, k.ID)
		}
	}
	return out
}

// board is the board of the area chosen (0: overall).
func (d LeaderboardsPage) board(b accounting.Board) []accounting.BoardEntry {
	if d.Area == 0 {
		return b.Overall
	}
	return b.Areas[d.Area]
}

// publicChart is the year's chart of a public page: estimated bars,
// confirmed line, one position per day to Through.
func publicChart(l *locale.Lang, pg accounting.PublicPage) Chart {
	days := make([]time.Time, 365)
	est, conf := make([]float64, 365), make([]float64, 365)
	start := pg.Through.AddDate(0, 0, -364)
	for i := range days {
		days[i] = start.AddDate(0, 0, i)
	}
	for _, d := range pg.Days {
		if i := int(d.Day.Sub(start).Hours() / 24); i >= 0 && i < 365 {
			est[i], conf[i] = d.Estimated, d.Confirmed
		}
	}
	return Chart{Title: l.T("public.chart_title"), Days: days, YLabel: l.T("history.y_label"),
		Series: []Series{{Name: l.T("public.estimated"), Values: est, Kind: Bars, Class: "cpu"},
			{Name: l.T("public.confirmed"), Values: conf, Kind: Line, Class: "granted"}}}
}

// certProjects lists a certificate's projects, joined the reader's way.
func certProjects(ctx context.Context, ps []string) string {
	if len(ps) == 0 {
		return t(ctx, "certificate.no_projects")
	}
	if len(ps) == 1 {
		return t(ctx, "certificate.list_one", "List", ps[0])
	}
	return t(ctx, "certificate.list_many", "List", andList(ctx, slices.Clone(ps)))
}

// andList joins names with commas and the reader's "and" before the last.
func andList(ctx context.Context, ps []string) string {
	if len(ps) == 1 {
		return ps[0]
	}
	out := ps[0]
	for _, p := range ps[1 : len(ps)-1] {
		out += ", " + p
	}
	return out + " " + t(ctx, "certificate.and") + " " + ps[len(ps)-1]
}
