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
// other parameter is logged by its pattern: "/password/reset/{token}". A
// path that no route matched to its end (a 404, a 405, a request refused
// under a wildcard such as "/admin/*") is logged with each segment long
// enough to be a token replaced by "…": "/password/reset/…/more".
func LogPath(pattern, path string) string {
	if pattern == "" || strings.Contains(pattern, "*") {
		return shortSegments(path)
	}
	for _, p := range routeParam.FindAllString(pattern, -1) {
		if p != "{id}" {
			return pattern
		}
	}
	return path
}

// maxLoggedSegment is the longest segment of a path without a route that
// is logged; Cobble's tokens and feed names are longer.
const maxLoggedSegment = 24

// shortSegments returns path with each segment longer than
// maxLoggedSegment replaced by "…".
func shortSegments(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if len(s) > maxLoggedSegment {
			segs[i] = "…"
		}
	}
	return strings.Join(segs, "/")
}
