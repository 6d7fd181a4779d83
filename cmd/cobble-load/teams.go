package main

import (
	"flag"
	"fmt"
	"time"
)

// teamsConfig is what --teams and --listed ask for (issue 43): teams on
// the history, with listed volunteers in them, and what they cost: the
// team pages, the team leaderboards and Cobble's statistics export.
type teamsConfig struct {
	teams  int // teams to put on the history; 0 puts none and measures nothing of them
	listed int // volunteers listed in the statistics and in the teams; 0 is 10 a team
}

// Bounds of the teams' flags.
const (
	maxTeams  = 100_000
	maxListed = 1_000_000
)

// The budgets of the teams' proof (issue 43): a team page within the
// volunteer pages' (the dashboard's), the team leaderboards within 100
// ms, and the whole statistics export built in under 2 minutes at under
// 128 MiB peak RSS.
const (
	teamPageBudget    = 50 * time.Millisecond
	teamBoardsBudget  = 100 * time.Millisecond
	statsExportBudget = 2 * time.Minute
	statsExportRSS    = 128 << 20
)

// register adds the teams' flags to fs.
func (t *teamsConfig) register(fs *flag.FlagSet) {
	fs.IntVar(&t.teams, "teams", 0, "with --history: put `N` teams on it (once; a later run finds them), "+
		"their members listed volunteers, then measure the team pages, the team leaderboards and "+
		"'cobble stats export' in each round")
	fs.IntVar(&t.listed, "listed", 0, "with --teams: volunteers listed in the statistics export and in the teams: "+
		"the history's, then new ones with a small ledger each (default 10 a team)")
}

// validate adds the teams flags' problems to check.
func (t *teamsConfig) validate(check func(bool, string), h historyConfig) {
	check(t.teams >= 0 && t.teams <= maxTeams, fmt.Sprintf("--teams must be between 0 and %d", maxTeams))
	check(t.teams == 0 || h.rows > 0, "--teams needs --history")
	check(t.listed == 0 || t.teams > 0, "--listed needs --teams")
	check(t.listed == 0 || (t.listed >= 2*t.teams && t.listed <= maxListed),
		fmt.Sprintf("--listed must be at least twice --teams and at most %d", maxListed))
}

// members is the number of listed volunteers asked for.
func (t teamsConfig) members() int {
	if t.listed == 0 {
		return 10 * t.teams
	}
	return t.listed
}
