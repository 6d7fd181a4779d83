package views

import (
	"context"
	"strings"
)

// The words Browser and System answer when they cannot name a browser or
// a system, in English; browserName and systemName translate them.
const (
	unknownBrowser = "Unknown browser"
	otherBrowser   = "Another browser"
	unknownSystem  = "Unknown system"
)

// browserName is Browser in the language ctx carries.
func browserName(ctx context.Context, ua string) string {
	switch b := Browser(ua); b {
	case unknownBrowser:
		return t(ctx, "useragent.unknown_browser")
	case otherBrowser:
		return t(ctx, "useragent.other_browser")
	default:
		return b
	}
}

// systemName is System in the language ctx carries.
func systemName(ctx context.Context, ua string) string {
	if s := System(ua); s != unknownSystem {
		return s
	}
	return t(ctx, "useragent.unknown_system")
}

// Browser names the browser a User-Agent header describes, with its major
// version ("Firefox 128", "Chrome 126", "Safari 17"), for the sessions
// page. It knows the common browsers; any other is "Another browser", and
// an empty header "Unknown browser".
func Browser(ua string) string {
	if strings.TrimSpace(ua) == "" {
		return unknownBrowser
	}
	// Order matters: Edge, Opera, Samsung and the others also say
	// "Chrome/" and "Safari/"; Chrome also says "Safari/".
	for _, b := range []struct{ token, name string }{
		{"Edg/", "Edge"}, {"EdgA/", "Edge"}, {"EdgiOS/", "Edge"},
		{"OPR/", "Opera"}, {"OPT/", "Opera"},
		{"SamsungBrowser/", "Samsung Internet"},
		{"Vivaldi/", "Vivaldi"},
		{"YaBrowser/", "Yandex Browser"},
		{"Firefox/", "Firefox"}, {"FxiOS/", "Firefox"},
		{"HeadlessChrome/", "Headless Chrome"},
		{"CriOS/", "Chrome"}, {"Chromium/", "Chromium"}, {"Chrome/", "Chrome"},
	} {
		if v, ok := versionAfter(ua, b.token); ok {
			return strings.TrimSpace(b.name + " " + v)
		}
	}
	if strings.Contains(ua, "Safari/") {
		v, _ := versionAfter(ua, "Version/")
		return strings.TrimSpace("Safari " + v)
	}
	for _, tool := range []string{"curl/", "Wget/", "python-requests/", "Go-http-client/"} {
		if v, ok := versionAfter(ua, tool); ok {
			return strings.TrimSpace(strings.TrimSuffix(tool, "/") + " " + v)
		}
	}
	return otherBrowser
}

// System names the operating system a User-Agent header describes
// ("Windows", "macOS", "iOS", "Android 14", "Linux", ...); "Unknown
// system" when it names none Cobble knows.
func System(ua string) string {
	switch {
	case strings.Contains(ua, "iPhone"), strings.Contains(ua, "iPod"):
		return "iOS"
	case strings.Contains(ua, "iPad"):
		return "iPadOS"
	case strings.Contains(ua, "Android"):
		v, _ := versionAfter(ua, "Android ")
		return strings.TrimSpace("Android " + v)
	case strings.Contains(ua, "Windows Phone"):
		return "Windows Phone"
	case strings.Contains(ua, "Windows"):
		return "Windows"
	case strings.Contains(ua, "CrOS"):
		return "ChromeOS"
	case strings.Contains(ua, "Macintosh"), strings.Contains(ua, "Mac OS X"):
		return "macOS"
	case strings.Contains(ua, "FreeBSD"):
		return "FreeBSD"
	case strings.Contains(ua, "OpenBSD"):
		return "OpenBSD"
	case strings.Contains(ua, "Linux"), strings.Contains(ua, "X11"):
		return "Linux"
	}
	return unknownSystem
}

// versionAfter finds token in ua and returns the major version that
// follows it (the digits up to the first dot), which may be "".
func versionAfter(ua, token string) (string, bool) {
	i := strings.Index(ua, token)
	if i < 0 {
		return "", false
	}
	rest := ua[i+len(token):]
	n := 0
	for n < len(rest) && n < 6 && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	return rest[:n], true
}
