package accounting

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// Compute presets a volunteer picks from; PresetCustom takes their own values.
const (
	PresetStandard = "standard"
	PresetLowPower = "low_power"
	PresetMaximum  = "maximum"
	PresetCustom   = "custom"
)

// ComputePrefs are the common BOINC global preferences Cobble sets for a
// volunteer's computers. Percentages are 1–100; hours are 0–24, and a
// start equal to the end means "any time".
type ComputePrefs struct {
	MaxCPUsPct         float64 `json:"max_ncpus_pct"`          // use at most this % of the CPUs
	CPUTimePct         float64 `json:"cpu_usage_limit"`        // use the CPUs this % of the time
	RunIfUserActive    bool    `json:"run_if_user_active"`     // compute while the computer is in use
	RunGPUIfUserActive bool    `json:"run_gpu_if_user_active"` // use the GPU while the computer is in use
	RunOnBatteries     bool    `json:"run_on_batteries"`       // compute on battery power
	StartHour          float64 `json:"start_hour"`             // compute only from this hour ...
	EndHour            float64 `json:"end_hour"`               // ... to this one
	DiskMaxGB          float64 `json:"disk_max_used_gb"`       // use at most this much disk
	DiskMaxPct         float64 `json:"disk_max_used_pct"`      // and at most this % of it
	RAMBusyPct         float64 `json:"ram_max_used_busy_pct"`  // memory while the computer is in use
	RAMIdlePct         float64 `json:"ram_max_used_idle_pct"`  // memory while it is idle
	// ModTime is when the values last changed (not stored in the values).
	ModTime time.Time `json:"-"`
}

// Presets are the values of each named preset.
var presets = map[string]ComputePrefs{
	PresetStandard: {MaxCPUsPct: 100, CPUTimePct: 100, RunIfUserActive: true, DiskMaxGB: 20, DiskMaxPct: 50,
		RAMBusyPct: 50, RAMIdlePct: 90},
	PresetLowPower: {MaxCPUsPct: 50, CPUTimePct: 60, DiskMaxGB: 10, DiskMaxPct: 25, RAMBusyPct: 30, RAMIdlePct: 60},
	PresetMaximum: {MaxCPUsPct: 100, CPUTimePct: 100, RunIfUserActive: true, RunGPUIfUserActive: true,
		RunOnBatteries: true, DiskMaxGB: 100, DiskMaxPct: 75, RAMBusyPct: 80, RAMIdlePct: 95},
}

// Preset returns the values of a named preset (standard, low_power,
// maximum), and whether there is one by that name.
func Preset(name string) (ComputePrefs, bool) {
	p, ok := presets[name]
	return p, ok
}

// Validate checks the values; errors are keyed by the JSON field names.
func (c ComputePrefs) Validate() error {
	v := validation{}
	pct := func(x float64) bool { return x >= 1 && x <= 100 }
	v.check(pct(c.MaxCPUsPct), "max_ncpus_pct", locale.M("compute.max_ncpus_pct_range"))
	v.check(pct(c.CPUTimePct), "cpu_usage_limit", locale.M("compute.cpu_usage_limit_range"))
	v.check(c.StartHour >= 0 && c.StartHour <= 24, "start_hour", locale.M("compute.hour_range"))
	v.check(c.EndHour >= 0 && c.EndHour <= 24, "end_hour", locale.M("compute.hour_range"))
	v.check(!(c.EndHour < c.StartHour), "end_hour", locale.M("compute.end_before_start"))
	v.check(c.DiskMaxGB >= 0.1 && c.DiskMaxGB <= 100000, "disk_max_used_gb", locale.M("compute.disk_max_used_gb_range"))
	v.check(pct(c.DiskMaxPct), "disk_max_used_pct", locale.M("compute.disk_max_used_pct_range"))
	v.check(pct(c.RAMBusyPct), "ram_max_used_busy_pct", locale.M("compute.ram_range"))
	v.check(pct(c.RAMIdlePct), "ram_max_used_idle_pct", locale.M("compute.ram_range"))
	return v.err()
}

// Preferences are what a volunteer chose on the settings page.
type Preferences struct {
	// Keywords maps keyword id to KeywordYes or KeywordNo; absent ones are
	// KeywordMaybe.
	Keywords map[int]KeywordAnswer
	// Projects maps project ID to ChoiceAlways or ChoiceNever; absent ones
	// are automatic.
	Projects map[int64]ProjectChoice
	// Preset is the compute preset chosen, "" when none was.
	Preset string
	// Compute are the compute values; nil when none were chosen.
	Compute *ComputePrefs
}

// rpcPrefs is what an RPC reads of a volunteer's preferences.
type rpcPrefs struct {
	Keywords map[int]KeywordAnswer
	// Compute are Default's values, with Default's own modification time;
	// nil when the volunteer never chose them.
	Compute *ComputePrefs
	// Venues are the named locations whose values can be used, by id,
	// each with its own modification time.
	Venues []venue
	// Odd says why stored compute values could not be used: the standard
	// preset stands in for Default's, Default's for a location's.
	Odd string
}

// decodeCompute turns stored values into ComputePrefs. Values that do not
// decode or validate give the standard preset and a reason.
func decodeCompute(raw []byte, modTime time.Time) (*ComputePrefs, string) {
	var c ComputePrefs
	odd := ""
	if err := json.Unmarshal(raw, &c); err != nil {
		odd = fmt.Sprintf("unreadable compute preferences: %v", err)
	} else if err := c.Validate(); err != nil {
		odd = fmt.Sprintf("compute preferences out of range: %v", err)
	}
	if odd != "" {
		c = presets[PresetStandard]
	}
	c.ModTime = modTime
	return &c, odd
}
