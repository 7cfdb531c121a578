//go:build race

package blob

// raceEnabled tells the allocation tests that the race detector adds
// allocations of its own.
const raceEnabled = true
