//go:build race

package bench

// raceEnabled tells the tests the race detector slows everything tenfold.
const raceEnabled = true
