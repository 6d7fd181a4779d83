package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cobble-am/cobble/handlers"
	"github.com/cobble-am/cobble/static"
)

// routes is Cobble's one route table.
func routes(app *handlers.App, assets *static.Assets, mw middleware) http.Handler {
	r := chi.NewRouter()
	r.Use(mw.requestID, mw.logRequests, mw.recoverPanics, mw.deadline, mw.securityHeaders,
		limitBody(handlers.MaxRPCBody))
	r.NotFound(app.VisitorLang(app.Handle(app.NotFound)).ServeHTTP)

	// BOINC clients: the account-manager protocol.
	r.Post("/rpc.php", mw.metrics.rpc(app.Client.RPC))
	r.Get("/get_project_config.php", app.Client.ProjectConfig)

	r.Handle(static.Prefix+"*", assets)
	r.Get("/favicon.ico", assets.ServeFavicon)
	r.Get("/healthz", mw.health)
	// BOINC clients read a volunteer's notices from their secret feed.
	r.Get("/notices/{file}", app.Handle(app.Client.Notices))
	r.Get("/readyz", mw.ready)
	// Is credit fair? The measure's downloads, public and without sessions
	// (docs/CREDIT.md); the page is with the people's pages below.
	r.Group(func(r chi.Router) {
		r.Use(app.VisitorLang)
		r.Get("/credit.json", app.Handle(app.Public.CreditJSON))
		r.Get("/credit.csv", app.Handle(app.Public.CreditCSV))
	})
	// An alert's unsubscribe link, also posted by mail programs (RFC 8058):
	// the token is the only key, so it needs no session.
	r.Group(func(r chi.Router) {
		r.Use(limitForms, app.VisitorLang)
		r.Get("/unsubscribe/{token}", app.Handle(app.Account.UnsubscribeForm))
		r.Post("/unsubscribe/{token}", app.Handle(app.Account.Unsubscribe))
	})

	// The JSON API (issue 33): a volunteer's own data for their scripts,
	// with a personal API token and no session, cookie or CORS; its
	// OpenAPI document for anyone.
	r.Route("/api/v1", func(r chi.Router) {
		api := app.API
		r.NotFound(api.APINotFound)
		r.MethodNotAllowed(api.APIMethodNotAllowed)
		r.Get("/openapi.json", api.OpenAPI)
		r.Get("/me", api.API(api.APIMe))
		r.Get("/computers", api.API(api.APIComputers))
		r.Get("/computers/{id}", api.API(api.APIComputer))
		r.Get("/projects", api.API(api.APIProjects))
		r.Get("/days", api.API(api.APIDays))
		r.Get("/events", api.API(api.APIEvents))
		r.Get("/teams/{id}", api.API(api.APITeam)) // teams (issue 43)
	})

	// A public profile's badges (issue 33), for forums' image proxies: no
	// session, the owner's language, cached with an ETag.
	r.Group(func(r chi.Router) {
		r.Use(app.VisitorLang)
		r.Get("/v/{handle}/badge.svg", app.Handle(app.Public.BadgeSVG))
		r.Get("/v/{handle}/badge.png", app.Handle(app.Public.BadgePNG))
		// A team's badges (issue 43), in the reader's language.
		r.Get("/teams/{id}/badge.svg", app.Handle(app.Teams.BadgeSVG))
		r.Get("/teams/{id}/badge.png", app.Handle(app.Teams.BadgePNG))
	})

	// The statistics export in BOINC's format (issue 43), for statistics
	// sites: no session, cached with an ETag (docs/STATISTICS.md).
	r.Group(func(r chi.Router) {
		r.Use(app.VisitorLang)
		r.Get("/stats/{file}", app.Handle(app.Stats.StatsFile))
		r.Head("/stats/{file}", app.Handle(app.Stats.StatsFile))
	})

	// People: pages with sessions, protected against cross-origin posts.
	r.Group(func(r chi.Router) {
		r.Use(limitForms, mw.crossOrigin, mw.readYourWrites, saveSessions(mw.sessions), app.LoadUser)
		r.Get("/", app.Handle(app.Volunteer.Home))
		r.Get("/login", app.Handle(app.Account.LoginForm))
		r.Post("/login", app.Handle(app.Account.Login))
		r.Get("/login/two-factor", app.Handle(app.Account.LoginTwoFactorForm))
		r.Post("/login/two-factor", app.Handle(app.Account.LoginTwoFactor))
		r.Get("/signup", app.Handle(app.Account.SignupForm))
		r.Post("/signup", app.Handle(app.Account.Signup))
		r.Get("/signup/sent", app.Handle(app.Account.SignupSent))
		r.Get("/signup/finish/{token}", app.Handle(app.Account.SignupFinishForm))
		r.Post("/signup/finish/{token}", app.Handle(app.Account.SignupFinish))
		r.Post("/logout", app.Handle(app.Account.Logout))
		r.Post("/language", app.Handle(app.Account.SetLanguage))
		r.Get("/password/forgot", app.Handle(app.Account.ForgotForm))
		r.Post("/password/forgot", app.Handle(app.Account.Forgot))
		r.Get("/password/reset/{token}", app.Handle(app.Account.ResetForm))
		r.Post("/password/reset/{token}", app.Handle(app.Account.Reset))
		r.Get("/email/confirm/{token}", app.Handle(app.Account.ConfirmEmailForm))
		r.Post("/email/confirm/{token}", app.Handle(app.Account.ConfirmEmail))
		r.Get("/api", app.Handle(app.API.APIPage)) // the API's page, for anyone
		// Is credit fair? The public page of the credit fairness measure.
		r.Get("/credit", app.Handle(app.Public.Credit))
		if app.Admin.DevMailbox() {
			r.Get("/dev/mail", app.Handle(app.Admin.DevMail))
		}

		// Volunteers: their own computers, projects, settings and history.
		r.Group(func(r chi.Router) {
			r.Use(app.RequireUser)
			r.Get("/computers", app.Handle(app.Volunteer.Computers))
			r.Get("/computers/{id}", app.Handle(app.Volunteer.Computer))
			r.Post("/computers/{id}/disconnect", app.Handle(app.Volunteer.Disconnect))
			r.Post("/computers/{id}/location", app.Handle(app.Volunteer.ComputerLocation))
			r.Post("/computers/{id}/projects", app.Handle(app.Volunteer.ComputerProjectChoices))
			r.Post("/computers/{id}/name", app.Handle(app.Volunteer.ComputerName))
			r.Get("/projects", app.Handle(app.Volunteer.Projects))
			// Computers a volunteer can trust (issue 32): pause and wind down,
			// a day's evidence, reports about a day.
			r.Post("/computers/pause", app.Handle(app.Volunteer.PauseAll))
			r.Post("/computers/{id}/pause", app.Handle(app.Volunteer.ComputerPause))
			r.Get("/computers/{id}/days", app.Handle(app.Volunteer.OpenDay))
			r.Get("/computers/{id}/days/{day}", app.Handle(app.Volunteer.ComputerDay))
			r.Post("/computers/{id}/reports", app.Handle(app.Volunteer.SendReport))
			r.Get("/settings", app.Handle(app.Settings.Settings))
			r.Get("/settings/two-factor", app.Handle(app.Account.TwoFactorSettings))
			r.With(app.RequireRecentAuth).Post("/settings/two-factor/enable", app.Handle(app.Account.TwoFactorEnable))
			// Turning two factors off asks for the password and a code itself.
			r.Post("/settings/two-factor/disable", app.Handle(app.Account.TwoFactorDisable))
			r.With(app.RequireRecentAuth).Post("/settings/password", app.Handle(app.Settings.SetPassword))
			r.With(app.RequireRecentAuth).Post("/settings/email", app.Handle(app.Settings.SetEmail))
			r.Post("/settings/email/confirm", app.Handle(app.Account.ResendConfirmation))
			r.Post("/settings/alerts", app.Handle(app.Settings.SetAlerts))
			r.Post("/settings/time-zone", app.Handle(app.Settings.SetTimeZone))
			r.Post("/settings/language", app.Handle(app.Settings.SetUserLanguage))
			r.With(app.RequireRecentAuth).Post("/settings/delete", app.Handle(app.Settings.DeleteAccount))
			r.Get("/settings/sessions", app.Handle(app.Account.Sessions))
			r.Post("/settings/sessions/end-others", app.Handle(app.Account.EndOtherSessions))
			r.Get("/settings/science", app.Handle(app.Settings.SettingsSection("science")))
			r.Post("/settings/science", app.Handle(app.Settings.SettingsScience))
			r.Get("/settings/projects", app.Handle(app.Settings.SettingsSection("projects")))
			r.Post("/settings/projects", app.Handle(app.Settings.SettingsProjects))
			r.Get("/settings/compute", app.Handle(app.Settings.SettingsSection("compute")))
			r.Post("/settings/compute", app.Handle(app.Settings.SettingsCompute))
			r.Post("/settings/locations", app.Handle(app.Settings.SettingsLocation))
			r.Post("/settings/locations/delete", app.Handle(app.Settings.SettingsLocationDelete))
			// Personal API tokens (issue 33).
			r.Get("/settings/api", app.Handle(app.Settings.APITokens))
			r.With(app.RequireRecentAuth).Post("/settings/api", app.Handle(app.Settings.CreateAPIToken))
			r.Post("/settings/api/{id}/revoke", app.Handle(app.Settings.RevokeAPIToken))
			r.Get("/export/history.csv", app.Handle(app.Volunteer.ExportCSV))
			r.Get("/export/history.json", app.Handle(app.Volunteer.ExportJSON))
		})

		// The public side (issue 33): anyone reads a public profile, the
		// leaderboards and a certificate by its code; a volunteer sets their
		// profile and issues and withdraws certificates.
		r.Get("/v/{handle}", app.Handle(app.Public.PublicProfile))
		r.Get("/leaderboards", app.Handle(app.Public.Leaderboards))
		r.Get("/certificates/{code}", app.Handle(app.Public.Certificate))
		r.Group(func(r chi.Router) {
			r.Use(app.RequireUser)
			r.Get("/settings/public", app.Handle(app.Settings.PublicSettings))
			r.Post("/settings/public", app.Handle(app.Settings.SetPublicSettings))
			r.Post("/settings/public/stats-id", app.Handle(app.Settings.RenewStatsID))
			r.Get("/certificates", app.Handle(app.Settings.Certificates))
			r.Post("/certificates", app.Handle(app.Settings.IssueCertificate))
			r.Post("/certificates/{code}/withdraw", app.Handle(app.Settings.WithdrawCertificate))
		})

		// Teams (issue 43): anyone reads the list, a team's page and an
		// invitation; a volunteer creates, joins and leaves a team, and its
		// founder renews the invitation, edits, hands over or deletes it.
		r.Get("/teams", app.Handle(app.Teams.List))
		r.Get("/teams/{id}", app.Handle(app.Teams.Team))
		r.Get("/teams/join/{code}", app.Handle(app.Teams.JoinForm))
		r.Group(func(r chi.Router) {
			r.Use(app.RequireUser)
			r.Get("/teams/new", app.Handle(app.Teams.New))
			r.Post("/teams", app.Handle(app.Teams.Create))
			r.Post("/teams/{id}/join", app.Handle(app.Teams.Join))
			r.Post("/teams/{id}/leave", app.Handle(app.Teams.Leave))
			r.Post("/teams/join/{code}", app.Handle(app.Teams.JoinByCode))
			r.Post("/teams/{id}/invite", app.Handle(app.Teams.Invite))
			r.Get("/teams/{id}/edit", app.Handle(app.Teams.EditForm))
			r.Post("/teams/{id}/edit", app.Handle(app.Teams.Edit))
			r.Post("/teams/{id}/hand-over", app.Handle(app.Teams.HandOver))
			r.Post("/teams/{id}/delete", app.Handle(app.Teams.Delete))
		})

		// Admins: overview, catalog, lookup, accounts, audit, reconciliation.
		r.Route("/admin", func(r chi.Router) {
			r.Use(app.RequireAdmin)
			r.Get("/", http.RedirectHandler("/admin/overview", http.StatusSeeOther).ServeHTTP)
			r.Get("/overview", app.Handle(app.Admin.Overview))
			r.Get("/lookup", app.Handle(app.Admin.Lookup))
			r.Get("/users/{id}", app.Handle(app.Admin.AdminUser))
			r.With(app.RequireRecentAuth).Post("/users/{id}/disable", app.Handle(app.Admin.DisableUser))
			r.Post("/users/{id}/enable", app.Handle(app.Admin.EnableUser))
			r.Post("/users/{id}/password-reset", app.Handle(app.Admin.AdminSendReset))
			r.Get("/mail", app.Handle(app.Admin.AdminMail))
			r.Get("/projects", app.Handle(app.Admin.AdminProjects))
			r.Get("/projects/new", app.Handle(app.Admin.ProjectNew))
			r.Post("/projects", app.Handle(app.Admin.ProjectCreate))
			r.Get("/projects/{id}/edit", app.Handle(app.Admin.ProjectEditForm))
			r.Post("/projects/{id}", app.Handle(app.Admin.ProjectUpdate))
			r.With(app.RequireRecentAuth).Post("/projects/import", app.Handle(app.Admin.ProjectImport))
			r.Get("/audit", app.Handle(app.Admin.Audit))
			r.Get("/reconciliation", app.Handle(app.Admin.ReconOverview))
			r.Get("/reconciliation/runs", app.Handle(app.Admin.ReconRuns))
			r.Get("/runs/{id}", app.Handle(app.Admin.ReconRun))
			r.Get("/projects/{id}/reconciliation", app.Handle(app.Admin.ReconProject))
			r.Post("/projects/{id}/reconcile", app.Handle(app.Admin.ReconRunNow))
			r.Get("/hosts/{id}", app.Handle(app.Admin.AdminHost))
			// Computers a volunteer can trust (issue 32): reports about a day.
			r.Get("/reports", app.Handle(app.Admin.AdminReports))
			r.Post("/reports/{id}", app.Handle(app.Admin.AnswerReport))
			// Teams (issue 43): rename, hide or delete, audited.
			r.Get("/teams", app.Handle(app.Admin.AdminTeams))
			r.Post("/teams/{id}/rename", app.Handle(app.Admin.AdminRenameTeam))
			r.Post("/teams/{id}/hide", app.Handle(app.Admin.AdminHideTeam))
			r.With(app.RequireRecentAuth).Post("/teams/{id}/delete", app.Handle(app.Admin.AdminDeleteTeam))
		})
	})
	return r
}
