package views

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cobble-am/cobble/accounting"
)

// eventSentence tells an accounting event as a sentence for a person,
// from its kind and its JSON details.
func eventSentence(e accounting.Event) string {
	var d map[string]any
	_ = json.Unmarshal([]byte(e.Detail), &d)
	on := ""
	if e.ProjectName != "" {
		on = " on " + e.ProjectName
	}
	switch e.Kind {
	case "reset":
		return fmt.Sprintf("The counters%s went back (the client was reinstalled or the project reset): "+
			"estimated credit %s before, %s after; Cobble counts on from the new values.",
			on, credit(jsonNum(d, "before", "cpu_ec")+jsonNum(d, "before", "gpu_ec")), credit(jsonNum(d, "after", "cpu_ec")+jsonNum(d, "after", "gpu_ec")))
	case "clamp":
		return fmt.Sprintf("The host claimed %s of credit%s, more than it could have done; %s was kept aside, not credited.",
			credit(jsonNum(d, "requested", "cpu_ec")+jsonNum(d, "requested", "gpu_ec")), on,
			credit(jsonNum(d, "clamped", "cpu_ec")+jsonNum(d, "clamped", "gpu_ec")))
	case "implausible_host":
		return "The host described itself implausibly: " + listText(d["claims"]) + "."
	case "bad_counters":
		return "The counters reported" + on + " were not usable numbers; nothing was credited."
	case "credit_decrease":
		return fmt.Sprintf("The project's export showed %s less granted credit%s than before.", credit(jsonNum(d, "decrease")), on)
	}
	return e.Kind + on + "."
}

// jsonNum reads a number at a path of keys in decoded JSON (0 when absent).
func jsonNum(d map[string]any, path ...string) float64 {
	var v any = d
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return 0
		}
		v = m[k]
	}
	f, _ := v.(float64)
	return f
}

func listText(v any) string {
	items, _ := v.([]any)
	parts := make([]string, 0, len(items))
	for _, it := range items {
		parts = append(parts, fmt.Sprint(it))
	}
	if len(parts) == 0 {
		return "no details"
	}
	return strings.Join(parts, "; ")
}
