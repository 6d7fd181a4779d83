// Package views renders Cobble's pages. Its templ components are pure
// functions of the typed data they are given: no database, no request.
package views

import (
	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// Page is what every page's layout needs.
type Page struct {
	Title    string
	SiteName string
	// User is the volunteer logged in, or nil.
	User *accounting.User
	// CSS is the fingerprinted stylesheet path.
	CSS string
	// Refresh, when above 0, reloads the page after that many seconds
	// (a run in progress, shown without JavaScript).
	Refresh int
	// Nav names the volunteer section the page belongs to ("dashboard",
	// "computers", "projects", "settings"), marked in the navigation.
	Nav string
	// RequestID is the id of the request the page answers, which an error
	// page asks a visitor to quote in a report; "" shows none.
	RequestID string
	// Notice, when not empty, confirms at the top of the page what the
	// visitor just did (such as logging out).
	Notice string
	// Contact is the address at which volunteers reach the operators;
	// "" when none is configured.
	Contact string
	// Path is the page's own path, where the language switcher comes back
	// to; "" for a page that answers a form (it goes to the start page).
	Path string
}

// Fields maps a form field's name to its error message.
type Fields map[string]locale.Msg
