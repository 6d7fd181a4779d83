package accounting

import (
	"cmp"
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

// Reason says why a host works for a project, for the computer page.
type Reason string

// The reasons Cobble gives a host a project. ReasonKept is never stored:
// a kept project keeps the reason it was first given for.
const (
	ReasonKept   Reason = "kept"   // the host ran it already (no churn)
	ReasonAlways Reason = "always" // the volunteer chose it for all their computers
	// ReasonHostAlways: the volunteer chose it for this computer.
	ReasonHostAlways Reason = "host_always"
	ReasonKeyword    Reason = "keyword" // it matches a science the volunteer said yes to
	ReasonShare      Reason = "share"   // it was furthest below its share of Cobble's recent work
)

// Assignment is one project in a reply, with what the host should do.
type Assignment struct {
	Project Project
	Action  Action
	// NoRsc lists the resources the project cannot use, so the client asks
	// it for no work of those kinds.
	NoRsc []string
	// Reason is why the project was chosen; empty for Drain and Detach.
	Reason Reason
}

// AssignInput is everything project assignment looks at for one host.
type AssignInput struct {
	Platforms []string // the host's platform and alternate platforms
	Resources []string // CPU plus the GPU kinds the host has
	Catalog   []Project
	// Choices maps project ID to the volunteer's ChoiceAlways or ChoiceNever.
	Choices map[int64]ProjectChoice
	// HostChoices maps project ID to the volunteer's ChoiceAlways or
	// ChoiceNever for this host, which come before their Choices.
	HostChoices map[int64]ProjectChoice
	// Keywords maps keyword ID to the volunteer's KeywordYes or KeywordNo;
	// a keyword that is absent is KeywordMaybe.
	Keywords map[int]KeywordAnswer
	// Running holds the projects Cobble attached the host to before
	// (reported by the client, or assigned and not yet attached).
	Running map[int64]bool
	// Manual holds projects the volunteer attached the host to without
	// Cobble; Cobble leaves them alone.
	Manual map[int64]bool
	// Shares maps project ID to its fraction of Cobble's recent work (the
	// fractions sum to at most 1); empty when nothing is known yet.
	Shares map[int64]float64
	// Max is the most projects a host works for; at least 2 are chosen
	// when that many are eligible.
	Max int
}

// minProjects is how many projects a host gets at least, when possible.
const minProjects = 2

// Assign chooses the projects a host works for. It is a pure function of
// its input. A choice for the host comes before the volunteer's choice for
// all their computers. In order, it takes the volunteer's "always" projects, the
// projects the host runs already (no churn), then for each resource the
// host has and no chosen project uses (GPUs first) the best candidate, and
// fills up to two with the best candidates; a new host given a project
// above its target share gets one more below its own (see spread). The best candidate matches the
// most of the volunteer's "yes" keywords, then is furthest below its target
// share of Cobble's recent work. Candidates are active, run on one of the
// host's platforms and resources, are not "never" and carry no "no" keyword
// (unless the volunteer said "always"). Running projects that are not
// chosen are drained (paused projects) or detached.
func Assign(in AssignInput) []Assignment {
	limit := max(in.Max, minProjects)
	cands := in.candidates()
	var chosen []Assignment
	take := func(c candidate, why Reason) {
		if len(chosen) < limit && !slices.ContainsFunc(chosen, func(a Assignment) bool { return a.Project.ID == c.p.ID }) {
			chosen = append(chosen, Assignment{Project: c.p, Action: Work, NoRsc: noRsc(c.p), Reason: why})
		}
	}
	for _, c := range cands {
		if c.always {
			take(c, in.reason(c))
		}
	}
	for _, c := range cands {
		if in.Running[c.p.ID] {
			take(c, ReasonKept)
		}
	}
	for _, r := range gpusFirst(in.Resources) {
		covered := slices.ContainsFunc(chosen, func(a Assignment) bool { return slices.Contains(a.Project.Resources, r) })
		if i := slices.IndexFunc(cands, func(c candidate) bool { return slices.Contains(c.p.Resources, r) }); !covered && i >= 0 {
			take(cands[i], in.reason(cands[i]))
		}
	}
	for _, c := range cands {
		if len(chosen) < minProjects {
			take(c, in.reason(c))
		}
	}
	in.spread(cands, chosen, take)
	return append(chosen, in.retired(chosen)...)
}

// spread adds, on a new host, one more project below its target share
// when a project chosen for the host is above its own: the host's CPU
// then gives the project above its target a smaller part.
func (in AssignInput) spread(cands []candidate, chosen []Assignment, take func(candidate, Reason)) {
	over := false
	for _, a := range chosen {
		i := slices.IndexFunc(cands, func(c candidate) bool { return c.p.ID == a.Project.ID })
		over = over || (i >= 0 && cands[i].deficit < 0 && a.Reason != ReasonKept)
	}
	if !over || len(in.Running) > 0 {
		return
	}
	for _, c := range cands {
		if c.deficit > 0 && slices.Contains(c.p.Resources, ResourceCPU) &&
			!slices.ContainsFunc(chosen, func(a Assignment) bool { return a.Project.ID == c.p.ID }) {
			take(c, in.reason(c))
			return
		}
	}
}

// retired returns Drain or Detach for the running projects not chosen.
func (in AssignInput) retired(chosen []Assignment) []Assignment {
	var out []Assignment
	for _, p := range in.Catalog {
		if in.Running[p.ID] && !slices.ContainsFunc(chosen, func(a Assignment) bool { return a.Project.ID == p.ID }) {
			a := Assignment{Project: p, Action: Detach}
			if p.Status == StatusPaused && in.choice(p.ID) != ChoiceNever {
				a.Action = Drain
			}
			out = append(out, a)
		}
	}
	return out
}

// candidate is an eligible project with what ranks it.
type candidate struct {
	p       Project
	always  bool
	yes     int     // keywords the volunteer said yes to
	deficit float64 // (target − actual) ÷ target share of recent work
}

// candidates returns the eligible projects, best first.
func (in AssignInput) candidates() []candidate {
	total := 0.0
	for _, p := range in.Catalog {
		if p.Status == StatusActive {
			total += p.Share
		}
	}
	var out []candidate
	for _, p := range in.Catalog {
		if !in.fits(p) {
			continue
		}
		yes, no := keywordMatches(p.Keywords, in.Keywords)
		c := candidate{p: p, always: in.choice(p.ID) == ChoiceAlways, yes: yes}
		if no && !c.always {
			continue
		}
		if target := p.Share / total; len(in.Shares) > 0 {
			c.deficit = (target - in.Shares[p.ID]) / target
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b candidate) int {
		return cmp.Or(-cmp.Compare(a.yes, b.yes), -cmp.Compare(a.deficit, b.deficit), cmp.Compare(a.p.ID, b.p.ID))
	})
	return out
}

// fits says whether p may work on this host at all.
func (in AssignInput) fits(p Project) bool {
	return p.Status == StatusActive &&
		in.choice(p.ID) != ChoiceNever &&
		!in.Manual[p.ID] &&
		(len(p.Platforms) == 0 || slices.ContainsFunc(p.Platforms, func(pl string) bool {
			return slices.Contains(in.Platforms, pl)
		})) &&
		slices.ContainsFunc(p.Resources, func(r string) bool { return slices.Contains(in.Resources, r) })
}

// choice is the volunteer's choice for project id on this host: the
// host's own, else the one for all their computers.
func (in AssignInput) choice(id int64) ProjectChoice {
	if c, ok := in.HostChoices[id]; ok && c != ChoiceAutomatic {
		return c
	}
	return in.Choices[id]
}

// reason is why a newly chosen candidate was chosen.
func (in AssignInput) reason(c candidate) Reason {
	switch {
	case in.Running[c.p.ID]:
		return ReasonKept
	case c.always && in.HostChoices[c.p.ID] == ChoiceAlways:
		return ReasonHostAlways
	case c.always:
		return ReasonAlways
	case c.yes > 0:
		return ReasonKeyword
	}
	return ReasonShare
}

// keywordMatches counts the project's keywords the volunteer said yes to
// and says whether one of them is a no. A choice on a keyword covers its
// descendants; the nearest choice counts ("no" to Biology and Medicine but
// "yes" to Cancer research: a cancer project matches).
func keywordMatches(projectKeywords []int, choices map[int]KeywordAnswer) (yes int, no bool) {
	if len(choices) == 0 {
		return 0, false
	}
	for _, id := range projectKeywords {
		k, ok := KeywordByID(id)
		if !ok {
			continue
		}
		for _, c := range append([]int{id}, k.Ancestors()...) {
			if choice, ok := choices[c]; ok {
				yes += b2i(choice == KeywordYes)
				no = no || choice == KeywordNo
				break
			}
		}
	}
	return yes, no
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// gpusFirst orders the host's resources with the GPU kinds before the CPU:
// GPU projects are fewer, and many of them use the CPU too.
func gpusFirst(rs []string) []string {
	out := slices.Clone(rs)
	slices.SortStableFunc(out, func(a, b string) int { return b2i(a == ResourceCPU) - b2i(b == ResourceCPU) })
	return out
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
