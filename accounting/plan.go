package accounting

import (
	"fmt"
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// The plan stage of an RPC (SyncStore.Sync): pure, between the read stage
// and the write stage. plan decides everything the RPC changes and answers
// from what was read; the credit, budget and assignment rules it applies
// are credit.go's, budget.go's, assign.go's and spread.go's.

// rpcPlan is everything one RPC changes, decided before anything is written.
type rpcPlan struct {
	Pairs       map[int64]*hostProject // the new state of every (host, project) row
	Changes     []creditChange
	Budget      budget // the host's, after this RPC
	Assignments []Assignment
	Unknown     []string
	Events      []event
	Messages    []locale.Msg
	// NewToken is set when the host joined with a password: the write
	// stage gives it a new AM token.
	NewToken bool
	// Pause is what the RPC does with the host's pause: the reply's
	// flags, and whether a pause whose time is up ends.
	Pause pauseDecision
}

// event is one row of accounting_events.
type event struct {
	ProjectID *int64
	Kind      EventKind
	Detail    EventDetail
}

// planInput is what planning one RPC looks at.
type planInput struct {
	Req         SyncRequest
	Catalog     []Project
	Stored      map[int64]*hostProject
	Choices     map[int64]ProjectChoice
	HostChoices map[int64]ProjectChoice // the volunteer's choices for this host
	Keywords    map[int]KeywordAnswer   // the volunteer's yes/no per keyword
	Shares      map[int64]float64       // each project's fraction of recent work
	Capacity    Capacity
	Budget      budget
	Issues      claims // implausible host claims
	Loc         *time.Location
	MaxProjects int
	// The identity the read stage established, for the result.
	User      User
	HostID    int64
	HostToken string
	Others    map[int64]projectCredit // the volunteer's credit on their other hosts
	Pause     pauseState              // the host's stored pause
}

// plan decides one RPC: whether the host needs an AM token, credit, the
// new state of each project row and the host's budget, assignment, the
// pause, and the events and messages to record.
func plan(in planInput) rpcPlan {
	p := rpcPlan{Pairs: make(map[int64]*hostProject, len(in.Stored)), NewToken: in.Req.Authenticator == ""}
	for id, st := range in.Stored {
		cp := *st
		cp.Attached = false
		p.Pairs[id] = &cp
	}
	assign := AssignInput{Platforms: in.Req.Host.Platforms, Resources: in.Req.Host.Resources(),
		Catalog: in.Catalog, Choices: in.Choices, HostChoices: in.HostChoices, Keywords: in.Keywords, Shares: in.Shares, Running: map[int64]bool{}, Manual: map[int64]bool{},
		Max: in.MaxProjects}
	usable := p.matchReports(in, &assign)
	cr := credit(creditInput{Now: in.Req.Now, Capacity: in.Capacity, Budget: in.Budget, Loc: in.Loc,
		Reports: usable, Stored: in.Stored})
	p.Changes, p.Budget = cr.Changes, cr.Budget
	p.takeBaselines(usable, in.Req.Now)
	p.applyChanges(in, cr)
	for id, st := range in.Stored {
		if st.Assigned && !assign.Manual[id] {
			assign.Running[id] = true
		}
	}
	p.Assignments = Assign(assign)
	p.markAssigned()
	p.Pause = in.Pause.decide(in.Req.Now)
	if n := MaxRequestProjects - len(p.Assignments); len(p.Unknown) > n {
		p.Unknown = p.Unknown[:max(n, 0)] // the reply stays within MaxRequestProjects accounts
	}
	if in.Req.ignored > 0 {
		p.Messages = append(p.Messages, ignoredMessage(in.Req.ignored))
	}
	if len(in.Issues) > 0 {
		p.Events = append(p.Events, event{Kind: EventImplausibleHost, Detail: EventDetail{Claims: in.Issues.English()}})
		p.Messages = append(p.Messages, locale.M("rpc.implausible_host", "Claims", in.Issues))
	}
	return p
}

// matchReports matches the reported projects with the catalog, marks them
// attached, and returns the usable counters per project.
func (p *rpcPlan) matchReports(in planInput, assign *AssignInput) map[int64]Usage {
	byKey := make(map[string]Project, len(in.Catalog))
	for _, pr := range in.Catalog {
		byKey[urlKey(pr.URL)] = pr
	}
	usable := map[int64]Usage{}
	for _, r := range in.Req.Projects {
		pr, known := byKey[urlKey(r.URL)]
		if !known {
			if r.AttachedViaAM {
				p.Unknown = append(p.Unknown, r.URL)
			}
			continue
		}
		pair := p.pair(pr.ID)
		pair.Attached = true
		if r.HostID > 0 {
			pair.ProjectHostID = r.HostID
		}
		if r.AttachedViaAM {
			assign.Running[pr.ID] = true
		} else {
			assign.Manual[pr.ID] = true
		}
		if r.Counters == nil {
			continue
		}
		if u, ok := usageOf(*r.Counters); ok {
			usable[pr.ID] = u
		} else {
			id := pr.ID
			p.Events = append(p.Events, event{ProjectID: &id, Kind: EventBadCounters,
				Detail: EventDetail{Reported: fmt.Sprintf("%+v", *r.Counters)}})
		}
	}
	return usable
}

// takeBaselines makes the usable reports the baselines of the next
// deltas, except stale ones: their projects keep theirs.
func (p *rpcPlan) takeBaselines(usable map[int64]Usage, now time.Time) {
	stale := map[int64]bool{}
	for _, c := range p.Changes {
		stale[c.ProjectID] = c.Stale
	}
	for id, cur := range usable {
		if !stale[id] {
			pair := p.Pairs[id]
			pair.Last, pair.ReportedAt = &cur, now
		}
	}
}

// applyChanges adds credit to the totals and averages and records resets,
// stale reports and clamps.
func (p *rpcPlan) applyChanges(in planInput, cr creditResult) {
	clamped := false
	span := averageSpan(in.Capacity, cr)
	for _, c := range p.Changes {
		pair := p.Pairs[c.ProjectID]
		pair.Total = pair.Total.Add(c.Credited)
		pair.Avg, pair.AvgTime = updateAverage(pair.Avg, pair.AvgTime, c.Credited.Credit(), cr.Elapsed, span, in.Req.Now)
		id := c.ProjectID
		if c.Reset || c.Stale {
			kind := EventReset
			if c.Stale {
				kind = EventStaleReport
			}
			p.Events = append(p.Events, event{ProjectID: &id, Kind: kind,
				Detail: EventDetail{Before: new(c.Prev.counters()), After: new(c.Cur.counters())}})
		}
		if !c.Clamped.IsZero() {
			clamped = true
			p.Events = append(p.Events, event{ProjectID: &id, Kind: EventClamp, Detail: EventDetail{
				Requested: new(c.Credited.Add(c.Clamped).counters()), Clamped: new(c.Clamped.counters())}})
		}
	}
	if clamped {
		p.Messages = append(p.Messages, locale.M("rpc.clamped"))
	}
}

// markAssigned records which projects the host is now asked to work for.
func (p *rpcPlan) markAssigned() {
	for _, pair := range p.Pairs {
		pair.Assigned = false
	}
	for _, a := range p.Assignments {
		p.pair(a.Project.ID).Assigned = a.Action != Detach
	}
}

// result is the RPC's result as planned: who, which host, the
// assignments, the messages, the credit over all the volunteer's hosts
// and the counters to resume from. The write stage adds a new AM token,
// the extras the preferences and the feed token.
func (p rpcPlan) result(in planInput) SyncResult {
	res := SyncResult{User: in.User, Authenticator: in.Req.Authenticator, HostID: in.HostID, HostToken: in.HostToken,
		Assignments: p.Assignments, Unknown: p.Unknown, Messages: p.Messages,
		Credit: creditWith(in.Others, p.Pairs, in.Req.Now), Resume: resumeCounters(p)}
	addPause(&res, p.Pause, in.Pause.until, in.Loc)
	return res
}

// resumeCounters returns the last known counters of the projects the host
// is asked to work for but is not attached to.
func resumeCounters(p rpcPlan) map[int64]Counters {
	out := map[int64]Counters{}
	for _, a := range p.Assignments {
		pair := p.Pairs[a.Project.ID]
		if a.Action == Work && !pair.Attached && pair.Last != nil {
			out[a.Project.ID] = pair.Last.counters()
		}
	}
	return out
}

// creditWith adds this host's credit to the other hosts' per project.
func creditWith(others map[int64]projectCredit, pairs map[int64]*hostProject, now time.Time) map[int64]ProjectCredit {
	out := make(map[int64]ProjectCredit, len(pairs))
	for id, o := range others {
		out[id] = ProjectCredit(o)
	}
	for id, p := range pairs {
		c := out[id]
		c.Total += p.Total.Credit()
		c.Avg += decayedAverage(p.Avg, p.AvgTime, now)
		out[id] = c
	}
	return out
}

// ignoredMessage tells the volunteer that part of the request was not read.
func ignoredMessage(n int) locale.Msg {
	return locale.M("rpc.ignored_projects", "Max", MaxRequestProjects, "Count", n)
}

func (p *rpcPlan) pair(id int64) *hostProject {
	if p.Pairs[id] == nil {
		p.Pairs[id] = &hostProject{ProjectID: id}
	}
	return p.Pairs[id]
}
