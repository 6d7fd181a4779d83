package accounting

// The Store's areas. Each is a view of the one core, with the queries of
// one part of the domain; docs/ARCHITECTURE.md lists the files and the
// tables each owns.

// AccountsStore keeps volunteers' accounts: creating one (sign-up), signing
// in, the password and its recovery, email changes, the profile, the
// notices-feed token and the mailed links' tokens (accounts_*.go).
type AccountsStore struct{ *core }

// AccessStore keeps what guards an account: sessions, two-factor sign-in
// and the counted attempts that limit guessing (access_*.go).
type AccessStore struct{ *core }

// CatalogStore keeps the project catalog: projects, their keywords and
// status, and the import of a catalog file (catalog_*.go).
type CatalogStore struct{ *core }

// SyncStore serves the account-manager RPC: it reads a host's state,
// plans, and writes the plan (sync*.go), with the signing key and the
// recent work that balances shares.
type SyncStore struct{ *core }

// ComputersStore keeps what a volunteer sees and sets of their computers:
// the list, each computer's settings, preferences and locations, and a
// host's detail for the admin (computers_*.go).
type ComputersStore struct{ *core }

// LedgerStore keeps credit: the rollups, partitions and retention, the
// rebuild, and the volunteer's history and downloads (ledger_*.go).
type LedgerStore struct{ *core }

// MailStore keeps the outbox and the alerts and summaries that fill it
// (mail_*.go). It reads the ledger and the computers through their areas.
type MailStore struct {
	*core
	ledger    *LedgerStore
	computers *ComputersStore
}

// JobsStore reads the job queue that runs Cobble's background work
// (River's tables, migration 021), for the checks of operators and admins
// (jobs_*.go).
type JobsStore struct{ *core }

// PublicStore keeps what a volunteer makes public: the public profile, the
// badge's and the leaderboards' figures, and the certificates
// (public_*.go). It reads credit from the ledger area's rollups only.
type PublicStore struct {
	*core
	ledger *LedgerStore
	boards boardsCache // the leaderboards (public_boards.go)
}

// AdminStore answers the admin's pages: the overview, lookups, a host's
// the audit log, disabling and granting (admin_*.go).
type AdminStore struct{ *core }

// ReportsStore keeps the volunteers' reports that something is wrong with
// a day, the admin's queue of them and the answers (reports_*.go).
type ReportsStore struct{ *core }

// APIStore keeps volunteers' personal API tokens, the API's per-token
// rate counts, and the reads only the API makes (api_*.go).
type APIStore struct{ *core }

// TeamsStore keeps teams: founding, memberships, the founder's changes,
// the public reads and the team leaderboards (teams_*.go). The rollup
// folds the teams' days (ledger_rollups_teams.go); the admin's changes
// are AdminStore's (admin_teams.go).
type TeamsStore struct {
	*core
	ledger *LedgerStore
}

// StatsStore builds and serves Cobble's statistics export: the files
// BOINC's statistics sites read (tables.xml, user.gz, team.gz, host.gz),
// listing the volunteers who opted in, kept in the database so that every
// instance serves the same bytes (stats_*.go).
type StatsStore struct {
	*core
	ledger *LedgerStore
}
