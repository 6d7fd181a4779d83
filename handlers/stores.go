package handlers

import (
	"context"
	"io"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
)

// The handlers' view of the accounting store: one narrow interface per
// area, listing only the methods the handlers call. *accounting.Store's
// fields satisfy them (New); a handler names the area it works in.

// accountsStore is what the account pages (sign-up, sign-in, password, email, settings, notices feed) need of accounting.AccountsStore.
type accountsStore interface {
	AdminSendPasswordReset(ctx context.Context, who accounting.Actor, userID int64) error
	ChangePassword(ctx context.Context, userID int64, keep int64, current string, password string) error
	CheckConfirmLink(ctx context.Context, token string) error
	CheckPasswordReset(ctx context.Context, token string) error
	CheckSignUp(ctx context.Context, token string) (accounting.Signup, error)
	ConfirmEmail(ctx context.Context, token string) (accounting.Confirmed, error)
	DeleteUser(ctx context.Context, userID int64, password string) error
	FeedToken(ctx context.Context, userID int64) (string, error)
	FinishSignUp(ctx context.Context, token string, password string) (accounting.User, error)
	Login(ctx context.Context, email string, password string) (accounting.User, error)
	RequestEmailChange(ctx context.Context, userID int64, password string, email string) error
	RequestPasswordReset(ctx context.Context, email string) error
	RequestSignUp(ctx context.Context, nu accounting.NewUser) error
	ResetPassword(ctx context.Context, token string, password string) error
	SendConfirmation(ctx context.Context, userID int64) error
	SetLanguage(ctx context.Context, userID int64, code string) error
	SetTimeZone(ctx context.Context, userID int64, name string) error
	User(ctx context.Context, id int64) (accounting.User, error)
	UserByFeedToken(ctx context.Context, token string) (accounting.User, error)
}

// accessStore is what sessions, two-factor sign-in and re-authentication need of accounting.AccessStore.
type accessStore interface {
	CheckCode(ctx context.Context, userID int64, code string, now time.Time) error
	ConfirmPassword(ctx context.Context, userID int64, password string) error
	DisableTwoFactor(ctx context.Context, userID int64, password string, code string, now time.Time) error
	EnableTwoFactor(ctx context.Context, userID int64, keep int64, secret string, code string, now time.Time) ([]string, error)
	EndOtherSessions(ctx context.Context, userID int64, keep int64) (int64, error)
	EndSession(ctx context.Context, sessionID int64) error
	SessionUser(ctx context.Context, userID int64, sessionID int64, address string) (accounting.User, error)
	Sessions(ctx context.Context, userID int64) ([]accounting.WebSession, error)
	StartSession(ctx context.Context, userID int64, userAgent string, address string) (int64, error)
	TwoFactorOn(ctx context.Context, userID int64) (bool, error)
	UseRecoveryCode(ctx context.Context, userID int64, code string) (int, error)
}

// catalogStore is what the catalog pages and the project names shown elsewhere need of accounting.CatalogStore.
type catalogStore interface {
	AddProjectAs(ctx context.Context, who accounting.Actor, p accounting.Project) (accounting.Project, error)
	Catalog(ctx context.Context) ([]accounting.CatalogRow, error)
	EditProject(ctx context.Context, who accounting.Actor, id int64, change func(*accounting.Project)) (accounting.Project, error)
	ImportProjects(ctx context.Context, who accounting.Actor, data []byte) (accounting.ImportSummary, error)
	Project(ctx context.Context, id int64) (accounting.Project, error)
	Projects(ctx context.Context) ([]accounting.Project, error)
}

// syncStore is what the account-manager RPC need of accounting.SyncStore.
type syncStore interface {
	Sync(ctx context.Context, req accounting.SyncRequest) (accounting.SyncResult, error)
}

// computersStore is what a volunteer's computers, preferences and locations, and the admin's host detail need of accounting.ComputersStore.
type computersStore interface {
	Computer(ctx context.Context, userID int64, hostID int64, today time.Time) (accounting.Computer, error)
	ComputerEvents(ctx context.Context, userID int64, hostID int64, limit int) ([]accounting.Event, error)
	ComputerProjects(ctx context.Context, userID int64, hostID int64) ([]accounting.ComputerProject, error)
	ComputerSettings(ctx context.Context, userID int64, hostID int64) (accounting.ComputerSettings, error)
	Computers(ctx context.Context, userID int64, today time.Time) ([]accounting.Computer, error)
	DeleteLocation(ctx context.Context, userID int64, name string) error
	Disconnect(ctx context.Context, userID int64, hostID int64) error
	Host(ctx context.Context, id int64) (accounting.HostInfo, error)
	HostEvents(ctx context.Context, hostID int64, limit int) ([]accounting.Event, error)
	HostProjects(ctx context.Context, hostID int64) ([]accounting.HostProjectCredit, error)
	Locations(ctx context.Context, userID int64) ([]accounting.Location, error)
	Preferences(ctx context.Context, userID int64) (accounting.Preferences, error)
	SaveLocation(ctx context.Context, userID int64, name string, renameFrom string) error
	SetComputerChoices(ctx context.Context, userID int64, hostID int64, choices map[int64]string) error
	SetComputerLocation(ctx context.Context, userID int64, hostID int64, location string) error
	SetComputerName(ctx context.Context, userID int64, hostID int64, name string) error
	Failures(ctx context.Context, userID int64, hostID int64) ([]accounting.Failure, error)
	SetPause(ctx context.Context, userID int64, hostID int64, f accounting.PauseForm, now time.Time, timeZone string) error
	SetKeywordChoices(ctx context.Context, userID int64, choices map[int]accounting.KeywordAnswer) error
	SetLocationPrefs(ctx context.Context, userID int64, location string, preset string, custom accounting.ComputePrefs) error
	SetProjectChoices(ctx context.Context, userID int64, choices map[int64]string) error
	VolunteerProjects(ctx context.Context, userID int64) ([]accounting.VolunteerProject, error)
}

// ledgerStore is what the volunteer's credit: dashboard, history, downloads need of accounting.LedgerStore.
type ledgerStore interface {
	DayEvidence(ctx context.Context, userID int64, hostID int64, day time.Time, timeZone string) (accounting.DayEvidence, error)
	ExportDays(ctx context.Context, timeZone string) (map[int64]time.Time, error)
	ExportHistory(ctx context.Context, userID int64, fn func(accounting.ExportRow) error) error
	History(ctx context.Context, userID int64, hostID int64, from time.Time, to time.Time) ([]accounting.HistoryDay, error)
	RolledThrough(ctx context.Context) (time.Time, error)
	Summary(ctx context.Context, userID int64, today time.Time) (accounting.Summary, error)
	Today(now time.Time, timeZone string) time.Time
}

// reportsStore is what a volunteer's reports about a day and the admin's queue need of accounting.ReportsStore.
type reportsStore interface {
	AnswerReport(ctx context.Context, who accounting.Actor, id int64, answer string, close bool, now time.Time) error
	ComputerReports(ctx context.Context, userID int64, hostID int64) ([]accounting.DayReport, error)
	Queue(ctx context.Context, limit int) ([]accounting.DayReport, error)
	SendReport(ctx context.Context, userID int64, hostID int64, nr accounting.NewDayReport, today time.Time, now time.Time) (accounting.DayReport, error)
}

// mailStore is what alert settings, unsubscribing and the admin's mail page need of accounting.MailStore.
type mailStore interface {
	MailList(ctx context.Context, f accounting.MailFilter) ([]accounting.Mail, error)
	MailQueueState(ctx context.Context) (accounting.MailQueue, error)
	MailState(ctx context.Context, userID int64) (accounting.MailState, error)
	SetAlerts(ctx context.Context, userID int64, a accounting.Alerts) error
	Unsubscribe(ctx context.Context, token string, apply bool) (accounting.Alert, error)
}

// adminStore is what the admin's overview, lookups, audit log, users and teams need of accounting.AdminStore.
type adminStore interface {
	Audit(ctx context.Context, f accounting.AuditFilter) ([]accounting.AuditEntry, error)
	AuditActors(ctx context.Context) ([]string, error)
	AdminDeleteTeam(ctx context.Context, who accounting.Actor, id int64) error
	AdminHideTeam(ctx context.Context, who accounting.Actor, id int64, hidden bool) error
	AdminRenameTeam(ctx context.Context, who accounting.Actor, id int64, name string) error
	AdminTeams(ctx context.Context, search string, limit int) ([]accounting.Team, error)
	AuditRunNow(ctx context.Context, who accounting.Actor, p accounting.Project, runID int64) error
	Lookup(ctx context.Context, q string) (accounting.LookupResult, error)
	Overview(ctx context.Context, now time.Time) (accounting.SystemOverview, error)
	SetUserDisabled(ctx context.Context, who accounting.Actor, userID int64, disable bool) error
	UserForAdmin(ctx context.Context, id int64) (accounting.UserDetail, error)
}

// jobsStore is what the admin's overview needs of accounting.JobsStore: the job queue's health.
type jobsStore interface {
	JobHealth(ctx context.Context, now time.Time, timeouts accounting.JobTimeouts) (accounting.JobHealth, error)
}

// publicStore is what the public profile, the badge, the leaderboards and the certificates need of accounting.PublicStore.
type publicStore interface {
	Badge(ctx context.Context, handle string) (accounting.Badge, error)
	Certificate(ctx context.Context, code string) (accounting.Certificate, error)
	Certificates(ctx context.Context, userID int64) ([]accounting.Certificate, error)
	IssueCertificate(ctx context.Context, userID int64, req accounting.CertificateRequest, today time.Time) (accounting.Certificate, error)
	Leaderboards(ctx context.Context) (accounting.Boards, error)
	OwnsCertificate(ctx context.Context, userID int64, code string) (bool, error)
	PublicPage(ctx context.Context, handle string) (accounting.PublicPage, error)
	PublicProfile(ctx context.Context, userID int64) (accounting.PublicProfile, error)
	RenewStatsID(ctx context.Context, userID int64) error
	SetPublicProfile(ctx context.Context, userID int64, p accounting.PublicProfile) error
	WithdrawCertificate(ctx context.Context, userID int64, code string) error
}

// instanceStore is what the handlers ask of the instance: the replica's state and whether changes are heard (accounting.Store).
type instanceStore interface {
	Listening() bool
	ReplicaStatus() accounting.ReplicaStatus
}

// apiStore is what the API tokens page and the JSON API need of accounting.APIStore.
type apiStore interface {
	APIComputer(ctx context.Context, userID int64, hostID int64) (accounting.APIComputer, error)
	APIComputers(ctx context.Context, userID int64, after int64, limit int) ([]accounting.APIComputer, error)
	APIEvents(ctx context.Context, userID int64, after accounting.EventCursor, limit int) ([]accounting.APIEvent, error)
	APIProjects(ctx context.Context, userID int64, after int64, limit int) ([]accounting.APIProject, error)
	APITokens(ctx context.Context, userID int64) ([]accounting.APIToken, error)
	AuthenticateAPI(ctx context.Context, secret string, addr string, window time.Time, now time.Time) (accounting.APICaller, error)
	ComputerDays(ctx context.Context, userID int64, from time.Time, to time.Time) ([]accounting.APIDay, error)
	CreateAPIToken(ctx context.Context, userID int64, name string, hour time.Time) (accounting.NewAPIToken, error)
	RevokeAPIToken(ctx context.Context, userID int64, tokenID int64) error
}

// fairnessStore is what the credit fairness pages need of
// reconcile.FairnessStore: the stored measure, a project's figures and,
// for admins, the hosts that pull them most.
type fairnessStore interface {
	Fairness(ctx context.Context, days int) (reconcile.Fairness, error)
	ProjectFairness(ctx context.Context, projectID int64) ([]reconcile.ProjectFairness, error)
	PullingHosts(ctx context.Context, projectID int64, days int, median float64, limit int) ([]reconcile.PullingHost, error)
}

// teamsStore is what the team pages, the team badge, the team boards, the
// team on the dashboard and settings, and the API's team need of
// accounting.TeamsStore.
type teamsStore interface {
	CreateTeam(ctx context.Context, userID int64, nt accounting.NewTeam, now time.Time) (accounting.Team, error)
	DeleteTeam(ctx context.Context, userID int64, teamID int64) error
	EditTeam(ctx context.Context, userID int64, teamID int64, nt accounting.NewTeam) error
	HandOver(ctx context.Context, userID int64, teamID int64, toUserID int64) error
	Invite(ctx context.Context, userID int64, teamID int64) (string, error)
	Join(ctx context.Context, userID int64, teamID int64, now time.Time) error
	JoinByCode(ctx context.Context, userID int64, code string, now time.Time) (accounting.Team, error)
	Leave(ctx context.Context, userID int64, teamID int64, now time.Time) error
	Mine(ctx context.Context, userID int64) (accounting.MyTeam, bool, error)
	RenewInvite(ctx context.Context, userID int64, teamID int64) (string, error)
	Team(ctx context.Context, id int64) (accounting.Team, error)
	TeamBoards(ctx context.Context) (accounting.TeamBoards, error)
	TeamByCode(ctx context.Context, code string) (accounting.Team, error)
	TeamHistory(ctx context.Context, teamID int64, from time.Time, to time.Time) ([]accounting.TeamDay, error)
	TeamMemberList(ctx context.Context, userID int64, teamID int64) ([]accounting.TeamMemberEntry, error)
	TeamMembers(ctx context.Context, teamID int64, limit int) ([]string, error)
	Teams(ctx context.Context, search string, sort string, limit int, offset int) ([]accounting.Team, int, error)
}

// statsStore is what the statistics export's files need of accounting.StatsStore.
type statsStore interface {
	ReadStatsFile(ctx context.Context, name string, open func(accounting.StatsFile) (io.Writer, error)) error
}
