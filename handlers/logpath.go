package handlers

import (
	"regexp"
	"strings"
)

// routeParam matches a parameter of a route pattern, "{id}" or "{token}".
var routeParam = regexp.MustCompile(`\{[^}]*\}`)

// LogPath returns what a log line may say of a request for path that was
// matched to the route pattern ("" when no route matched): never a
// secret that the path carries, such as a mailed link's token or the name
// of a volunteer's notices feed, since either opens an account to whoever
// reads the log.
//
// A route whose parameters are all {id} (a number, no secret) is logged
// by its path, and so is a route without parameters. A route with any
// other parameter is logged by its pattern: "/password/reset/{token}";
// one that ends in a wildcard, by what comes before it: "/static/…". A
// path no route matched is logged by its first segment alone, and not
// even that when it is long enough to be a token: "/wp-admin/…", "/…".
func LogPath(pattern, path string) string {
	if pattern == "" {
		return unmatchedPath(path)
	}
	if prefix, _, wild := strings.Cut(pattern, "*"); wild {
		return prefix + "…"
	}
	for _, p := range routeParam.FindAllString(pattern, -1) {
		if p != "{id}" {
			return pattern
		}
	}
	return path
}

// maxLoggedSegment is the longest first segment of an unmatched path that
// is logged; Cobble's tokens are longer.
const maxLoggedSegment = 24

// unmatchedPath is LogPath for a path that no route matched.
func unmatchedPath(path string) string {
	first, rest, more := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if len(first) > maxLoggedSegment {
		return "/…"
	}
	if more && rest != "" {
		return "/" + first + "/…"
	}
	if more {
		return "/" + first + "/"
	}
	return "/" + first
}
