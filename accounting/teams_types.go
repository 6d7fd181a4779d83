package accounting

import (
	"errors"
	"time"
)

// Teams (issue 43) are Cobble's own: the project accounts are shared, so
// a team on a project could not hold Cobble's volunteers. A team's credit
// is what its members earned on the days they were members, folded from
// the rollups (rollup_team_days, ledger_rollups_teams.go).

var (
	// ErrTeamClosed means the team takes new members only by its
	// invitation link.
	ErrTeamClosed = errors.New("this team takes members by invitation only")
	// ErrNotFounder means only the team's founder may do this.
	ErrNotFounder = errors.New("only the team's founder may do this")
	// ErrTooManyTeams means the volunteer founded MaxTeamsPerDay teams in
	// the last 24 hours; nothing was created.
	ErrTooManyTeams = errors.New("too many new teams in a day")
	// ErrEmailUnconfirmed means the volunteer's email address is not
	// confirmed yet, which founding a team asks for.
	ErrEmailUnconfirmed = errors.New("email address not confirmed")
)

// Limits on teams; the lengths are migration 028's, in characters.
const (
	MaxTeamsPerDay     = 3 // teams a volunteer may found in 24 hours
	MaxTeamName        = 64
	MaxTeamCountry     = 64
	MaxTeamURL         = 256
	MaxTeamDescription = 4000
	TeamTypeClub       = 1
	TeamTypeGovernment = 7 // the last of BOINC's team types
	TeamBoardSize      = 100
	TeamSortCredit     = "credit"
	TeamSortName       = "name"
	TeamSortRecent     = "recent"
)

// NewTeam is what a founder writes about a team: the name, BOINC's team
// type (1 club, 2 company, 3 primary school, 4 secondary school, 5 junior
// college, 6 university or department, 7 government agency), the
// country, a web address (http or https, or empty) and a description in
// plain text; Open teams take anyone, closed ones only those with the
// invitation link.
type NewTeam struct {
	Name                      string
	Type                      int
	Country, URL, Description string
	Open                      bool
}

// Team is a team as its public page shows it. Credit is in Cobblestones
// over every rolled-up (settled) day; RecentAverage is BOINC's recent
// average credit of the confirmed credit (RecentAverage), as of now.
type Team struct {
	ID                        int64
	Name                      string
	Type                      int
	Country, URL, Description string
	Open, Hidden              bool
	Members                   int
	Confirmed, Estimated      float64
	RecentAverage             float64
	CreatedAt                 time.Time
}

// TeamDay is a team's credit on one settled day (midnight UTC of the
// members' own days), in Cobblestones.
type TeamDay struct {
	Day                  time.Time
	Estimated, Confirmed float64
}

// MyTeam is the team a volunteer is in, whether they manage it, and the
// first day of their membership (midnight UTC of their own day).
type MyTeam struct {
	Team    Team
	Founder bool
	Since   time.Time
}

// TeamMemberEntry is a current member, for the founder's hand-over form:
// named by the handle of their public profile, or not at all (Handle ""),
// since a volunteer's name is theirs alone.
type TeamMemberEntry struct {
	UserID int64
	Handle string
}

// TeamBoardEntry is a team's place on a team leaderboard.
type TeamBoardEntry struct {
	Rank      int
	TeamID    int64
	Name      string
	Confirmed float64
}

// TeamBoards are the team leaderboards by confirmed credit: the last 30
// days and all time, as of Through (the last day the rollups hold), each
// at most TeamBoardSize teams; hidden teams are left out.
type TeamBoards struct {
	Last30, AllTime []TeamBoardEntry
	Through         time.Time
}
