//go:build race

package testkit

// raceEnabled reports that the race detector is on, so that GoBuild builds
// programs with it too.
const raceEnabled = true
