//go:build race

package wire

// raceEnabled reports that the tests run with the race detector, under
// which sync.Pool drops a quarter of what it is given, at random.
const raceEnabled = true
