package views

import (
	"strings"

	"github.com/cobble-am/cobble/accounting"
)

// keywordTree is a top-level keyword and its descendants, in order.
type keywordTree struct {
	Top   accounting.Keyword
	Below []accounting.Keyword
}

// keywordGroups splits the keywords of one category (parents before
// children) into top-level keywords with their descendants.
func keywordGroups(ks []accounting.Keyword, cat accounting.KeywordCategory) []keywordTree {
	var out []keywordTree
	for _, k := range ks {
		switch {
		case k.Category != cat:
		case k.Level == 0 || len(out) == 0:
			out = append(out, keywordTree{Top: k})
		default:
			out[len(out)-1].Below = append(out[len(out)-1].Below, k)
		}
	}
	return out
}

// countKeywords counts the keywords of gs.
func countKeywords(gs []keywordTree) int {
	n := 0
	for _, g := range gs {
		n += 1 + len(g.Below)
	}
	return n
}

// answered says whether the volunteer said yes or no to a keyword of gs
// (the top ones of groups that have one).
func (f PrefsForm) answered(gs []keywordTree) bool {
	for _, g := range gs {
		for _, k := range append([]accounting.Keyword{g.Top}, g.Below...) {
			if k.ID != 0 && f.KeywordChoice[k.ID] != "" && f.KeywordChoice[k.ID] != "maybe" {
				return true
			}
		}
	}
	return false
}

// scienceSummary names the areas said yes and no to.
func scienceSummary(f PrefsForm) string {
	var yes, no []string
	for _, k := range f.Keywords {
		switch f.KeywordChoice[k.ID] {
		case "yes":
			yes = append(yes, k.Name)
		case "no":
			no = append(no, k.Name)
		}
	}
	if len(yes)+len(no) == 0 {
		return "You have not chosen: every area is maybe, and Cobble balances the projects."
	}
	var parts []string
	if len(yes) > 0 {
		parts = append(parts, "Yes to "+strings.Join(yes, ", "))
	}
	if len(no) > 0 {
		parts = append(parts, "no to "+strings.Join(no, ", "))
	}
	return strings.Join(parts, "; ") + "; maybe to the rest."
}

// projectsSummary names the projects chosen always and never.
func projectsSummary(f PrefsForm) string {
	var always, never []string
	for _, p := range f.Projects {
		switch f.ProjectChoice[p.ID] {
		case accounting.ChoiceAlways:
			always = append(always, p.Name)
		case accounting.ChoiceNever:
			never = append(never, p.Name)
		}
	}
	if len(always)+len(never) == 0 {
		return "Cobble chooses among all the projects."
	}
	var parts []string
	if len(always) > 0 {
		parts = append(parts, "Always "+strings.Join(always, ", "))
	}
	if len(never) > 0 {
		parts = append(parts, "never "+strings.Join(never, ", "))
	}
	return strings.Join(parts, "; ") + "; Cobble chooses among the others."
}

// computeSummary names the preset chosen.
func computeSummary(f PrefsForm) string {
	for _, o := range presetOptions {
		if o[0] == f.Preset {
			return o[1] + "."
		}
	}
	return "Not chosen: your computers keep the settings made on them."
}
