package views

import (
	"context"
	"fmt"
	"strings"

	"github.com/cobble-am/cobble/accounting"
)

// platform names a computer's operating system and platform.
func platform(c accounting.Computer) string {
	version := c.OSVersion
	if i := strings.Index(version, " ["); i >= 0 && strings.HasSuffix(version, "]") {
		version = version[:i] // the kernel and C library: "[6.1.0-18-amd64|libc 2.36]"
	}
	var parts []string
	// The BOINC client on Linux names the distribution in both fields
	// ("Linux Debian", "Debian GNU/Linux 12 (bookworm)"): say it once.
	for _, w := range strings.Fields(c.OSName) {
		if !strings.Contains(version, w) {
			parts = append(parts, w)
		}
	}
	if version = strings.TrimSpace(version); version != "" {
		parts = append(parts, version)
	}
	if c.Platform != "" {
		parts = append(parts, "("+c.Platform+")")
	}
	return orDash(strings.Join(parts, " "))
}

// gpus lists a computer's GPUs, such as "1 × NVIDIA".
func gpus(ctx context.Context, c accounting.Computer) string {
	var parts []string
	for _, g := range c.Coprocs {
		if g.Count > 0 {
			parts = append(parts, fmt.Sprintf("%d × %s", g.Count, g.Type))
		}
	}
	if len(parts) == 0 {
		return t(ctx, "computer.no_gpus")
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
func processor(ctx context.Context, c accounting.Computer) string {
	n := t(ctx, "computer.cpus", "Count", c.NCPUs)
	if strings.TrimSpace(c.PModel) == "" {
		return n
	}
	return c.PModel + ", " + n
}

// reasonWords says in a sentence why a computer runs a project; "" for
// no reason recorded.
func reasonWords(ctx context.Context, r accounting.Reason) string {
	switch r {
	case accounting.ReasonKept:
		return t(ctx, "computer.reason_kept")
	case accounting.ReasonAlways:
		return t(ctx, "computer.reason_always")
	case accounting.ReasonHostAlways:
		return t(ctx, "computer.reason_host_always")
	case accounting.ReasonKeyword:
		return t(ctx, "computer.reason_keyword")
	case accounting.ReasonShare:
		return t(ctx, "computer.reason_share")
	}
	return ""
}

// hostChoiceOptions are the choices a computer's page offers for a
// project: the form's value (the choice's Word, as on the settings page)
// and its words; automatic follows the volunteer's choices.
func hostChoiceOptions(ctx context.Context) [][2]string {
	return [][2]string{
		{accounting.ChoiceAutomatic.Word(), t(ctx, "computer.choice_follow")},
		{accounting.ChoiceAlways.Word(), t(ctx, "computer.choice_host_always")},
		{accounting.ChoiceNever.Word(), t(ctx, "computer.choice_host_never")},
	}
}
