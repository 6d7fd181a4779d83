package views

import (
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cobble-am/cobble/internal/locale"
)

// SeriesKind says how a Series is drawn.
type SeriesKind int

const (
	// Bars draws a bar per day. The bars of all Bars series stack, the
	// first series at the bottom.
	Bars SeriesKind = iota
	// Line draws a line through the day values, over the bars.
	Line
)

// Series is one line or one stack of bars.
type Series struct {
	Name string
	// Values holds one value per day, in the order of Chart.Days. Missing
	// values count as 0; NaN, infinite and negative values are drawn as 0,
	// values above MaxChartValue as MaxChartValue.
	Values []float64
	Kind   SeriesKind
	// Partial, for a Line, says that only the days Values holds are known:
	// the line ends at its last value instead of falling to 0, and the
	// days after it read "not known yet". With no values there is no line.
	Partial bool
	// Class is the CSS class that colours the series ("est", "granted",
	// "cpu", "gpu", "p0".."p7"; see style.css). Characters other than
	// ASCII letters, digits, '-' and '_' are dropped.
	Class string
}

// Chart is a daily chart: one x position per day.
type Chart struct {
	// Title names the chart for assistive technology and tooltips; pages
	// show their own heading.
	Title string
	// Days are the days shown, oldest first, one x position each.
	Days   []time.Time
	Series []Series
	// YLabel names the unit of the y axis, e.g. "credit per day".
	YLabel string
	// NoTooltips leaves out the days' tooltips, for a chart seen on a
	// touch screen, which has no pointer to hover with.
	NoTooltips bool
	// Weeks says each x position is a week, ending on its day in Days,
	// instead of a day.
	Weeks bool
	// Width and Height are the SVG's size in pixels; zero means 720×260.
	// The stylesheet scales the chart to the width of its container.
	Width, Height int
}

// MaxChartValue is the largest value a chart draws; larger ones are clipped.
const MaxChartValue = 1e15

// Chart geometry, in SVG user units (pixels at the natural size).
const (
	legendRow     = 20.0 // height of one row of legend entries
	axisFont      = 11.0 // font size of axis labels
	legendFont    = 12.0 // font size of legend entries
	charWidth     = 0.6  // an average character's width, in ems
	xLabelSlot    = 46.0 // the width an x-axis label needs, with room around it
	tickSpacing   = 45.0 // the height one y-axis tick wants
	maxBarWidth   = 36.0
	minPlotHeight = 80.0
	maxDots       = 62 // beyond this many days, lines have no point markers, days no tooltips
)

// frame is where the plot sits inside the SVG.
type frame struct {
	w, h                     float64
	left, top, right, bottom float64
}

func (f frame) plotWidth() float64  { return f.right - f.left }
func (f frame) plotHeight() float64 { return f.bottom - f.top }

// layoutChart computes everything DailyChart draws, its words and
// numbers in l.
func layoutChart(l *locale.Lang, c Chart) chartView {
	n := len(c.Days)
	values := cleanValues(c.Series, n)
	bases, top := stackBars(c.Series, values, n)
	f, legend := layoutFrame(l, c)
	grid, y := layoutYAxis(l, top, &f)
	v := chartView{
		Width: num(f.w), Height: num(f.h), ViewBox: "0 0 " + num(f.w) + " " + num(f.h),
		Label:  chartLabel(l, c),
		Desc:   describe(l, c, values),
		Legend: legend,
		Axis:   segment{num(f.left), num(f.bottom), num(f.right), num(f.bottom)},
	}
	if c.YLabel != "" {
		v.YLabel = &label{X: "4", Y: num(f.top - 11), Text: c.YLabel, Anchor: "start"}
	}
	if n == 0 {
		v.Empty = &label{X: num((f.left + f.right) / 2), Y: num((f.top + f.bottom) / 2),
			Text: l.T("chart.no_days"), Anchor: "middle"}
		return v
	}
	step := f.plotWidth() / float64(n)
	v.Grid = grid
	v.XLabels = layoutXLabels(l, c.Days, f, step)
	v.Bars = layoutBars(c.Series, values, bases, f, step, y)
	v.Lines = layoutLines(c.Series, values, f, step, y)
	if n <= maxDots && !c.NoTooltips {
		// A day of a longer chart is too narrow to point at; its values
		// are in the page's table, and the chart stays light.
		v.Hits = layoutHits(l, c, values, f, step)
	}
	return v
}

// layoutFrame sizes the chart and places the legend and the y-axis label
// above the plot. The plot's left edge is left for layoutYAxis to set.
func layoutFrame(l *locale.Lang, c Chart) (frame, []legendEntry) {
	w, h := clampSize(c.Width, 720, 240, 4000), clampSize(c.Height, 260, 140, 2000)
	legend, legendHeight := layoutLegend(l, c.Series, w)
	f := frame{w: w, right: w - 12, top: legendHeight + 8}
	if c.YLabel != "" {
		f.top += 20
	}
	// A legend of many rows makes the chart taller, not the plot shorter.
	f.h = math.Max(h, f.top+minPlotHeight+24)
	f.bottom = f.h - 24
	return f, legend
}

// layoutYAxis chooses ticks that reach top, sets the plot's left edge to
// leave room for their labels, and returns the grid lines and the scale.
func layoutYAxis(l *locale.Lang, top float64, f *frame) ([]tick, func(float64) float64) {
	ticks, step := yTicks(top, int(math.Max(2, math.Min(6, f.plotHeight()/tickSpacing))))
	labels := make([]string, len(ticks))
	widest := 1
	for i, v := range ticks {
		labels[i] = tickLabel(l, v, step)
		widest = max(widest, utf8.RuneCountInString(labels[i]))
	}
	f.left = math.Max(28, float64(widest)*axisFont*charWidth+12)
	bottom, height, top := f.bottom, f.plotHeight(), ticks[len(ticks)-1]
	y := func(v float64) float64 { return bottom - v/top*height }
	grid := make([]tick, len(ticks))
	for i, t := range ticks {
		grid[i] = tick{
			Line:  segment{num(f.left), num(y(t)), num(f.right), num(y(t))},
			Label: label{X: num(f.left - 6), Y: num(y(t) + axisFont*0.35), Text: labels[i], Anchor: "end"},
		}
	}
	return grid, y
}

func clampSize(v, def, lo, hi int) float64 {
	if v == 0 {
		v = def
	}
	return float64(min(max(v, lo), hi))
}

// cleanValues returns each series' values for exactly n days, with the
// values a chart cannot draw replaced (see Series.Values).
func cleanValues(series []Series, n int) [][]float64 {
	out := make([][]float64, len(series))
	for i, s := range series {
		out[i] = make([]float64, n)
		for d := range min(n, len(s.Values)) {
			switch v := s.Values[d]; {
			case math.IsNaN(v) || math.IsInf(v, 0) || v < 0:
			case v > MaxChartValue:
				out[i][d] = MaxChartValue
			default:
				out[i][d] = v
			}
		}
	}
	return out
}

// stackBars returns, per series and day, the base each bar stands on, and
// the largest value the chart must show (bar stacks and lines).
func stackBars(series []Series, values [][]float64, n int) (bases [][]float64, top float64) {
	bases = make([][]float64, len(series))
	sum := make([]float64, n)
	for i, s := range series {
		bases[i] = make([]float64, n)
		for d, v := range values[i] {
			if s.Kind == Line {
				top = math.Max(top, v)
				continue
			}
			bases[i][d] = sum[d]
			sum[d] += v
			top = math.Max(top, sum[d])
		}
	}
	return bases, top
}

// layoutBars draws one rectangle per Bars series and day with a value
// above 0.
func layoutBars(series []Series, values, bases [][]float64, f frame, step float64, y func(float64) float64) []barSeries {
	width, round := step, round2
	if step >= 3 {
		width = math.Min(step*0.75, maxBarWidth)
	} else {
		// Bars under 3 units wide touch: a tenth of a unit is as fine as
		// a screen shows, and a year of bars stays light.
		round = func(f float64) float64 { return math.Round(f*10) / 10 }
	}
	var out []barSeries
	for i, s := range series {
		if s.Kind != Bars {
			continue
		}
		bs := barSeries{Class: cssClass(s.Class)}
		for d, base := range bases[i] {
			v := values[i][d]
			if v == 0 {
				continue
			}
			// Round the edges, not the sizes, so that stacked and
			// adjacent bars meet without a hairline between them.
			x0 := round(f.left + float64(d)*step + (step-width)/2)
			x1 := round(f.left + float64(d)*step + (step+width)/2)
			y0, y1 := round(y(base+v)), round(y(base))
			bs.Rects = append(bs.Rects, rect{num(x0), num(y0), num(x1 - x0), num(y1 - y0)})
		}
		out = append(out, bs)
	}
	return out
}

func layoutLines(series []Series, values [][]float64, f frame, step float64, y func(float64) float64) []lineSeries {
	var out []lineSeries
	for i, s := range series {
		if s.Kind != Line {
			continue
		}
		ls := lineSeries{Class: cssClass(s.Class)}
		known := values[i][:s.known(len(values[i]))]
		if len(known) == 0 {
			continue
		}
		// A Partial line starts at its first day above 0: the days before
		// it are before any history, not days of 0 (issue 45, item 22).
		first := 0
		if s.Partial && slices.ContainsFunc(known, func(v float64) bool { return v > 0 }) {
			first = slices.IndexFunc(known, func(v float64) bool { return v > 0 })
		}
		pts := make([]string, 0, len(known)-first)
		for d := first; d < len(known); d++ {
			p := point{num(f.left + (float64(d)+0.5)*step), num(y(known[d]))}
			pts = append(pts, p.X+","+p.Y)
			if len(values[i]) <= maxDots {
				ls.Dots = append(ls.Dots, p)
			}
		}
		ls.Points = strings.Join(pts, " ")
		out = append(out, ls)
	}
	return out
}

// known returns how many of n days have a value: all of them, but for a
// Partial line.
func (s Series) known(n int) int {
	if s.Partial {
		return min(n, len(s.Values))
	}
	return n
}

// layoutHits gives each day an invisible column whose tooltip lists the
// day's values.
func layoutHits(l *locale.Lang, c Chart, values [][]float64, f frame, step float64) []hit {
	out := make([]hit, len(c.Days))
	notKnown, pointLabel := l.T("history.not_known"), pointLabels(l, c.Days)
	if c.Weeks {
		week := l.Pattern("chart.point_week", "Date")
		pointLabel = func(d time.Time) string { return week(l.Date(d)) }
	}
	for d, day := range c.Days {
		parts := make([]string, len(c.Series))
		for i, s := range c.Series {
			parts[i] = seriesName(l, s, i) + ": " + amount(l, values[i][d])
			if d >= s.known(len(c.Days)) {
				parts[i] = seriesName(l, s, i) + ": " + notKnown
			}
		}
		out[d] = hit{
			Rect:  rect{num(f.left + float64(d)*step), num(f.top), num(step), num(f.plotHeight())},
			Title: pointLabel(day) + " — " + strings.Join(parts, "; "),
		}
	}
	return out
}

func chartLabel(l *locale.Lang, c Chart) string {
	if c.Title != "" {
		return c.Title
	}
	return l.T("chart.default_title")
}

// describe summarises the chart in words, in l, for its <desc>: the
// days, and per series its total (bars), its latest value (lines) and its
// highest.
func describe(l *locale.Lang, c Chart, values [][]float64) string {
	n := len(c.Days)
	if n == 0 {
		return l.T("chart.no_days")
	}
	var b strings.Builder
	first, last := l.Date(c.Days[0]), l.Date(c.Days[n-1])
	highest := func(v, day string) string { return l.T("chart.desc_highest", "Value", v, "Day", day) }
	if c.Weeks {
		highest = func(v, day string) string { return l.T("chart.desc_highest_week", "Value", v, "Day", day) }
		b.WriteString(l.T("chart.desc_weeks", "Count", n, "To", last))
	} else if c.YLabel != "" {
		b.WriteString(l.T("chart.desc_days_unit", "Count", n, "From", first, "To", last, "Unit", c.YLabel))
	} else {
		b.WriteString(l.T("chart.desc_days", "Count", n, "From", first, "To", last))
	}
	b.WriteString(".")
	for i, s := range c.Series {
		peak, total := 0, 0.0
		for d, v := range values[i] {
			total += v
			if v > values[i][peak] {
				peak = d
			}
		}
		name := seriesName(l, s, i)
		known := s.known(n)
		b.WriteString(" ")
		switch {
		case s.Kind == Line && known == 0:
			b.WriteString(l.T("chart.desc_line_unknown", "Name", name) + ".")
			continue
		case s.Kind == Line && known < n:
			b.WriteString(l.T("chart.desc_line_known_to", "Name", name,
				"Day", l.Date(c.Days[known-1]), "Value", amount(l, values[i][known-1])))
		case s.Kind == Line:
			b.WriteString(l.T("chart.desc_line", "Name", name, "Value", amount(l, values[i][n-1])))
		default:
			b.WriteString(l.T("chart.desc_bars", "Name", name, "Value", amount(l, total)))
		}
		if values[i][peak] > 0 {
			b.WriteString(", " + highest(amount(l, values[i][peak]), l.Date(c.Days[peak])))
		}
		b.WriteString(".")
	}
	return b.String()
}
