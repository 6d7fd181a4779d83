package views

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/a-h/templ"

	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/internal/locale"
)

// CreditPage is the public credit fairness page: the measure over one
// window, aggregates only.
type CreditPage struct {
	reconcile.Fairness
	Windows []int // the windows offered, in days
}

// creditURL is the page (or a download: ext ".json", ".csv") over days.
func creditURL(ext string, days int) templ.SafeURL {
	return templ.SafeURL("/credit" + ext + "?window=" + strconv.Itoa(days))
}

// fnum is v with two decimals in the reader's language.
func fnum(ctx context.Context, v float64) string { return locale.From(ctx).Number(v, 2) }

// fpct is a share as a percentage with one decimal.
func fpct(ctx context.Context, v float64) string { return locale.From(ctx).Number(100*v, 1) + " %" }

// fint is n with the reader's digit grouping.
func fint(ctx context.Context, n int) string { return locale.From(ctx).Int(int64(n)) }

// finterval is an interval as "low – high".
func finterval(ctx context.Context, i reconcile.Interval) string {
	return fnum(ctx, i.Low) + " – " + fnum(ctx, i.High)
}

// fopt is *v with two decimals, or a dash for nil.
func fopt(ctx context.Context, v *float64) string {
	if v == nil {
		return "–"
	}
	return fnum(ctx, *v)
}

// enoughProjects are the projects with figures, in the page's order.
func enoughProjects(ps []reconcile.ProjectFairness) []reconcile.ProjectFairness {
	var out []reconcile.ProjectFairness
	for _, p := range ps {
		if p.Enough {
			out = append(out, p)
		}
	}
	return out
}

// forest is the geometry of the chart of the projects' medians with their
// intervals, on a logarithmic scale.
type forest struct {
	Width, Height int
	ViewBox       string
	Left          float64 // where the scale starts, right of the names
	X1            float64 // where the scale's 1 (granted = estimated) is
	Top, Bottom   float64
	Ticks         []forestTick
	Rows          []forestRow
}

type forestTick struct {
	X     float64
	Label string
}

type forestRow struct {
	Y, Low, High, Median float64
	Name                 string
}

// Forest chart geometry: its width, the room for the names (at most
// labelMax, cut to fit), a row's height.
const (
	forestWidth = 360
	labelMax    = 120.0
	labelSize   = 12.0
	forestRight = 20.0
	forestRowH  = 26.0
	forestTop   = 14.0
)

// layoutForest lays out the projects with figures; nil when none has any.
func layoutForest(ctx context.Context, ps []reconcile.ProjectFairness) *forest {
	ps = enoughProjects(ps)
	if len(ps) == 0 {
		return nil
	}
	lo, hi := 0.0, 0.0 // log2 of the scale's ends; 1 is always in it
	for _, p := range ps {
		lo = math.Min(lo, math.Floor(log2(p.CI95.Low)))
		hi = math.Max(hi, math.Ceil(log2(p.CI95.High)))
	}
	lo, hi = math.Min(lo, -1), math.Max(hi, 1)
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	f := &forest{Width: forestWidth, Top: forestTop, Left: labelRoom(names, labelSize, 40, labelMax) + 12}
	f.Bottom = forestTop + forestRowH*float64(len(ps))
	f.Height = int(f.Bottom) + 24
	f.ViewBox = fmt.Sprintf("0 0 %d %d", f.Width, f.Height)
	x := func(v float64) float64 {
		return f.Left + (log2(v)-lo)/(hi-lo)*(forestWidth-f.Left-forestRight)
	}
	f.X1 = x(1)
	for e := lo; e <= hi; e++ {
		f.Ticks = append(f.Ticks, forestTick{X: x(math.Exp2(e)), Label: locale.From(ctx).Shortest(math.Exp2(e), 4)})
	}
	for i, p := range ps {
		f.Rows = append(f.Rows, forestRow{Y: forestTop + forestRowH*(float64(i)+0.5), Low: x(p.CI95.Low),
			High: x(p.CI95.High), Median: x(p.Median), Name: fitLabel(p.Name, labelMax, labelSize)})
	}
	return f
}

// log2 is the base-2 logarithm, with values at or below 1/64 taken as
// 1/64 so that a ratio of 0 stays on the scale.
func log2(v float64) float64 { return math.Log2(math.Max(v, 1.0/64)) }

// heatClass is the colour class of a pair's cell: how far the median is
// from 1, on a logarithmic scale; "none" without enough data.
func heatClass(p reconcile.PairFairness) string {
	if !p.Enough {
		return "none"
	}
	l := log2(p.Median)
	for _, b := range []struct {
		max   float64
		class string
	}{{-1.5, "lo3"}, {-0.75, "lo2"}, {-0.25, "lo1"}, {0.25, "eq"}, {0.75, "hi1"}, {1.5, "hi2"}} {
		if l <= b.max {
			return b.class
		}
	}
	return "hi3"
}

// matrixRow is one row of the pair matrix: project A against every B.
type matrixRow struct {
	A     reconcile.ProjectFairness
	Cells []matrixCell
}

// matrixCell is A ÷ B, or the diagonal (Self).
type matrixCell struct {
	Pair reconcile.PairFairness
	Self bool
}

// pairMatrix arranges the pairs as rows of the projects, in their order.
func pairMatrix(f reconcile.Fairness) []matrixRow {
	rows := make([]matrixRow, len(f.Projects))
	for i, a := range f.Projects {
		rows[i].A = a
		for _, b := range f.Projects {
			c := matrixCell{Self: a.ProjectID == b.ProjectID}
			c.Pair, _ = f.Pair(a.ProjectID, b.ProjectID)
			rows[i].Cells = append(rows[i].Cells, c)
		}
	}
	return rows
}

// Heat map geometry: a cell's size and the room above the cells.
const (
	heatCell = 48.0
	heatTop  = 22.0
)

// heat is the heat map's size and the room left of its cells, for the row
// names (at most labelMax, cut to fit).
type heat struct {
	Width, Height int
	ViewBox       string
	Left          float64
}

// layoutHeat sizes the heat map of the projects ps.
func layoutHeat(ps []reconcile.ProjectFairness) heat {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	n := float64(len(ps))
	h := heat{Left: labelRoom(names, labelSize, 40, labelMax) + 12}
	h.Width, h.Height = int(h.Left+heatCell*n+4), int(heatTop+heatCell*n+4)
	h.ViewBox = fmt.Sprintf("0 0 %d %d", h.Width, h.Height)
	return h
}

// heatColumn is a column's name, cut to the width of its cell.
func heatColumn(name string) string { return fitLabel(name, heatCell-4, labelSize) }

// heatCellText is a cell's value: the median, "1" on the diagonal, a dash
// without enough data.
func heatCellText(ctx context.Context, c matrixCell) string {
	switch {
	case c.Self:
		return "1"
	case !c.Pair.Enough:
		return "–"
	}
	return locale.From(ctx).Number(c.Pair.Median, 2)
}

// fx formats a coordinate for SVG.
func fx(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// Colours of the credit charts, as SVG attributes: the page's ink, muted
// text and lines, its accent, and the heat map's cells by class.
const (
	inkColour    = "#1d2430"
	mutedColour  = "#5b6575"
	lineColour   = "#e3e0d8"
	accentColour = "#2f6f5e"
)

var heatFills = map[string]string{"self": "#e3e0d8", "none": "#e3e0d8", "eq": "#f1efe9",
	"lo3": "#8fb3d9", "lo2": "#b7cfe8", "lo1": "#dce7f3", "hi1": "#f6dfc4", "hi2": "#eec08e", "hi3": "#e39f5c"}

// cellFill is a matrix cell's colour.
func cellFill(c matrixCell) string { return heatFills[cellClass(c)] }

// cellClass is a matrix cell's colour class.
func cellClass(c matrixCell) string {
	if c.Self {
		return "self"
	}
	return heatClass(c.Pair)
}

// fwhen is a time in the reader's language.
func fwhen(ctx context.Context, t time.Time) string { return locale.From(ctx).DateTime(t) }
