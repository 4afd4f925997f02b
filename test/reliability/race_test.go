//go:build race

package reliability

// raceEnabled records in the results whether the run had the race detector.
const raceEnabled = true
