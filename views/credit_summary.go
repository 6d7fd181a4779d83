package views

import (
	"context"

	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/internal/locale"
)

// creditSummary is what the credit page's figures say, in short: the
// range of the projects' median ratios and of their GPU ÷ CPU figures,
// over the projects the page shows figures for.
type creditSummary struct {
	Enough, Few     int                       // projects with and without enough data
	Low, High       reconcile.ProjectFairness // lowest and highest median ratio
	GPU             int                       // projects with a GPU ÷ CPU figure
	GPULow, GPUHigh reconcile.ProjectFairness // lowest and highest GPU ÷ CPU
}

// summarize reads the summary from the projects' figures.
func summarize(ps []reconcile.ProjectFairness) creditSummary {
	var s creditSummary
	for _, p := range ps {
		if !p.Enough {
			s.Few++
			continue
		}
		if s.Enough == 0 || p.Median < s.Low.Median {
			s.Low = p
		}
		if s.Enough == 0 || p.Median > s.High.Median {
			s.High = p
		}
		s.Enough++
		if p.GPUvsCPU == nil {
			continue
		}
		if s.GPU == 0 || *p.GPUvsCPU < *s.GPULow.GPUvsCPU {
			s.GPULow = p
		}
		if s.GPU == 0 || *p.GPUvsCPU > *s.GPUHigh.GPUvsCPU {
			s.GPUHigh = p
		}
		s.GPU++
	}
	return s
}

// creditSummaryText is the summary of f in sentences of the reader's
// language: the range of the ratios (or that no project has enough
// data), the projects left out, and how GPU work is paid against CPU work.
func creditSummaryText(ctx context.Context, f reconcile.Fairness) []string {
	l := locale.From(ctx)
	s := summarize(f.Projects)
	if s.Enough == 0 {
		return []string{l.T("credit.summary_none", "Days", f.WindowDays, "Hosts", reconcile.MinFairHosts,
			"Volunteers", reconcile.MinFairVolunteers)}
	}
	out := []string{s.ratioSentence(ctx, f.WindowDays)}
	if s.Few > 0 {
		out = append(out, l.T("credit.summary_few", "Count", s.Few))
	}
	return append(out, s.gpuSentence(ctx))
}

// ratioSentence states the range of the median ratios: one project's,
// the same for all, or from the lowest to the highest (as written, so
// that a range never reads "between 0.98 and 0.98").
func (s creditSummary) ratioSentence(ctx context.Context, days int) string {
	l := locale.From(ctx)
	low, high := fnum(ctx, s.Low.Median), fnum(ctx, s.High.Median)
	switch {
	case s.Enough == 1:
		return l.T("credit.summary_one", "Days", days, "Project", s.Low.Name, "Ratio", low)
	case low == high:
		return l.T("credit.summary_same", "Days", days, "Projects", s.Enough, "Ratio", low)
	}
	return l.T("credit.summary_range", "Days", days, "Projects", s.Enough, "Low", low, "LowProject", s.Low.Name,
		"High", high, "HighProject", s.High.Name)
}

// gpuSentence states how the projects pay GPU work against CPU work, or
// that too few computers of either kind are known to say.
func (s creditSummary) gpuSentence(ctx context.Context) string {
	l := locale.From(ctx)
	if s.GPU == 0 {
		return l.T("credit.summary_gpu_none")
	}
	low, high := fnum(ctx, *s.GPULow.GPUvsCPU), fnum(ctx, *s.GPUHigh.GPUvsCPU)
	switch {
	case s.GPU == 1:
		return l.T("credit.summary_gpu_one", "Project", s.GPULow.Name, "Ratio", low)
	case low == high:
		return l.T("credit.summary_gpu_same", "Projects", s.GPU, "Ratio", low)
	}
	return l.T("credit.summary_gpu_range", "Low", low, "LowProject", s.GPULow.Name, "High", high,
		"HighProject", s.GPUHigh.Name)
}
