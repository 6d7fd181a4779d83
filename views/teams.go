package views

import (
	"net/url"
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// TeamTypes are BOINC's team types, by number (1–7), in the order a form
// offers them.
var TeamTypes = []int{1, 2, 3, 4, 5, 6, 7}

// TeamSorts are the orders /teams offers (?sort=), the first the default.
var TeamSorts = []string{accounting.TeamSortCredit, accounting.TeamSortRecent, accounting.TeamSortName}

// TeamsPerPage is how many teams /teams lists a page.
const TeamsPerPage = 50

// TeamsPage is /teams: a page of teams, found by name, in an order.
type TeamsPage struct {
	Teams  []accounting.Team
	Total  int    // the teams that match Search
	Search string // what the name must contain; "" for every team
	Sort   string // one of TeamSorts
	Offset int    // of the first team shown
	// Mine is the reader's team, when they are in one.
	Mine *accounting.MyTeam
	// LoggedIn says the reader is a volunteer, who may create a team.
	LoggedIn bool
}

// TeamForm is the form that creates a team (/teams/new) or edits one
// (/teams/{id}/edit): what was typed, and the fields' errors.
type TeamForm struct {
	Team   accounting.NewTeam
	Errors Fields
	// ID is the team edited; 0 for a new one.
	ID int64
	// Unconfirmed says the volunteer's email address is not confirmed,
	// which founding a team asks for; Problem is why the form was refused
	// as a whole (not for one field).
	Unconfirmed bool
	Problem     string
}

// TeamPage is /teams/{id}: the team, its totals, its chart and its
// members who show a public profile, and what the reader may do.
type TeamPage struct {
	Team    accounting.Team
	History []accounting.TeamDay
	// Days is the chart's window, one of HistoryRanges, up to Through,
	// the last day the rollups hold (zero before the first rollup round:
	// no chart yet).
	Days    int
	Through time.Time
	// Members are the handles of the members whose profile is public
	// (at most a page of them).
	Members []string
	// LoggedIn says the reader is a volunteer; Mine is their team, when
	// they are in one (this or another).
	LoggedIn bool
	Mine     *accounting.MyTeam
	// InviteURL is the invitation link, shown only to the founder.
	InviteURL string
	// MemberList is the founder's choice of members to hand the team to.
	MemberList []accounting.TeamMemberEntry
	BaseURL    string // the site's URL, ending in "/", for the badge's code
}

// Member says the reader is a member of the team shown.
func (d TeamPage) Member() bool { return d.Mine != nil && d.Mine.Team.ID == d.Team.ID }

// Founder says the reader manages the team shown.
func (d TeamPage) Founder() bool { return d.Member() && d.Mine.Founder }

// TeamJoinPage is /teams/join/{code}: the team an invitation names and
// the button that joins it.
type TeamJoinPage struct {
	Team     accounting.Team
	Code     string
	LoggedIn bool
	Mine     *accounting.MyTeam // the reader's team, when they are in one
}

// teamPath is a team's page.
func teamPath(id int64) string { return "/teams/" + itoa(id) }

// teamTypeName is a team type's name in the reader's language.
func teamTypeName(l *locale.Lang, typ int) string {
	switch typ {
	case 1:
		return l.T("teams.type_1")
	case 2:
		return l.T("teams.type_2")
	case 3:
		return l.T("teams.type_3")
	case 4:
		return l.T("teams.type_4")
	case 5:
		return l.T("teams.type_5")
	case 6:
		return l.T("teams.type_6")
	case 7:
		return l.T("teams.type_7")
	}
	return ""
}

// teamSortName names an order of /teams in the reader's language.
func teamSortName(l *locale.Lang, sort string) string {
	switch sort {
	case accounting.TeamSortRecent:
		return l.T("teams.sort_recent")
	case accounting.TeamSortName:
		return l.T("teams.sort_name")
	}
	return l.T("teams.sort_credit")
}

// teamsURL is /teams with its search, order and first team.
func teamsURL(search, sort string, offset int) string {
	q := url.Values{}
	if search != "" {
		q.Set("q", search)
	}
	if sort != "" && sort != TeamSorts[0] {
		q.Set("sort", sort)
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	if len(q) == 0 {
		return "/teams"
	}
	return "/teams?" + q.Encode()
}

// teamURLSafe is a team's website as a link target: only http and https
// addresses are links; anything else is shown as text.
func teamURLSafe(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	return u.String(), true
}

// teamChart is a team's chart: estimated bars and the confirmed line, one
// position per day of the window up to Through.
func teamChart(l *locale.Lang, d TeamPage) Chart {
	n := d.Days
	days := make([]time.Time, n)
	est, conf := make([]float64, n), make([]float64, n)
	start := d.Through.AddDate(0, 0, 1-n)
	for i := range days {
		days[i] = start.AddDate(0, 0, i)
	}
	for _, h := range d.History {
		if i := int(h.Day.Sub(start).Hours() / 24); i >= 0 && i < n {
			est[i], conf[i] = h.Estimated, h.Confirmed
		}
	}
	return Chart{Title: l.T("teams.chart_title"), Days: days, YLabel: l.T("history.y_label"),
		Series: []Series{{Name: l.T("public.estimated"), Values: est, Kind: Bars, Class: "cpu"},
			{Name: l.T("public.confirmed"), Values: conf, Kind: Line, Class: "granted"}}}
}

// teamRangeURL is the team page with another window of its chart.
func teamRangeURL(id int64, days int) string {
	if days == HistoryRanges[0] {
		return teamPath(id)
	}
	return teamPath(id) + "?days=" + strconv.Itoa(days)
}

// Others counts the team's members the page does not name: those without
// a public profile, and those past the page's handles.
func (d TeamPage) Others() int { return max(d.Team.Members-len(d.Members), 0) }
