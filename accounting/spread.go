package accounting

import (
	"math"
	"time"
)

// maxSpreadDays bounds how many days one delta is spread over; the part of
// a longer interval before that is counted from its start anyway.
const maxSpreadDays = 400

// DayUsage is what one (host, project) earned on one day.
type DayUsage struct {
	Day      time.Time // midnight UTC of the calendar day in the volunteer's time zone
	Credited Usage
	Clamped  Usage
}

// spread divides credited and clamped amounts over the calendar days (in loc)
// that the interval from–to covers, in proportion to the time in each day.
// The parts add up exactly to the whole; the last day takes the rounding.
// An empty or backward interval puts everything on to's day.
func spread(credited, clamped Usage, from, to time.Time, loc *time.Location) []DayUsage {
	if earliest := to.AddDate(0, 0, -maxSpreadDays); from.Before(earliest) {
		from = earliest
	}
	days, weights := daySegments(from.In(loc), to.In(loc))
	out := make([]DayUsage, len(days))
	for i, d := range days {
		out[i].Day = d
	}
	splitInto(out, weights, credited, func(d *DayUsage) *Usage { return &d.Credited })
	splitInto(out, weights, clamped, func(d *DayUsage) *Usage { return &d.Clamped })
	return out
}

// SpreadGranted divides credit a project granted (in Cobblestones) over
// the calendar days, in loc, that from–to covers, as spread divides
// estimates: each day's Credited.CPUEC holds its part, in millionths, and
// the parts add up to the whole. It returns nil unless credit is a
// positive amount the ledger can hold.
func SpreadGranted(credit float64, from, to time.Time, loc *time.Location) []DayUsage {
	granted, ok := toMicro(credit)
	if !ok || granted <= 0 {
		return nil
	}
	return spread(Usage{CPUEC: granted}, Usage{}, from, to, loc)
}

// daySegments returns the calendar days from–to touches and the fraction of
// the interval that falls in each.
func daySegments(from, to time.Time) (days []time.Time, weights []float64) {
	total := to.Sub(from)
	if total <= 0 {
		return []time.Time{CivilDay(to)}, []float64{1}
	}
	for start := from; start.Before(to); {
		y, m, d := start.Date()
		next := time.Date(y, m, d+1, 0, 0, 0, 0, start.Location())
		end := minTime(next, to)
		days = append(days, CivilDay(start))
		weights = append(weights, float64(end.Sub(start))/float64(total))
		start = end
	}
	return days, weights
}

// splitInto distributes u over out by weights: every part is rounded down
// and the last day gets what is left, so nothing is lost or made up.
func splitInto(out []DayUsage, weights []float64, u Usage, part func(*DayUsage) *Usage) {
	src := u.fields()
	for f, total := range src {
		left := *total
		for i := range out {
			share := left
			if i < len(out)-1 {
				share = min(int64(math.Floor(float64(*total)*weights[i])), left)
			}
			*part(&out[i]).fields()[f] = share
			left -= share
		}
	}
}

// civilDay returns the calendar day of t (in t's location) as midnight UTC.
func CivilDay(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
