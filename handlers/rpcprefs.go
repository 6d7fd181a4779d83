package handlers

import (
	"slices"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
)

// globalPrefs is the reply's <global_preferences>, with a venue block for
// the host's named location if it is at one, or nil when there are no
// preferences to send (the client keeps its own).
func globalPrefs(c *accounting.ComputePrefs, venues []accounting.Venue) *boinc.GlobalPreferences {
	if c == nil {
		return nil
	}
	g := prefValues(c)
	for i := range venues {
		g.Venues = append(g.Venues, boinc.Venue{Name: venues[i].Name, Prefs: *prefValues(&venues[i].Compute)})
	}
	return g
}

// prefValues are the values of c as BOINC global preferences.
func prefValues(c *accounting.ComputePrefs) *boinc.GlobalPreferences {
	return &boinc.GlobalPreferences{
		ModTime:     float64(c.ModTime.UnixMicro()) / 1e6,
		MaxNCPUsPct: c.MaxCPUsPct, CPUUsageLimit: c.CPUTimePct,
		RunIfUserActive: c.RunIfUserActive, RunGPUIfUserActive: c.RunGPUIfUserActive,
		RunOnBatteries: c.RunOnBatteries, StartHour: c.StartHour, EndHour: c.EndHour,
		DiskMaxUsedGB: c.DiskMaxGB, DiskMaxUsedPct: c.DiskMaxPct,
		RAMMaxUsedBusyPct: c.RAMBusyPct, RAMMaxUsedIdlePct: c.RAMIdlePct,
	}
}

// userKeywords is the reply's <user_keywords>, ids in increasing order.
func userKeywords(choices map[int]accounting.KeywordAnswer) *boinc.UserKeywords {
	if len(choices) == 0 {
		return nil
	}
	k := &boinc.UserKeywords{}
	for id, c := range choices {
		switch c {
		case accounting.KeywordYes:
			k.Yes = append(k.Yes, id)
		case accounting.KeywordNo:
			k.No = append(k.No, id)
		}
	}
	slices.Sort(k.Yes)
	slices.Sort(k.No)
	return k
}
