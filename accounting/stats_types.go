package accounting

import (
	"math"
	"slices"
	"time"
)

// Cobble's statistics export, in the layout of BOINC's db_dump
// (docs/STATISTICS.md): the files statistics sites read, listing only
// the volunteers who opted in, under a number and a cross-project id that
// say nothing of them. Credit is confirmed credit, from the rollups.

// StatsFileNames are the files of the export, as served under /stats/.
var StatsFileNames = []string{"tables.xml", "user.gz", "team.gz", "host.gz"}

// ValidStatsFile reports whether name is one of the export's files.
func ValidStatsFile(name string) bool { return slices.Contains(StatsFileNames, name) }

// StatsFile is one file of the export being served.
type StatsFile struct {
	Name    string
	Size    int64
	ETag    string    // quoted, a digest of the bytes
	BuiltAt time.Time // when its export was built
}

// StatsExport says what an export held.
type StatsExport struct {
	ID         int64
	BuiltAt    time.Time
	Through    time.Time // the last day whose credit it counts (zero: none yet)
	Users      int64     // listed volunteers
	Teams      int64     // teams not hidden
	Hosts      int64     // listed computers with credit
	TotalMicro int64     // the listed volunteers' confirmed credit, in millionths
	Bytes      int64     // the four files' sizes
}

// statsChunk is the largest piece of a stored file.
const statsChunk = 1 << 20

// statsDayGain is the weight one day's credit gains in the recent
// average, BOINC's rule with a one-week half-life applied once a day:
// avg ← avg·2^(−1/7) + credit·(1 − 2^(−1/7)).
var statsDayGain = -math.Expm1(-math.Ln2 / 7)

// StatsDay is one day's confirmed credit, in millionths.
type StatsDay struct {
	Day   time.Time // midnight UTC
	Micro int64
}

// ExpavgFromDays is the recent average credit per day at the end of the
// day through, from a daily history (any order, days after through left
// out): BOINC's update, avg ← avg·e^(−Δ·ln2/H) + (credit/Δ)·(1 − e^(−Δ·ln2/H))
// with H a week, applied once a day for the credit of that day. The
// export computes the same sum in SQL (statsWeight).
func ExpavgFromDays(days []StatsDay, through time.Time) float64 {
	sorted := slices.Clone(days)
	slices.SortFunc(sorted, func(a, b StatsDay) int { return a.Day.Compare(b.Day) })
	avg, at := 0.0, time.Time{}
	for _, d := range sorted {
		if d.Day.After(through) {
			break
		}
		if !at.IsZero() {
			avg *= math.Pow(2, -d.Day.Sub(at).Hours()/24/7)
		}
		avg += float64(d.Micro) / 1e6 * statsDayGain
		at = d.Day
	}
	if at.IsZero() {
		return 0
	}
	return avg * math.Pow(2, -through.Sub(at).Hours()/24/7)
}
