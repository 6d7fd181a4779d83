package boinc

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// GlobalPreferences are the BOINC global preferences a reply carries; the
// client 7.20.5 writes them to its global_prefs.xml and applies them. Only
// the tags below are written; the client keeps its defaults for others.
// The values outside any venue apply to a computer whose venue (the
// reply's <host_venue>) has no block of its own.
type GlobalPreferences struct {
	// ModTime (Unix seconds) tells clients and projects which copy of the
	// preferences is newer; it must change only when the values do, and
	// never lie in the future (the client clamps it to now).
	ModTime            float64
	MaxNCPUsPct        float64 // <max_ncpus_pct>
	CPUUsageLimit      float64 // <cpu_usage_limit>, % of CPU time
	RunIfUserActive    bool    // <run_if_user_active>
	RunGPUIfUserActive bool    // <run_gpu_if_user_active>
	RunOnBatteries     bool    // <run_on_batteries>
	StartHour, EndHour float64 // <start_hour>, <end_hour>; equal: any time
	DiskMaxUsedGB      float64 // <disk_max_used_gb>
	DiskMaxUsedPct     float64 // <disk_max_used_pct>
	RAMMaxUsedBusyPct  float64 // <ram_max_used_busy_pct>
	RAMMaxUsedIdlePct  float64 // <ram_max_used_idle_pct>
	// Venues are written after the values, one <venue name="..."> block
	// each; their own ModTime and Venues are not written. A venue whose
	// name is not a ValidVenueName is left out.
	Venues []Venue
}

// Venue is one <venue name="..."> block of global preferences: a client
// whose host venue is Name uses Prefs instead of the values outside
// venues (7.20.5, lib/prefs.cpp, GLOBAL_PREFS::parse_override).
type Venue struct {
	Name  string
	Prefs GlobalPreferences
}

// MaxVenueName is the longest venue name, in bytes, that a 7.20.5 client
// holds: it reads names into 256-byte buffers.
const MaxVenueName = 255

// ValidVenueName reports whether name can be a venue: not empty, at most
// MaxVenueName bytes of valid UTF-8, without control characters or any of
// < > & " '. The client compares the venue attribute as written (it does
// not decode entities there) with <host_venue> as decoded, and stops the
// attribute at the first ", so such a name is written raw in both and
// matches; the client also writes it unescaped into client_state.xml.
func ValidVenueName(name string) bool {
	if name == "" || len(name) > MaxVenueName || !utf8.ValidString(name) {
		return false
	}
	return !strings.ContainsFunc(name, func(r rune) bool {
		return unicode.IsControl(r) || strings.ContainsRune(`<>&"'`, r)
	})
}

// appendXML appends the <global_preferences> element.
func (g *GlobalPreferences) appendXML(dst []byte) []byte {
	dst = append(dst, "    <global_preferences>\n"...)
	dst = appendFloatElem(dst, "        ", "mod_time", g.ModTime, true)
	dst = g.appendValues(dst, "        ")
	for i := range g.Venues {
		v := &g.Venues[i]
		if !ValidVenueName(v.Name) {
			continue
		}
		dst = append(dst, "        <venue name=\""...)
		dst = append(dst, v.Name...)
		dst = append(dst, "\">\n"...)
		dst = v.Prefs.appendValues(dst, "            ")
		dst = append(dst, "        </venue>\n"...)
	}
	return append(dst, "    </global_preferences>\n"...)
}

// appendValues appends the values' elements, each on a line after in.
func (g *GlobalPreferences) appendValues(dst []byte, in string) []byte {
	dst = appendFloatElem(dst, in, "max_ncpus_pct", g.MaxNCPUsPct, true)
	dst = appendFloatElem(dst, in, "cpu_usage_limit", g.CPUUsageLimit, true)
	dst = appendBoolElem(dst, in, "run_if_user_active", g.RunIfUserActive)
	dst = appendBoolElem(dst, in, "run_gpu_if_user_active", g.RunGPUIfUserActive)
	dst = appendBoolElem(dst, in, "run_on_batteries", g.RunOnBatteries)
	dst = appendFloatElem(dst, in, "start_hour", g.StartHour, true)
	dst = appendFloatElem(dst, in, "end_hour", g.EndHour, true)
	dst = appendFloatElem(dst, in, "disk_max_used_gb", g.DiskMaxUsedGB, true)
	dst = appendFloatElem(dst, in, "disk_max_used_pct", g.DiskMaxUsedPct, true)
	dst = appendFloatElem(dst, in, "ram_max_used_busy_pct", g.RAMMaxUsedBusyPct, true)
	return appendFloatElem(dst, in, "ram_max_used_idle_pct", g.RAMMaxUsedIdlePct, true)
}

// UserKeywords are the volunteer's keyword answers, as BOINC keyword ids.
type UserKeywords struct {
	Yes, No []int
}

// appendXML appends the <user_keywords> element, or nothing when empty.
func (k *UserKeywords) appendXML(dst []byte) []byte {
	if len(k.Yes)+len(k.No) == 0 {
		return dst
	}
	const in = "        "
	dst = append(dst, "    <user_keywords>\n"...)
	for _, id := range k.Yes {
		dst = appendIntElem(dst, in, "yes", int64(id))
	}
	for _, id := range k.No {
		dst = appendIntElem(dst, in, "no", int64(id))
	}
	return append(dst, "    </user_keywords>\n"...)
}

// appendBoolElem writes <tag>1</tag> or <tag>0</tag>.
func appendBoolElem(dst []byte, indent, tag string, b bool) []byte {
	n := int64(0)
	if b {
		n = 1
	}
	return appendIntElem(dst, indent, tag, n)
}
