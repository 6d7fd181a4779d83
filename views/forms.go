package views

import (
	"strconv"

	"github.com/a-h/templ"

	"github.com/cobble-am/cobble/accounting"
)

// first returns the first of names that has an error in f, or "".
func first(f Fields, names ...string) string {
	for _, n := range names {
		if _, bad := f[n]; bad {
			return n
		}
	}
	return ""
}

// inputAttrs marks an input invalid and ties its message to it when f has
// an error for it; the first invalid field of a form gets autofocus, which
// works without script.
func inputAttrs(name string, f Fields, focus string) templ.Attributes {
	a := templ.Attributes{}
	if name == "time_zone" {
		a["list"] = "time-zones"
	}
	if _, bad := f[name]; bad {
		a["aria-invalid"], a["aria-describedby"] = "true", name+"-error"
		if name == focus {
			a["autofocus"] = true
		}
	}
	return a
}

// orValue is v, or def when v is empty.
func orValue(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// TimeZones are offered for the volunteer's time zone; any IANA name is
// accepted.
var TimeZones = []string{"UTC",
	"Africa/Cairo", "Africa/Johannesburg", "Africa/Lagos", "Africa/Nairobi",
	"America/Anchorage", "America/Argentina/Buenos_Aires", "America/Bogota", "America/Chicago",
	"America/Denver", "America/Halifax", "America/Los_Angeles", "America/Mexico_City",
	"America/New_York", "America/Phoenix", "America/Santiago", "America/Sao_Paulo", "America/Toronto",
	"Asia/Bangkok", "Asia/Dhaka", "Asia/Dubai", "Asia/Hong_Kong", "Asia/Jakarta", "Asia/Jerusalem",
	"Asia/Karachi", "Asia/Kathmandu", "Asia/Kolkata", "Asia/Manila", "Asia/Seoul", "Asia/Shanghai",
	"Asia/Singapore", "Asia/Taipei", "Asia/Tehran", "Asia/Tokyo",
	"Atlantic/Reykjavik", "Australia/Adelaide", "Australia/Brisbane", "Australia/Perth", "Australia/Sydney",
	"Europe/Amsterdam", "Europe/Athens", "Europe/Berlin", "Europe/Dublin", "Europe/Helsinki",
	"Europe/Istanbul", "Europe/Lisbon", "Europe/London", "Europe/Madrid", "Europe/Moscow", "Europe/Paris",
	"Europe/Rome", "Europe/Stockholm", "Europe/Warsaw", "Europe/Zurich",
	"Pacific/Auckland", "Pacific/Honolulu"}

// silenceDays is the silence alert's threshold as its field shows it.
func silenceDays(days int) string {
	if days <= 0 {
		days = accounting.DefaultSilenceDays
	}
	return strconv.Itoa(days)
}

// loginAttrs ties the log-in form's fields to its error, which names no
// one field (it does not say which of the two is wrong).
func loginAttrs(f LoginForm) templ.Attributes {
	if f.Error == "" {
		return templ.Attributes{}
	}
	return templ.Attributes{"aria-invalid": "true", "aria-describedby": "login-error"}
}

// reauthEnctype is the confirmation form's encoding: multipart when a
// file must be chosen again.
func reauthEnctype(f ReauthForm) string {
	if len(f.Files) > 0 {
		return "multipart/form-data"
	}
	return "application/x-www-form-urlencoded"
}
