package views

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cobble-am/cobble/internal/locale"
)

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

// tickLabel formats an axis value compactly in l: "0", "0.5", "250",
// "1.5k", "20M" ("1,5 Tsd.", "20 Mio." in German), with as many decimals
// as step needs.
func tickLabel(l *locale.Lang, v, step float64) string {
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
	n := l.Shortest(v/div, decimals)
	switch suffix {
	case "k":
		return l.T("chart.axis_thousand", "Number", n)
	case "M":
		return l.T("chart.axis_million", "Number", n)
	}
	return n + suffix
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

// amount formats a value for people in l: at most two decimals, thousands
// grouped ("12,345.5", or "12.345,5").
func amount(l *locale.Lang, v float64) string {
	return l.Shortest(v, 2)
}

func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * charWidth
}

// seriesName is a series' name, or a stand-in for an unnamed one.
func seriesName(l *locale.Lang, s Series, i int) string {
	if s.Name != "" {
		return s.Name
	}
	return l.T("chart.series_n", "Number", i+1)
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
func layoutLegend(l *locale.Lang, series []Series, w float64) ([]legendEntry, float64) {
	if len(series) == 0 {
		return nil, 0
	}
	var out []legendEntry
	x, row := 4.0, 0
	fits := int((w - 8 - 18) / (legendFont * charWidth)) // characters in one row
	for i, s := range series {
		name := seriesName(l, s, i)
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
func xLabelDays(l *locale.Lang, days []time.Time, limit int) ([]int, []string) {
	n, limit := len(days), max(limit, 1)
	var idx []int
	var texts []string
	if n > 1 && days[1].Sub(days[0]) < 24*time.Hour {
		return xLabelHours(days, limit)
	}
	for _, k := range []int{1, 2, 7, 14} {
		if (n+k-1)/k <= limit {
			for i := (n - 1) % k; i < n; i += k {
				idx, texts = append(idx, i), append(texts, l.DayMonth(days[i]))
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
				idx, texts = append(idx, i), append(texts, monthLabel(l, d))
			}
		}
		if len(idx) <= limit {
			break
		}
	}
	return idx, texts
}

// xLabelHours labels an hourly chart every 1, 2, 3, 6, 12 or 24 hours,
// counting back from the last hour, with the hour of day (UTC).
func xLabelHours(hours []time.Time, limit int) ([]int, []string) {
	var idx []int
	var texts []string
	n := len(hours)
	for _, k := range []int{1, 2, 3, 6, 12, 24, n} {
		if (n+k-1)/k <= limit || k == n {
			for i := (n - 1) % k; i < n; i += k {
				idx, texts = append(idx, i), append(texts, hours[i].UTC().Format("15:04"))
			}
			return idx, texts
		}
	}
	return idx, texts
}

// pointLabels returns a function that names one x position of xs in l:
// its day ("Sat 1 Mar 2025"), or its hour on an hourly chart ("Sat 1 Mar
// 14:00 UTC"). The messages are read once, for the tooltips of many days.
func pointLabels(l *locale.Lang, xs []time.Time) func(time.Time) string {
	if len(xs) > 1 && xs[1].Sub(xs[0]) < 24*time.Hour {
		hour := l.Pattern("chart.point_hour", "Weekday", "Day", "Time")
		return func(x time.Time) string {
			x = x.UTC()
			return hour(l.Weekday(x.Weekday()), l.DayMonth(x), x.Format("15:04"))
		}
	}
	point := l.Pattern("chart.point_day", "Weekday", "Date")
	return func(x time.Time) string { return point(l.Weekday(x.Weekday()), l.Date(x)) }
}

// monthLabel names a month on the x axis: its abbreviated name, or the
// year for January.
func monthLabel(l *locale.Lang, d time.Time) string {
	if d.Month() == time.January {
		return d.Format("2006")
	}
	return l.Month(d.Month())
}

func layoutXLabels(l *locale.Lang, days []time.Time, f frame, step float64) []tick {
	idx, texts := xLabelDays(l, days, int(f.plotWidth()/xLabelSlot))
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
