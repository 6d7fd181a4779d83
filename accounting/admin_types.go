package accounting

import "time"

// Actor is who makes an admin change: an admin account on the web, or an
// operating-system user at the command line (UserID 0).
type Actor struct {
	UserID int64
	Name   string // the admin's email, or "os:NAME"
}

// AuditKind names a kind of admin change.
type AuditKind string

// The admin changes the audit log records.
const (
	AuditProjectAdd    AuditKind = "project_add"
	AuditProjectEdit   AuditKind = "project_edit"
	AuditProjectStatus AuditKind = "project_status"
	AuditProjectImport AuditKind = "project_import"
	AuditRunNow        AuditKind = "run_now"
	AuditUserDisable   AuditKind = "user_disable"
	AuditUserEnable    AuditKind = "user_enable"
	AuditAdminGrant    AuditKind = "admin_grant"
	// AuditPasswordResetSent: an admin mailed a volunteer a reset link.
	AuditPasswordResetSent AuditKind = "password_reset_sent"
	// AuditTwoFactorReset: an operator removed an account's second factor.
	AuditTwoFactorReset AuditKind = "two_factor_reset"
	// AuditReportAnswer: an admin answered or closed a volunteer's report.
	AuditReportAnswer AuditKind = "report_answer"
	// The admin's changes of teams (admin_teams.go).
	AuditTeamRename AuditKind = "team_rename"
	AuditTeamHide   AuditKind = "team_hide"
	AuditTeamDelete AuditKind = "team_delete"
)

// AuditEntry is one recorded admin change. Before and After are JSON
// objects of the values changed (nil when there was no before or after).
type AuditEntry struct {
	ID      int64
	At      time.Time
	Actor   string
	Kind    AuditKind
	Subject string
	Before  map[string]any
	After   map[string]any
}

// AuditFilter narrows the audit log: by actor, kind, and a day range
// (inclusive, UTC); zero values do not filter. Before pages backwards
// from an entry id (0: the newest).
type AuditFilter struct {
	Actor    string
	Kind     AuditKind
	From, To time.Time
	Before   int64
	Limit    int
}

// UserHit is a volunteer found by a lookup.
type UserHit struct {
	ID        int64
	Email     string
	Name      string
	IsAdmin   bool
	Disabled  bool
	CreatedAt time.Time
}

// HostHit is a computer found by a lookup.
type HostHit struct {
	ID         int64
	UserID     int64
	Email      string
	DomainName string
	CPID       string
	LastRPCAt  *time.Time
}

// LookupResult is what a lookup found, at most 50 of each.
type LookupResult struct {
	Users []UserHit
	Hosts []HostHit
}

// UserDetail is what an admin sees of one volunteer: never a password,
// its hash or an authenticator.
type UserDetail struct {
	UserHit
	Hosts  []HostHitDetail
	Credit []UserProjectCredit
	Events []Event
}

// HostHitDetail is one of a volunteer's hosts with its activity.
type HostHitDetail struct {
	HostHit
	ClientVersion string
	OSName        string
	RPCCount      int64
	Implausible   string
}

// UserProjectCredit is a volunteer's lifetime estimated credit on a project.
type UserProjectCredit struct {
	ProjectID int64
	Name      string
	Estimated float64
	Clamped   float64
}

// SystemOverview is the system at a glance, read from the small counters
// the rollup keeps: nothing in it scans the ledger or the hosts.
type SystemOverview struct {
	// Hours are the last 48 hours, oldest first, with RPCs per outcome.
	Hours []RPCHour
	// Days are the last 30 days, oldest first; Credit per project per day.
	Days     []time.Time
	Projects []ProjectDaily
	// Counts, as of CountsAt (zero before the first rollup).
	HostsDay, HostsWeek, Users, UsersWeek int64
	CountsAt                              time.Time
}

// RPCHour is one hour's RPCs by outcome.
type RPCHour struct {
	Hour                    time.Time
	OK, Errors, Unavailable int64
}

// ProjectDaily is one project's estimated and clamped credit per day.
type ProjectDaily struct {
	ProjectID       int64
	Name            string
	Credit, Clamped []float64 // one per SystemOverview.Days
}

// AuditKinds lists every kind, for filters.
var AuditKinds = []AuditKind{AuditProjectAdd, AuditProjectEdit, AuditProjectStatus, AuditProjectImport,
	AuditRunNow, AuditUserDisable, AuditUserEnable, AuditAdminGrant, AuditPasswordResetSent, AuditTwoFactorReset,
	AuditReportAnswer, AuditTeamRename, AuditTeamHide, AuditTeamDelete}
