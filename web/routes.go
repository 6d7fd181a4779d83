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
	r.Post("/rpc.php", mw.metrics.rpc(app.RPC))
	r.Get("/get_project_config.php", app.ProjectConfig)

	r.Handle(static.Prefix+"*", assets)
	r.Get("/favicon.ico", assets.ServeFavicon)
	r.Get("/healthz", mw.health)
	// BOINC clients read a volunteer's notices from their secret feed.
	r.Get("/notices/{file}", app.Handle(app.Notices))
	r.Get("/readyz", mw.ready)
	// Is credit fair? The measure's downloads, public and without sessions
	// (docs/CREDIT.md); the page is with the people's pages below.
	r.Group(func(r chi.Router) {
		r.Use(app.VisitorLang)
		r.Get("/credit.json", app.Handle(app.CreditJSON))
		r.Get("/credit.csv", app.Handle(app.CreditCSV))
	})
	// An alert's unsubscribe link, also posted by mail programs (RFC 8058):
	// the token is the only key, so it needs no session.
	r.Group(func(r chi.Router) {
		r.Use(limitForms, app.VisitorLang)
		r.Get("/unsubscribe/{token}", app.Handle(app.UnsubscribeForm))
		r.Post("/unsubscribe/{token}", app.Handle(app.Unsubscribe))
	})

	// The JSON API (issue 33): a volunteer's own data for their scripts,
	// with a personal API token and no session, cookie or CORS; its
	// OpenAPI document for anyone.
	r.Route("/api/v1", func(r chi.Router) {
		r.NotFound(app.APINotFound)
		r.MethodNotAllowed(app.APIMethodNotAllowed)
		r.Get("/openapi.json", app.OpenAPI)
		r.Get("/me", app.API(app.APIMe))
		r.Get("/computers", app.API(app.APIComputers))
		r.Get("/computers/{id}", app.API(app.APIComputer))
		r.Get("/projects", app.API(app.APIProjects))
		r.Get("/days", app.API(app.APIDays))
		r.Get("/events", app.API(app.APIEvents))
	})

	// A public profile's badges (issue 33), for forums' image proxies: no
	// session, the owner's language, cached with an ETag.
	r.Group(func(r chi.Router) {
		r.Use(app.VisitorLang)
		r.Get("/v/{handle}/badge.svg", app.Handle(app.BadgeSVG))
		r.Get("/v/{handle}/badge.png", app.Handle(app.BadgePNG))
	})

	// People: pages with sessions, protected against cross-origin posts.
	r.Group(func(r chi.Router) {
		r.Use(limitForms, mw.crossOrigin, mw.readYourWrites, saveSessions(mw.sessions), app.LoadUser)
		r.Get("/", app.Handle(app.Home))
		r.Get("/login", app.Handle(app.LoginForm))
		r.Post("/login", app.Handle(app.Login))
		r.Get("/login/two-factor", app.Handle(app.LoginTwoFactorForm))
		r.Post("/login/two-factor", app.Handle(app.LoginTwoFactor))
		r.Get("/signup", app.Handle(app.SignupForm))
		r.Post("/signup", app.Handle(app.Signup))
		r.Get("/signup/sent", app.Handle(app.SignupSent))
		r.Get("/signup/finish/{token}", app.Handle(app.SignupFinishForm))
		r.Post("/signup/finish/{token}", app.Handle(app.SignupFinish))
		r.Post("/logout", app.Handle(app.Logout))
		r.Post("/language", app.Handle(app.SetLanguage))
		r.Get("/password/forgot", app.Handle(app.ForgotForm))
		r.Post("/password/forgot", app.Handle(app.Forgot))
		r.Get("/password/reset/{token}", app.Handle(app.ResetForm))
		r.Post("/password/reset/{token}", app.Handle(app.Reset))
		r.Get("/email/confirm/{token}", app.Handle(app.ConfirmEmailForm))
		r.Post("/email/confirm/{token}", app.Handle(app.ConfirmEmail))
		r.Get("/api", app.Handle(app.APIPage)) // the API's page, for anyone
		// Is credit fair? The public page of the credit fairness measure.
		r.Get("/credit", app.Handle(app.Credit))
		if app.DevMailbox() {
			r.Get("/dev/mail", app.Handle(app.DevMail))
		}

		// Volunteers: their own computers, projects, settings and history.
		r.Group(func(r chi.Router) {
			r.Use(app.RequireUser)
			r.Get("/computers", app.Handle(app.Computers))
			r.Get("/computers/{id}", app.Handle(app.Computer))
			r.Post("/computers/{id}/disconnect", app.Handle(app.Disconnect))
			r.Post("/computers/{id}/location", app.Handle(app.ComputerLocation))
			r.Post("/computers/{id}/projects", app.Handle(app.ComputerProjectChoices))
			r.Post("/computers/{id}/name", app.Handle(app.ComputerName))
			r.Get("/projects", app.Handle(app.Projects))
			// Computers a volunteer can trust (issue 32): pause and wind down,
			// a day's evidence, reports about a day.
			r.Post("/computers/pause", app.Handle(app.PauseAll))
			r.Post("/computers/{id}/pause", app.Handle(app.ComputerPause))
			r.Get("/computers/{id}/days", app.Handle(app.OpenDay))
			r.Get("/computers/{id}/days/{day}", app.Handle(app.ComputerDay))
			r.Post("/computers/{id}/reports", app.Handle(app.SendReport))
			r.Get("/settings", app.Handle(app.Settings))
			r.Get("/settings/two-factor", app.Handle(app.TwoFactorSettings))
			r.With(app.RequireRecentAuth).Post("/settings/two-factor/enable", app.Handle(app.TwoFactorEnable))
			// Turning two factors off asks for the password and a code itself.
			r.Post("/settings/two-factor/disable", app.Handle(app.TwoFactorDisable))
			r.With(app.RequireRecentAuth).Post("/settings/password", app.Handle(app.SetPassword))
			r.With(app.RequireRecentAuth).Post("/settings/email", app.Handle(app.SetEmail))
			r.Post("/settings/email/confirm", app.Handle(app.ResendConfirmation))
			r.Post("/settings/alerts", app.Handle(app.SetAlerts))
			r.Post("/settings/time-zone", app.Handle(app.SetTimeZone))
			r.Post("/settings/language", app.Handle(app.SetUserLanguage))
			r.With(app.RequireRecentAuth).Post("/settings/delete", app.Handle(app.DeleteAccount))
			r.Get("/settings/sessions", app.Handle(app.Sessions))
			r.Post("/settings/sessions/end-others", app.Handle(app.EndOtherSessions))
			r.Get("/settings/science", app.Handle(app.SettingsSection("science")))
			r.Post("/settings/science", app.Handle(app.SettingsScience))
			r.Get("/settings/projects", app.Handle(app.SettingsSection("projects")))
			r.Post("/settings/projects", app.Handle(app.SettingsProjects))
			r.Get("/settings/compute", app.Handle(app.SettingsSection("compute")))
			r.Post("/settings/compute", app.Handle(app.SettingsCompute))
			r.Post("/settings/locations", app.Handle(app.SettingsLocation))
			r.Post("/settings/locations/delete", app.Handle(app.SettingsLocationDelete))
			// Personal API tokens (issue 33).
			r.Get("/settings/api", app.Handle(app.APITokens))
			r.With(app.RequireRecentAuth).Post("/settings/api", app.Handle(app.CreateAPIToken))
			r.Post("/settings/api/{id}/revoke", app.Handle(app.RevokeAPIToken))
			r.Get("/export/history.csv", app.Handle(app.ExportCSV))
			r.Get("/export/history.json", app.Handle(app.ExportJSON))
		})

		// The public side (issue 33): anyone reads a public profile, the
		// leaderboards and a certificate by its code; a volunteer sets their
		// profile and issues and withdraws certificates.
		r.Get("/v/{handle}", app.Handle(app.PublicProfile))
		r.Get("/leaderboards", app.Handle(app.Leaderboards))
		r.Get("/certificates/{code}", app.Handle(app.Certificate))
		r.Group(func(r chi.Router) {
			r.Use(app.RequireUser)
			r.Get("/settings/public", app.Handle(app.PublicSettings))
			r.Post("/settings/public", app.Handle(app.SetPublicSettings))
			r.Get("/certificates", app.Handle(app.Certificates))
			r.Post("/certificates", app.Handle(app.IssueCertificate))
			r.Post("/certificates/{code}/withdraw", app.Handle(app.WithdrawCertificate))
		})

		// Admins: overview, catalog, lookup, accounts, audit, reconciliation.
		r.Route("/admin", func(r chi.Router) {
			r.Use(app.RequireAdmin)
			r.Get("/", http.RedirectHandler("/admin/overview", http.StatusSeeOther).ServeHTTP)
			r.Get("/overview", app.Handle(app.Overview))
			r.Get("/lookup", app.Handle(app.Lookup))
			r.Get("/users/{id}", app.Handle(app.AdminUser))
			r.With(app.RequireRecentAuth).Post("/users/{id}/disable", app.Handle(app.DisableUser))
			r.Post("/users/{id}/enable", app.Handle(app.EnableUser))
			r.Post("/users/{id}/password-reset", app.Handle(app.AdminSendReset))
			r.Get("/mail", app.Handle(app.AdminMail))
			r.Get("/projects", app.Handle(app.AdminProjects))
			r.Get("/projects/new", app.Handle(app.ProjectNew))
			r.Post("/projects", app.Handle(app.ProjectCreate))
			r.Get("/projects/{id}/edit", app.Handle(app.ProjectEditForm))
			r.Post("/projects/{id}", app.Handle(app.ProjectUpdate))
			r.With(app.RequireRecentAuth).Post("/projects/import", app.Handle(app.ProjectImport))
			r.Get("/audit", app.Handle(app.Audit))
			r.Get("/reconciliation", app.Handle(app.ReconOverview))
			r.Get("/reconciliation/runs", app.Handle(app.ReconRuns))
			r.Get("/runs/{id}", app.Handle(app.ReconRun))
			r.Get("/projects/{id}/reconciliation", app.Handle(app.ReconProject))
			r.Post("/projects/{id}/reconcile", app.Handle(app.ReconRunNow))
			r.Get("/hosts/{id}", app.Handle(app.AdminHost))
			// Computers a volunteer can trust (issue 32): reports about a day.
			r.Get("/reports", app.Handle(app.AdminReports))
			r.Post("/reports/{id}", app.Handle(app.AnswerReport))
		})
	})
	return r
}
