package views

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/cobble-am/cobble/accounting"
)

// AuditPage is one page of the audit log with its filter.
type AuditPage struct {
	Filter  accounting.AuditFilter
	Entries []accounting.AuditEntry
	Actors  []string
	Query   url.Values // the filter as asked, for the next page's link
}

// nextPage is the link to older entries, or "" on the last page.
func (d AuditPage) nextPage() string {
	if len(d.Entries) < d.Filter.Limit || len(d.Entries) == 0 {
		return ""
	}
	q := url.Values{}
	for k, v := range d.Query {
		q[k] = v
	}
	q.Set("before", strconv.FormatInt(d.Entries[len(d.Entries)-1].ID, 10))
	return "/admin/audit?" + q.Encode()
}

func dateValue(d AuditPage, key string) string { return d.Query.Get(key) }

// changeText shows an entry's before and after as "field: old → new" lines.
func changeText(e accounting.AuditEntry) []string {
	keys := map[string]bool{}
	for k := range e.Before {
		keys[k] = true
	}
	for k := range e.After {
		keys[k] = true
	}
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		b, hasB := e.Before[k]
		a, hasA := e.After[k]
		switch {
		case hasB && hasA:
			lines = append(lines, fmt.Sprintf("%s: %s → %s", k, valueText(b), valueText(a)))
		case hasA:
			lines = append(lines, fmt.Sprintf("%s: %s", k, valueText(a)))
		default:
			lines = append(lines, fmt.Sprintf("%s was %s", k, valueText(b)))
		}
	}
	return lines
}

func valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return "–"
	case string:
		if x == "" {
			return "(empty)"
		}
		return x
	case []any:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = valueText(p)
		}
		if len(parts) == 0 {
			return "none"
		}
		return strings.Join(parts, "; ")
	}
	return fmt.Sprint(v)
}

func kindLabel(k accounting.AuditKind) string { return strings.ReplaceAll(string(k), "_", " ") }
