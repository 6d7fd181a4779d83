package views

import (
	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// teamBadgeLines are a team's badge's lines in l: its name, its confirmed
// credit and members, and the site's name.
func teamBadgeLines(l *locale.Lang, tm accounting.Team, site string) []badgeLine {
	w := float64(BadgeWidth - 24)
	return []badgeLine{
		{text: tm.Name, size: 18, y: 26, bold: true, maxWidth: w},
		{text: l.T("teams.badge_credit", "Confirmed", l.Credit(tm.Confirmed), "Count", tm.Members), size: 13, y: 48, maxWidth: w},
		{text: l.T("teams.badge_site", "Site", site), size: 12, y: 68, muted: true, maxWidth: w},
	}
}

// TeamBadgeSVG draws a team's badge as SVG, in l, the same size as a
// volunteer's; site is the account manager's name.
func TeamBadgeSVG(l *locale.Lang, tm accounting.Team, site string) []byte {
	return badgeSVG(l.T("teams.badge_alt", "Team", tm.Name), teamBadgeLines(l, tm, site))
}

// TeamBadgePNG draws the same badge as a PNG.
func TeamBadgePNG(l *locale.Lang, tm accounting.Team, site string) ([]byte, error) {
	return badgePNG(teamBadgeLines(l, tm, site))
}
