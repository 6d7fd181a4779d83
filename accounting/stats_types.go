package accounting

import (
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

// statsAverage is the recent average as of now (RecentAverage) of a
// history whose days with credit, treated by RecentAverage's rule up to
// the end of the last of them, give weighted millionths a day there: it
// decays that to now. Zero, with the zero time, without a day of credit.
func statsAverage(weighted float64, last *time.Time, now time.Time) (float64, float64) {
	if last == nil {
		return 0, 0
	}
	end := last.UTC().AddDate(0, 0, 1)
	return grantAverage(weighted/1e6, end, 0, now), float64(now.Unix())
}
