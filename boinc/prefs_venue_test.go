package boinc

import (
	"strings"
	"testing"
)

// Venues are written as 7.20.5 parses them: after the values outside
// venues, one <venue name="NAME"> block each with the name raw (the client
// does not decode entities in attributes), and <host_venue> with the same
// bytes. A name the client could not match is left out.
func TestVenuesInReply(t *testing.T) {
	r := Reply{
		GlobalPreferences: &GlobalPreferences{ModTime: 1700000000, MaxNCPUsPct: 100, CPUUsageLimit: 100,
			Venues: []Venue{
				{Name: "Laptop café", Prefs: GlobalPreferences{ModTime: 5, MaxNCPUsPct: 50, CPUUsageLimit: 60}},
				{Name: `bad"name`, Prefs: GlobalPreferences{MaxNCPUsPct: 7}},
				{Name: "a&b", Prefs: GlobalPreferences{MaxNCPUsPct: 7}},
			}},
		HostVenue: "Laptop café",
	}
	out := string(r.AppendXML(nil))
	want := "        <ram_max_used_idle_pct>0</ram_max_used_idle_pct>\n" +
		"        <venue name=\"Laptop café\">\n" +
		"            <max_ncpus_pct>50</max_ncpus_pct>\n" +
		"            <cpu_usage_limit>60</cpu_usage_limit>\n"
	if !strings.Contains(out, want) {
		t.Errorf("no venue block as 7.20.5 reads it:\n%s", out)
	}
	if strings.Count(out, "<mod_time>") != 1 || strings.Count(out, "<venue ") != 1 ||
		!strings.Contains(out, "        </venue>\n    </global_preferences>\n    <host_venue>Laptop café</host_venue>\n") {
		t.Errorf("reply:\n%s", out)
	}
	for _, bad := range []string{"", `x"y`, "a<b", "a&amp;b", "tab\tx", "\xff", strings.Repeat("x", MaxVenueName+1)} {
		if ValidVenueName(bad) {
			t.Errorf("ValidVenueName(%q) = true", bad)
		}
		r.HostVenue = bad
		if strings.Contains(string(r.AppendXML(nil)), "<host_venue>") {
			t.Errorf("host venue %q written", bad)
		}
	}
	for _, good := range []string{"home", "Büro 2", "Ada’s place (2nd floor)", strings.Repeat("é", 32)} {
		if !ValidVenueName(good) {
			t.Errorf("ValidVenueName(%q) = false", good)
		}
	}
}
