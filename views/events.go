package views

import (
	"fmt"
	"strings"

	"github.com/cobble-am/cobble/accounting"
)

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
