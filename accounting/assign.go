package accounting

import (
	"slices"
)

// Action is what Cobble asks a host to do with a project.
type Action int

const (
	// Work: attach if needed and fetch work.
	Work Action = iota + 1
	// Drain: stay attached, fetch no new work (a paused project).
	Drain
	// Detach: fetch no new work and detach once the work in hand is done.
	Detach
)

// Assignment is one project in a reply, with what the host should do.
type Assignment struct {
	Project Project
	Action  Action
	// NoRsc lists the resources the project cannot use, so the client asks
	// it for no work of those kinds.
	NoRsc []string
}

// AssignInput is everything project assignment looks at for one host.
type AssignInput struct {
	Platforms []string // the host's platform and alternate platforms
	Resources []string // CPU plus the GPU kinds the host has
	Catalog   []Project
	// Choices maps project ID to the volunteer's "exclude" or "choose".
	Choices map[int64]string
	// Running holds the projects Cobble attached the host to before
	// (reported by the client, or assigned and not yet attached).
	Running map[int64]bool
	// Manual holds projects the volunteer attached the host to without
	// Cobble; Cobble leaves them alone.
	Manual map[int64]bool
	// Max is the most projects a host works for; at least 2 are chosen
	// when that many are eligible.
	Max int
}

// minProjects is how many projects a host gets at least, when possible.
const minProjects = 2

// Assign chooses the projects a host works for. It keeps what the host runs
// (no churn), covers every resource the host has, adds the volunteer's chosen
// projects, and fills up to at least two. Running projects that are not chosen
// are drained (paused projects) or detached.
func Assign(in AssignInput) []Assignment {
	limit := max(in.Max, minProjects)
	eligible := slices.DeleteFunc(slices.Clone(in.Catalog), func(p Project) bool { return !in.eligible(p) })
	slices.SortStableFunc(eligible, func(a, b Project) int { return in.rank(a) - in.rank(b) })

	var chosen []Project
	take := func(ok func(Project) bool) {
		for _, p := range eligible {
			if len(chosen) < limit && ok(p) && !containsProject(chosen, p.ID) {
				chosen = append(chosen, p)
			}
		}
	}
	take(func(p Project) bool { return in.Running[p.ID] })
	for _, r := range in.Resources {
		if !slices.ContainsFunc(chosen, func(p Project) bool { return slices.Contains(p.Resources, r) }) {
			take(func(p Project) bool {
				return slices.Contains(p.Resources, r) && !slices.ContainsFunc(chosen, func(c Project) bool {
					return slices.Contains(c.Resources, r)
				})
			})
		}
	}
	take(func(p Project) bool { return in.Choices[p.ID] == "choose" })
	take(func(Project) bool { return len(chosen) < minProjects })

	out := make([]Assignment, 0, len(chosen)+len(in.Running))
	for _, p := range chosen {
		out = append(out, Assignment{Project: p, Action: Work, NoRsc: noRsc(p)})
	}
	for _, p := range in.Catalog {
		if in.Running[p.ID] && !containsProject(chosen, p.ID) {
			a := Assignment{Project: p, Action: Detach}
			if p.Status == StatusPaused && in.Choices[p.ID] != "exclude" {
				a.Action = Drain
			}
			out = append(out, a)
		}
	}
	return out
}

// eligible says whether p may work on this host.
func (in AssignInput) eligible(p Project) bool {
	return p.Status == StatusActive &&
		in.Choices[p.ID] != "exclude" &&
		!in.Manual[p.ID] &&
		(len(p.Platforms) == 0 || slices.ContainsFunc(p.Platforms, func(pl string) bool {
			return slices.Contains(in.Platforms, pl)
		})) &&
		slices.ContainsFunc(p.Resources, func(r string) bool { return slices.Contains(in.Resources, r) })
}

// rank orders candidates: running first, then the volunteer's chosen ones,
// then the projects using more of the host's resources.
func (in AssignInput) rank(p Project) int {
	r := 0
	if !in.Running[p.ID] {
		r += 100
	}
	if in.Choices[p.ID] != "choose" {
		r += 10
	}
	for _, res := range in.Resources {
		if !slices.Contains(p.Resources, res) {
			r++
		}
	}
	return r
}

func noRsc(p Project) []string {
	var out []string
	for _, r := range Resources {
		if !slices.Contains(p.Resources, r) {
			out = append(out, r)
		}
	}
	return out
}

func containsProject(ps []Project, id int64) bool {
	return slices.ContainsFunc(ps, func(p Project) bool { return p.ID == id })
}
