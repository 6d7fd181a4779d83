package views

import (
	"strconv"

	"github.com/a-h/templ"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// APITokensPage lists a volunteer's personal API tokens, with the form
// that makes one.
type APITokensPage struct {
	Tokens []accounting.APIToken
	// New is the token just made, whose secret the page shows this once;
	// nil otherwise.
	New *accounting.NewAPIToken
	// Name is the name typed, shown again with Errors.
	Name   string
	Errors Fields
	// Revoked confirms that a token was just revoked.
	Revoked bool
	Max     int    // the most tokens a volunteer may hold
	DocsURL string // the API's page
}

// full says whether the volunteer holds the most tokens allowed.
func (d APITokensPage) full() bool { return len(d.Tokens) >= d.Max }

// APIPage explains the API: Base is the instance's URL without the final
// slash, PerMinute the requests a token may send a minute.
type APIPage struct {
	Base      string
	PerMinute int
	Year      int // the year the examples ask for: the last whole one
}

// curlMe is the page's first example.
func (d APIPage) curlMe() string {
	return `curl -H "Authorization: Bearer $COBBLE_TOKEN" ` + d.Base + "/api/v1/me"
}

// curlDays is the page's example of a year's days by project.
func (d APIPage) curlDays() string {
	y := strconv.Itoa(d.Year)
	return `curl -H "Authorization: Bearer $COBBLE_TOKEN" \` + "\n  \"" + d.Base + "/api/v1/days?from=" + y +
		"-01-01&to=" + y + `-12-31&by=project"`
}

// curlETag is the page's example of asking again only if it changed.
func (d APIPage) curlETag() string {
	return `curl -i -H "Authorization: Bearer $COBBLE_TOKEN" \` + "\n  -H 'If-None-Match: \"ETAG\"' " + d.Base + "/api/v1/me"
}

// curlPages is the page's example of reading a list page by page.
func (d APIPage) curlPages() string {
	return `curl -H "Authorization: Bearer $COBBLE_TOKEN" ` + d.Base + "/api/v1/events\n" +
		`# {"events": [...], "next_cursor": "MTIzNDU"}` + "\n" +
		`curl -H "Authorization: Bearer $COBBLE_TOKEN" "` + d.Base + `/api/v1/events?cursor=MTIzNDU"` + "\n" +
		`# … until "next_cursor": null`
}

// sampleMe is an answer of /api/v1/me, for the page.
const sampleMe = `{
  "id": 42,
  "name": "Ada",
  "time_zone": "Europe/Berlin",
  "totals": {"estimated": 1234567.5, "confirmed": 1180000},
  "confirmed_through": "2026-12-04"
}`

// meFields describe the fields of /api/v1/me's answer.
var meFields = []struct {
	Path string
	Msg  locale.Msg
}{
	{"id", locale.M("api_page.field_id")},
	{"name", locale.M("api_page.field_name")},
	{"time_zone", locale.M("api_page.field_time_zone")},
	{"totals.estimated", locale.M("api_page.field_estimated")},
	{"totals.confirmed", locale.M("api_page.field_confirmed")},
	{"confirmed_through", locale.M("api_page.field_confirmed_through")},
}

// apiRoutes are the API's routes the page lists, with the message that
// describes each.
var apiRoutes = []struct {
	Path string
	Msg  locale.Msg
}{
	{"/api/v1/me", locale.M("api_page.route_me")},
	{"/api/v1/computers", locale.M("api_page.route_computers")},
	{"/api/v1/computers/{id}", locale.M("api_page.route_computer")},
	{"/api/v1/projects", locale.M("api_page.route_projects")},
	{"/api/v1/days?from=&to=&by=project|computer", locale.M("api_page.route_days")},
	{"/api/v1/events", locale.M("api_page.route_events")},
	{"/api/v1/teams/{id}", locale.M("api_page.route_team")},
	{"/api/v1/openapi.json", locale.M("api_page.route_openapi")},
}

// tokenNameAttrs describes the name field by its hint, and by its error
// first when it has one.
func tokenNameAttrs(f Fields) templ.Attributes {
	a := inputAttrs("name", f, "name")
	if _, bad := f["name"]; bad {
		a["aria-describedby"] = "name-error name-hint"
	} else {
		a["aria-describedby"] = "name-hint"
	}
	return a
}
