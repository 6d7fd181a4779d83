package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// APITokens lists the volunteer's personal API tokens and offers to make
// one (GET /settings/api).
func (a *Settings) APITokens(w http.ResponseWriter, r *http.Request) error {
	d := views.APITokensPage{Revoked: r.URL.Query().Get("revoked") == "1"}
	// A token just made is shown once: its secret leaves the session here.
	if secret := a.sessions.PopString(r.Context(), sessionNewToken); secret != "" {
		d.New = &accounting.NewAPIToken{APIToken: accounting.APIToken{Name: a.sessions.PopString(r.Context(), sessionNewTokenName)}, Secret: secret}
		w.Header().Set("Cache-Control", "no-store") // the page carries the secret
	}
	return a.apiTokensPage(w, r, http.StatusOK, d)
}

// CreateAPIToken makes a token named by the field "name" (POST
// /settings/api, behind a recent authentication) and redirects (303) to
// the list, which shows the new token's secret once in <code
// id="new-token">: a reload makes no second token.
// A bad name, or one token too many, is the page again with 422; too
// many made in an hour is the page with 429.
func (a *Settings) CreateAPIToken(w http.ResponseWriter, r *http.Request) error {
	name, err := textField(r, "name")
	var made accounting.NewAPIToken
	if err == nil {
		made, err = a.api.CreateAPIToken(r.Context(), currentUser(r).ID, name, a.now().Truncate(time.Hour))
	}
	if fields := formErrors(err); fields != nil {
		return a.apiTokensPage(w, r, http.StatusUnprocessableEntity, views.APITokensPage{Name: textOnly(name), Errors: fields})
	}
	if errors.Is(err, accounting.ErrLimited) {
		fields := views.Fields{"name": locale.M("api_tokens.too_fast", "Max", accounting.MaxAPITokenCreations)}
		return a.apiTokensPage(w, r, http.StatusTooManyRequests, views.APITokensPage{Name: textOnly(name), Errors: fields})
	}
	if err != nil {
		return err
	}
	a.sessions.Put(r.Context(), sessionNewToken, made.Secret)
	a.sessions.Put(r.Context(), sessionNewTokenName, made.Name)
	http.Redirect(w, r, "/settings/api", http.StatusSeeOther)
	return nil
}

// RevokeAPIToken revokes one of the volunteer's tokens (POST
// /settings/api/{id}/revoke): it stops working at once. Another
// volunteer's token, or none, is 404.
func (a *Settings) RevokeAPIToken(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return accounting.ErrNotFound
	}
	if err := a.api.RevokeAPIToken(r.Context(), currentUser(r).ID, id); err != nil {
		return err
	}
	http.Redirect(w, r, "/settings/api?revoked=1", http.StatusSeeOther)
	return nil
}

// apiTokensPage renders the tokens page with d and the volunteer's tokens.
func (a *Settings) apiTokensPage(w http.ResponseWriter, r *http.Request, status int, d views.APITokensPage) error {
	list, err := a.api.APITokens(r.Context(), currentUser(r).ID)
	if err != nil {
		return err
	}
	d.Tokens, d.Max, d.DocsURL = list, accounting.MaxAPITokens, a.cfg.BaseURL+"api"
	a.render(w, r, status, views.APITokens(a.volunteerPage(r, tr(r, "api_tokens.title"), "settings"), d))
	return nil
}
