package accounting

import (
	"strings"
	"unicode/utf8"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/locale"
)

// Locations are BOINC's venues: each of a volunteer's computers is at the
// Default location or at one of the volunteer's named locations, and each
// location has its own compute preferences. docs/VENUES.md says how they
// reach the client.
const (
	// DefaultLocation names the location of computers at no named one;
	// its preferences are the volunteer's compute_prefs.
	DefaultLocation = "Default"
	// DefaultVenue is the <host_venue> sent for a computer at Default. It
	// has no venue block, so the client uses the values outside venues. A
	// 7.20.5 client ignores an empty host venue, so Default needs a name
	// to move a computer back to.
	DefaultVenue = "default"
	// MaxLocations is how many named locations a volunteer may have.
	MaxLocations = 8
	// MaxLocationName is the longest location name, in characters.
	MaxLocationName = 32
	// MaxNickname is the longest computer nickname, in characters.
	MaxNickname = 64
)

// BOINCLocations are BOINC's own venue names, which projects' own
// preferences also know; a volunteer may name locations anything else.
var BOINCLocations = []string{"home", "work", "school"}

// Location is one of a volunteer's locations, as the settings page shows
// it. The Default location has ID 0.
type Location struct {
	ID   int64
	Name string
	// Preset and Compute are the location's compute preferences; at
	// Default, Preset is "" and Compute nil when the volunteer never
	// chose (clients keep their own).
	Preset  string
	Compute *ComputePrefs
	// Computers are the volunteer's computers at this location.
	Computers []ComputerName
}

// ComputerName is a computer named as its volunteer sees it.
type ComputerName struct {
	ID    int64
	Label string
}

// checkLocationName checks a new location name, trimmed, under field.
func checkLocationName(v validation, field, name string) {
	v.check(name != "", field, locale.M("computer.location_name_empty"))
	v.check(utf8.RuneCountInString(name) <= MaxLocationName, field, locale.M("computer.name_too_long", "Max", MaxLocationName))
	v.check(Printable(name) && boinc.ValidVenueName(name), field,
		locale.M("computer.location_name_chars"))
	v.check(!isDefaultName(name), field, locale.M("computer.location_name_default"))
}

// isDefaultName reports whether name is the default location's, as Cobble
// stores it, as the client's venue, or as a page in any language names it.
func isDefaultName(name string) bool {
	if strings.EqualFold(name, DefaultLocation) || strings.EqualFold(name, DefaultVenue) {
		return true
	}
	for _, l := range locale.Default().Langs() {
		if strings.EqualFold(name, l.T("locations.default_name")) {
			return true
		}
	}
	return false
}

// checkNickname checks a computer's nickname ("" clears it).
func checkNickname(v validation, name string) {
	v.check(utf8.RuneCountInString(name) <= MaxNickname, "name", locale.M("computer.name_too_long", "Max", MaxNickname))
	v.check(Printable(name) && !strings.ContainsAny(name, "<>"), "name",
		locale.M("computer.nickname_chars"))
}

// venue is a named location as an RPC uses it.
type venue struct {
	ID      int64
	Name    string
	Compute ComputePrefs
}

// Venue is one named location's preferences in a reply.
type Venue struct {
	Name    string
	Compute ComputePrefs
}
