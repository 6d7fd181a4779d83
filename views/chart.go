package views

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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
	maxDots       = 62 // beyond this many days, lines have no point markers
)

// frame is where the plot sits inside the SVG.
type frame struct {
	w, h                     float64
	left, top, right, bottom float64
}

func (f frame) plotWidth() float64  { return f.right - f.left }
func (f frame) plotHeight() float64 { return f.bottom - f.top }

// layoutChart computes everything DailyChart draws.
func layoutChart(c Chart) chartView {
	n := len(c.Days)
	values := cleanValues(c.Series, n)
	bases, top := stackBars(c.Series, values, n)
	f, legend := layoutFrame(c)
	grid, y := layoutYAxis(top, &f)
	v := chartView{
		Width: num(f.w), Height: num(f.h), ViewBox: "0 0 " + num(f.w) + " " + num(f.h),
		Label:  chartLabel(c),
		Desc:   describe(c, values),
		Legend: legend,
		Axis:   segment{num(f.left), num(f.bottom), num(f.right), num(f.bottom)},
	}
	if c.YLabel != "" {
		v.YLabel = &label{X: "4", Y: num(f.top - 11), Text: c.YLabel, Anchor: "start"}
	}
	if n == 0 {
		v.Empty = &label{X: num((f.left + f.right) / 2), Y: num((f.top + f.bottom) / 2),
			Text: "No days to show.", Anchor: "middle"}
		return v
	}
	step := f.plotWidth() / float64(n)
	v.Grid = grid
	v.XLabels = layoutXLabels(c.Days, f, step)
	v.Bars = layoutBars(c.Series, values, bases, f, step, y)
	v.Lines = layoutLines(c.Series, values, f, step, y)
	v.Hits = layoutHits(c, values, f, step)
	return v
}

// layoutFrame sizes the chart and places the legend and the y-axis label
// above the plot. The plot's left edge is left for layoutYAxis to set.
func layoutFrame(c Chart) (frame, []legendEntry) {
	w, h := clampSize(c.Width, 720, 240, 4000), clampSize(c.Height, 260, 140, 2000)
	legend, legendHeight := layoutLegend(c.Series, w)
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
func layoutYAxis(top float64, f *frame) ([]tick, func(float64) float64) {
	ticks, step := yTicks(top, int(math.Max(2, math.Min(6, f.plotHeight()/tickSpacing))))
	labels := make([]string, len(ticks))
	widest := 1
	for i, v := range ticks {
		labels[i] = tickLabel(v, step)
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

// yTicks returns about want evenly spaced values from 0 to at least top, in
// steps of 1, 2 or 5 times a power of ten. A top of 0 gives the ticks of 1.
func yTicks(top float64, want int) (ticks []float64, step float64) {
	if !(top > 0) || math.IsInf(top, 0) {
		top = 1
	}
	raw := top / float64(max(want, 1))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	switch norm := raw / mag; {
	case norm <= 1:
		step = mag
	case norm <= 2:
		step = 2 * mag
	case norm <= 5:
		step = 5 * mag
	default:
		step = 10 * mag
	}
	n := int(math.Ceil(top/step - 1e-9))
	for i := range n + 1 {
		ticks = append(ticks, float64(i)*step)
	}
	return ticks, step
}

// tickLabel formats an axis value compactly: "0", "0.5", "250", "1.5k",
// "20M", with as many decimals as step needs.
func tickLabel(v, step float64) string {
	div, suffix := 1.0, ""
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.div {
			div, suffix = u.div, u.suffix
			break
		}
	}
	decimals := 0
	if s := step / div; s < 1 {
		decimals = min(12, int(math.Ceil(-math.Log10(s)-1e-9)))
	}
	return trimZeros(strconv.FormatFloat(v/div, 'f', decimals, 64)) + suffix
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// num formats a coordinate with at most two decimals.
func num(f float64) string {
	s := strconv.FormatFloat(round2(f), 'f', -1, 64)
	if s == "-0" {
		return "0"
	}
	return s
}

// amount formats a value for people: at most two decimals, thousands
// separated by commas ("12,345.5").
func amount(v float64) string {
	whole, frac, _ := strings.Cut(strconv.FormatFloat(round2(v), 'f', -1, 64), ".")
	if frac != "" {
		return grouped(whole) + "." + frac
	}
	return grouped(whole)
}

func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * charWidth
}

// seriesName is a series' name, or a stand-in for an unnamed one.
func seriesName(s Series, i int) string {
	if s.Name != "" {
		return s.Name
	}
	return fmt.Sprintf("Series %d", i+1)
}

// cssClass keeps the characters of a CSS class name that need no escaping.
func cssClass(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return -1
	}, s)
}

// layoutLegend places one entry per series in rows across the top,
// shortening names too long for a row, and returns the rows' height.
func layoutLegend(series []Series, w float64) ([]legendEntry, float64) {
	if len(series) == 0 {
		return nil, 0
	}
	var out []legendEntry
	x, row := 4.0, 0
	fits := int((w - 8 - 18) / (legendFont * charWidth)) // characters in one row
	for i, s := range series {
		name := seriesName(s, i)
		if r := []rune(name); len(r) > fits {
			name = string(r[:fits-1]) + "…"
		}
		width := 18 + textWidth(name, legendFont)
		if x > 4 && x+width > w-4 {
			x, row = 4, row+1
		}
		mid := float64(row)*legendRow + legendRow/2 + 2
		e := legendEntry{Class: cssClass(s.Class),
			Text: label{X: num(x + 17), Y: num(mid + legendFont*0.35), Text: name, Anchor: "start"}}
		if s.Kind == Line {
			e.Stroke = &segment{num(x), num(mid), num(x + 12), num(mid)}
		} else {
			e.Box = &rect{num(x), num(mid - 5), "12", "10"}
		}
		out = append(out, e)
		x += width + 16
	}
	return out, float64(row+1) * legendRow
}

// xLabelDays returns the indices of the days that get an x-axis label, at
// most limit of them, and the labels' texts. Short ranges label every day,
// or every 2nd, 7th or 14th day counting back from the last; long ones
// label the first day of every month, or of every 2nd, 3rd or 6th month, or
// of January in every year, or in every 2nd, 5th, 10th, 20th... year.
func xLabelDays(days []time.Time, limit int) ([]int, []string) {
	n, limit := len(days), max(limit, 1)
	var idx []int
	var texts []string
	for _, k := range []int{1, 2, 7, 14} {
		if (n+k-1)/k <= limit {
			for i := (n - 1) % k; i < n; i += k {
				idx, texts = append(idx, i), append(texts, days[i].Format("2 Jan"))
			}
			return idx, texts
		}
	}
	keep := func(d time.Time, months, years int) bool {
		return (int(d.Month())-1)%months == 0 && d.Year()%years == 0
	}
	strides := [][2]int{{1, 1}, {2, 1}, {3, 1}, {6, 1}}
	for y := 1; y < 1e9; y *= 10 {
		strides = append(strides, [2]int{12, y}, [2]int{12, 2 * y}, [2]int{12, 5 * y})
	}
	for _, s := range strides {
		idx, texts = idx[:0], texts[:0]
		for i, d := range days {
			first := i == 0 && d.Day() == 1 || i > 0 && d.Month() != days[i-1].Month()
			if first && keep(d, s[0], s[1]) {
				idx, texts = append(idx, i), append(texts, monthLabel(d))
			}
		}
		if len(idx) <= limit {
			break
		}
	}
	return idx, texts
}

func monthLabel(d time.Time) string {
	if d.Month() == time.January {
		return d.Format("2006")
	}
	return d.Format("Jan")
}

func layoutXLabels(days []time.Time, f frame, step float64) []tick {
	idx, texts := xLabelDays(days, int(f.plotWidth()/xLabelSlot))
	out := make([]tick, len(idx))
	for j, i := range idx {
		x := f.left + (float64(i)+0.5)*step
		half := textWidth(texts[j], axisFont) / 2
		lx := math.Min(math.Max(x, half+2), f.w-half-2)
		out[j] = tick{
			Line:  segment{num(x), num(f.bottom), num(x), num(f.bottom + 4)},
			Label: label{X: num(lx), Y: num(f.bottom + 16), Text: texts[j], Anchor: "middle"},
		}
	}
	return out
}

// layoutBars draws one rectangle per Bars series and day with a value
// above 0.
func layoutBars(series []Series, values, bases [][]float64, f frame, step float64, y func(float64) float64) []barSeries {
	width := step
	if step >= 3 {
		width = math.Min(step*0.75, maxBarWidth)
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
			x0 := round2(f.left + float64(d)*step + (step-width)/2)
			x1 := round2(f.left + float64(d)*step + (step+width)/2)
			y0, y1 := round2(y(base+v)), round2(y(base))
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
		pts := make([]string, len(values[i]))
		for d, v := range values[i] {
			p := point{num(f.left + (float64(d)+0.5)*step), num(y(v))}
			pts[d] = p.X + "," + p.Y
			if len(values[i]) <= maxDots {
				ls.Dots = append(ls.Dots, p)
			}
		}
		ls.Points = strings.Join(pts, " ")
		out = append(out, ls)
	}
	return out
}

// layoutHits gives each day an invisible column whose tooltip lists the
// day's values.
func layoutHits(c Chart, values [][]float64, f frame, step float64) []hit {
	out := make([]hit, len(c.Days))
	for d, day := range c.Days {
		parts := make([]string, len(c.Series))
		for i, s := range c.Series {
			parts[i] = seriesName(s, i) + ": " + amount(values[i][d])
		}
		out[d] = hit{
			Rect:  rect{num(f.left + float64(d)*step), num(f.top), num(step), num(f.plotHeight())},
			Title: day.Format("Mon 2 Jan 2006") + " — " + strings.Join(parts, "; "),
		}
	}
	return out
}

func chartLabel(c Chart) string {
	if c.Title != "" {
		return c.Title
	}
	return "Daily chart"
}

// describe summarises the chart in words, for its <desc>: the days, and
// per series its total (bars), its latest value (lines) and its highest.
func describe(c Chart, values [][]float64) string {
	n := len(c.Days)
	if n == 0 {
		return "No days to show."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d days, %s to %s", n, c.Days[0].Format(time.DateOnly), c.Days[n-1].Format(time.DateOnly))
	if c.YLabel != "" {
		fmt.Fprintf(&b, ", in %s", c.YLabel)
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
		if s.Kind == Line {
			fmt.Fprintf(&b, " %s (line): latest %s", seriesName(s, i), amount(values[i][n-1]))
		} else {
			fmt.Fprintf(&b, " %s (bars): total %s", seriesName(s, i), amount(total))
		}
		if values[i][peak] > 0 {
			fmt.Fprintf(&b, ", highest %s on %s", amount(values[i][peak]), c.Days[peak].Format(time.DateOnly))
		}
		b.WriteString(".")
	}
	return b.String()
}
