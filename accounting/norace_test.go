//go:build !race

package accounting

// raceEnabled says the race detector is on: long pure simulations skip.
const raceEnabled = false
