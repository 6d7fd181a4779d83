//go:build race

package boinc

// raceEnabled reports whether the race detector is on, which makes
// compress/gzip about ten times slower.
const raceEnabled = true
