package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// teamPages lists the team pages measured, as a visitor sees them but for
// the API (the history volunteer's token), with their p99 budgets.
func teamPages(th *teamsOnHistory) []page {
	large, typical := strconv.FormatInt(th.large, 10), strconv.FormatInt(th.typical, 10)
	return []page{
		{name: fmt.Sprintf("team page, large (%d), 365 days", th.largeMembers), path: "/teams/" + large + "?days=365",
			budget: teamPageBudget},
		{name: fmt.Sprintf("team page, typical (%d), 365 d.", th.typicalMembers), path: "/teams/" + typical + "?days=365",
			budget: teamPageBudget},
		{name: "team page, typical, 30 days", path: "/teams/" + typical, budget: teamPageBudget},
		{name: "teams list, by credit", path: "/teams", budget: teamBoardsBudget},
		{name: "teams list, by members", path: "/teams?sort=members", budget: teamBoardsBudget},
		{name: "teams list, search", path: "/teams?q=" + "load+team+12", budget: teamBoardsBudget},
		{name: "leaderboards with team boards", path: "/leaderboards", budget: teamBoardsBudget},
		{name: "team badge SVG, large", path: "/teams/" + large + "/badge.svg", budget: 100 * time.Millisecond},
		{name: "API team, large", path: "/api/v1/teams/" + large, api: true, budget: teamPageBudget},
	}
}

// teamsResult is what a round measured of the teams.
type teamsResult struct {
	pages  []time.Duration // each team page's p99
	export exportResult    // 'cobble stats export'
}

// measureTeams measures the team pages n times each after one not counted
// (the leaderboards computed afresh first, as refreshBoards does for the
// pages), then builds the statistics export with bin in a process of its
// own.
func measureTeams(ctx context.Context, db *database, tgt *target, hs *history, th *teamsOnHistory, bin string,
	n int, out *report, logw io.Writer) (teamsResult, error) {
	var r teamsResult
	if err := refreshBoards(ctx, tgt.store, out); err != nil {
		return r, err
	}
	token, err := tgt.store.API.CreateAPIToken(ctx, hs.volunteerID, "cobble-load teams", time.Now().Truncate(time.Hour))
	if err != nil {
		return r, fmt.Errorf("teams: API token: %w", err)
	}
	defer tgt.store.API.RevokeAPIToken(context.WithoutCancel(ctx), hs.volunteerID, token.ID)
	client := &http.Client{Timeout: time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer client.CloseIdleConnections()
	out.printf("team pages: %d sequential requests each after one not counted, as a visitor (the API with a token), "+
		"server in this process; times to the end of the body\n", n)
	out.printf("  %-32s %9s %9s %9s %10s %8s\n", "page", "median", "p99", "max", "size", "budget")
	for _, p := range teamPages(th) {
		auth := [2]string{"Accept-Language", "en"}
		if p.api {
			auth = [2]string{"Authorization", "Bearer " + token.Secret}
		}
		var t pageTimes
		for i := range n + 1 {
			first, total, size, err := get(ctx, client, tgt.urls[0]+strings.TrimPrefix(p.path, "/"), auth)
			if err != nil {
				return r, fmt.Errorf("teams: %s: %w", p.name, err)
			}
			if i > 0 {
				t.first, t.total = append(t.first, first), append(t.total, total)
			}
			t.bytes = size
		}
		r.pages = append(r.pages, out.pageLine(p, t))
	}
	r.export, err = statsExport(ctx, bin, db.url, out, logw)
	return r, err
}

// statsExport builds the statistics export with bin ('cobble stats
// export') in a process of its own, and reports its wall time and peak
// RSS (runMeasured) and what it said of the files.
func statsExport(ctx context.Context, bin, dbURL string, out *report, logw io.Writer) (exportResult, error) {
	res, said, runErr := runMeasured(exec.CommandContext(ctx, bin, "stats", "export"), dbURL, logw)
	verdict := "within"
	if res.took >= statsExportBudget || res.rss >= statsExportRSS {
		verdict = "OVER"
	}
	out.printf("statistics export (cobble stats export, its own process): %v, peak RSS (VmHWM) %.1f MiB "+
		"(budget < %v, < 128 MiB) %s\n", round(res.took), float64(res.rss)/(1<<20), statsExportBudget, verdict)
	out.printf("  cobble said: %s\n", said)
	if runErr != nil {
		return res, fmt.Errorf("statistics export: %w", runErr)
	}
	return res, nil
}

// teamRounds records, when there were several rounds, each team figure's
// minimum, median and maximum over them.
func (r *report) teamRounds(th *teamsOnHistory, rounds []teamsResult) {
	if len(rounds) < 2 {
		return
	}
	line := func(name string, get func(teamsResult) float64, unit string) {
		var vs []float64
		for _, x := range rounds {
			vs = append(vs, get(x))
		}
		slices.Sort(vs)
		r.printf("  %-40s %.1f%s / %.1f%s / %.1f%s\n", name, vs[0], unit, vs[len(vs)/2], unit, vs[len(vs)-1], unit)
	}
	for i, p := range teamPages(th) {
		line(p.name+", p99", func(x teamsResult) float64 { return x.pages[i].Seconds() * 1000 }, " ms")
	}
	line("statistics export", func(x teamsResult) float64 { return x.export.took.Seconds() }, " s")
	line("statistics export, peak RSS", func(x teamsResult) float64 { return float64(x.export.rss) / (1 << 20) }, " MiB")
}
