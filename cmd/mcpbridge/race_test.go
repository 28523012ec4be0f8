//go:build race

package main

// raceEnabled reports that the tests run with the race detector, so that
// TestMain builds the binary under test with it too.
const raceEnabled = true
