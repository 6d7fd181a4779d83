package views

import (
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// Phone charts: a phone shows a chart of its own, drawn at its width so
// that its words keep their size, its legend wraps and no day is hidden
// in a box that scrolls sideways.
const (
	phoneChartWidth = 360
	phoneChartDays  = 31 // beyond this many days, a phone chart has one bar per week
)

// phoneChart returns c as a phone draws it: phoneChartWidth wide, and,
// for more than phoneChartDays days, one bar per week, the last week
// ending on c's last day (today's bar is always drawn), and no tooltips
// (their values are in the page's table). A Partial line's
// week is known when its last day is.
func phoneChart(l *locale.Lang, c Chart) Chart {
	p := c
	p.Width, p.Height, p.NoTooltips = phoneChartWidth, 260, true
	n := len(c.Days)
	if n <= phoneChartDays {
		return p
	}
	weeks := (n + 6) / 7
	ends := make([]int, weeks) // the index in c.Days of each week's last day
	p.Days = make([]time.Time, weeks)
	for k := range ends {
		ends[k] = n - 1 - 7*(weeks-1-k)
		p.Days[k] = c.Days[ends[k]]
	}
	p.Weeks, p.YLabel = true, l.T("history.y_label_week")
	p.Series = make([]Series, len(c.Series))
	for i, s := range c.Series {
		p.Series[i] = s
		p.Series[i].Values = weekSums(s, ends)
	}
	return p
}

// weekSums sums s's values over the weeks ending at ends; a Partial
// series keeps only the weeks whose last day it knows.
func weekSums(s Series, ends []int) []float64 {
	out := make([]float64, 0, len(ends))
	for _, end := range ends {
		if s.Partial && end >= len(s.Values) {
			break
		}
		sum := 0.0
		for d := max(0, end-6); d <= end && d < len(s.Values); d++ {
			sum += s.Values[d]
		}
		out = append(out, sum)
	}
	return out
}
