package views

import (
	"context"
	"strconv"
	"strings"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
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
			if k.ID != 0 && f.KeywordChoice[k.ID] != "" && f.KeywordChoice[k.ID] != accounting.KeywordMaybe {
				return true
			}
		}
	}
	return false
}

// keywordName is a keyword's name in ctx's language (catalog message
// "keyword.ID"); BOINC's English name when the catalog has none.
func keywordName(ctx context.Context, k accounting.Keyword) string {
	id := "keyword." + strconv.Itoa(k.ID)
	if !locale.Default().Has(id) {
		return k.Name
	}
	return t(ctx, id)
}

// keywordNames names the keywords with the given ids in ctx's language;
// an id outside the vocabulary is shown as "keyword N".
func keywordNames(ctx context.Context, ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		if k, ok := accounting.KeywordByID(id); ok {
			out[i] = keywordName(ctx, k)
		} else {
			out[i] = t(ctx, "science.unknown_keyword", "ID", strconv.Itoa(id))
		}
	}
	return out
}

// scienceSummary names the areas said yes and no to.
func scienceSummary(ctx context.Context, f PrefsForm) string {
	var yes, no []string
	for _, k := range f.Keywords {
		switch f.KeywordChoice[k.ID] {
		case accounting.KeywordYes:
			yes = append(yes, keywordName(ctx, k))
		case accounting.KeywordNo:
			no = append(no, keywordName(ctx, k))
		}
	}
	y, n := strings.Join(yes, ", "), strings.Join(no, ", ")
	switch {
	case len(yes) > 0 && len(no) > 0:
		return t(ctx, "science.summary_yes_no", "Yes", y, "No", n)
	case len(yes) > 0:
		return t(ctx, "science.summary_yes", "Yes", y)
	case len(no) > 0:
		return t(ctx, "science.summary_no", "No", n)
	}
	return t(ctx, "science.summary_none")
}

// projectsSummary names the projects chosen always and never.
func projectsSummary(ctx context.Context, f PrefsForm) string {
	var always, never []string
	for _, p := range f.Projects {
		switch f.ProjectChoice[p.ID] {
		case accounting.ChoiceAlways:
			always = append(always, p.Name)
		case accounting.ChoiceNever:
			never = append(never, p.Name)
		}
	}
	a, n := strings.Join(always, ", "), strings.Join(never, ", ")
	switch {
	case len(always) > 0 && len(never) > 0:
		return t(ctx, "settings.projects_summary_always_never", "Always", a, "Never", n)
	case len(always) > 0:
		return t(ctx, "settings.projects_summary_always", "Always", a)
	case len(never) > 0:
		return t(ctx, "settings.projects_summary_never", "Never", n)
	}
	return t(ctx, "settings.projects_summary_none")
}

// computeSummary names the preset chosen.
func computeSummary(ctx context.Context, f PrefsForm) string {
	if name := presetLabel(ctx, f.Preset); name != "" {
		return t(ctx, "compute.summary", "Preset", name)
	}
	return t(ctx, "compute.summary_none")
}
