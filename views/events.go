package views

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cobble-am/cobble/accounting"
)

// eventCounters is the counter set an event's detail carries.
type eventCounters struct {
	CPUEC   float64 `json:"cpu_ec"`
	GPUEC   float64 `json:"gpu_ec"`
	CPUTime float64 `json:"cpu_time"`
}

// eventSentence tells what an accounting event means, in plain words.
func eventSentence(e accounting.Event) string {
	var d struct {
		Before, After, Requested, Clamped eventCounters
		Claims                            []string
	}
	json.Unmarshal([]byte(e.Detail), &d) // a detail that does not parse leaves zeros
	on := ""
	if e.ProjectName != "" {
		on = " for " + e.ProjectName
	}
	switch e.Kind {
	case "reset":
		return fmt.Sprintf("BOINC's counters%s started again from zero (the project was detached and "+
			"attached again, or BOINC was reinstalled). Cobble counted the new work from there; "+
			"nothing was lost or counted twice.", on)
	case "clamp":
		return fmt.Sprintf("The computer claimed %s credit%s, more than it could have earned since its last "+
			"contact. Cobble counted %s and kept %s aside for review.", credit(d.Requested.CPUEC+d.Requested.GPUEC), on,
			credit(d.Requested.CPUEC+d.Requested.GPUEC-d.Clamped.CPUEC-d.Clamped.GPUEC), credit(d.Clamped.CPUEC+d.Clamped.GPUEC))
	case "implausible_host":
		what := "its hardware"
		if len(d.Claims) > 0 {
			what = strings.Join(d.Claims, "; ")
		}
		return "The computer reported implausible facts (" + what + "). Cobble used safe values instead."
	case "bad_counters":
		return "The computer sent counters" + on + " that cannot be right (not numbers, or negative). Cobble ignored them."
	case "credit_decrease":
		return "The credit the project granted this computer" + on + " went down in its statistics. " +
			"Cobble does not take confirmed credit back; it counts new credit from the lower figure on."
	}
	return "Accounting noticed something (" + e.Kind + ")" + on + "."
}

// platform names a computer's operating system and platform.
func platform(c accounting.Computer) string {
	parts := []string{}
	for _, s := range []string{c.OSName, c.OSVersion} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if c.Platform != "" {
		parts = append(parts, "("+c.Platform+")")
	}
	return orDash(strings.Join(parts, " "))
}

// gpus lists a computer's GPUs, such as "1 × NVIDIA".
func gpus(c accounting.Computer) string {
	var parts []string
	for _, g := range c.Coprocs {
		if g.Count > 0 {
			parts = append(parts, fmt.Sprintf("%d × %s", g.Count, g.Type))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// orDash is s, or a dash when s is empty.
func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "–"
	}
	return s
}

// safeHTTP is u when it is an http(s) URL, else "#": a link never runs script.
func safeHTTP(u string) string {
	if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
		return u
	}
	return "#"
}

// processor names a computer's processor model and CPU count.
func processor(c accounting.Computer) string {
	n := fmt.Sprintf("%d CPUs", c.NCPUs)
	if strings.TrimSpace(c.PModel) == "" {
		return n
	}
	return c.PModel + ", " + n
}
