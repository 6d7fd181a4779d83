package handlers

import (
	"net/http"
	"strings"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/views"
)

// Notices serves a volunteer's notices feed (GET /notices/{token}.rss),
// which their BOINC clients show in the Manager's Notices tab. The secret
// token is the only key: an unknown one is not found.
func (a *Client) Notices(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	token, ok := strings.CutSuffix(r.PathValue("file"), ".rss")
	if !ok {
		return accounting.ErrNotFound
	}
	u, err := a.accounts.UserByFeedToken(ctx, token)
	if err != nil {
		return err
	}
	today := a.ledger.Today(a.now(), u.TimeZone)
	s, err := a.ledger.Summary(ctx, u.ID, today)
	if err != nil {
		return err
	}
	computers, err := a.computers.Computers(ctx, u.ID, today)
	if err != nil {
		return err
	}
	f := views.NoticesFeed{SiteName: a.cfg.Name, Link: a.cfg.BaseURL, UserID: u.ID, Week: s.Last7,
		Warnings: accounting.Warnings(computers, s, a.now()), Now: a.now(), Lang: userLang(u)}
	body, err := f.RSS()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
	w.Header().Set("Cache-Control", "private, no-store")
	w.Write(body)
	return nil
}
