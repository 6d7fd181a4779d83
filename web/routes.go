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
	r.Use(mw.logRequests, mw.recoverPanics, mw.deadline, mw.securityHeaders, limitBody(handlers.MaxRPCBody))
	r.NotFound(app.Handle(app.NotFound))

	// BOINC clients: the account-manager protocol.
	r.Post("/rpc.php", app.RPC)
	r.Get("/get_project_config.php", app.ProjectConfig)

	r.Handle(static.Prefix+"*", assets)
	r.Get("/healthz", mw.health)

	// People: pages with sessions, protected against cross-origin posts.
	r.Group(func(r chi.Router) {
		r.Use(limitBody(maxFormBody), mw.crossOrigin, mw.sessions.LoadAndSave, app.LoadUser)
		r.Get("/", app.Handle(app.Home))
		r.Get("/login", app.Handle(app.LoginForm))
		r.Post("/login", app.Handle(app.Login))
		r.Get("/signup", app.Handle(app.SignupForm))
		r.Post("/signup", app.Handle(app.Signup))
		r.Post("/logout", app.Handle(app.Logout))

		// Admins: reconciliation reports and hosts.
		r.Route("/admin", func(r chi.Router) {
			r.Use(app.RequireAdmin)
			r.Get("/", http.RedirectHandler("/admin/reconciliation", http.StatusSeeOther).ServeHTTP)
			r.Get("/reconciliation", app.Handle(app.ReconOverview))
			r.Get("/reconciliation/runs", app.Handle(app.ReconRuns))
			r.Get("/runs/{id}", app.Handle(app.ReconRun))
			r.Get("/projects/{id}/reconciliation", app.Handle(app.ReconProject))
			r.Post("/projects/{id}/reconcile", app.Handle(app.ReconRunNow))
			r.Get("/hosts/{id}", app.Handle(app.AdminHost))
		})
	})
	return r
}
