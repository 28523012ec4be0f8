//go:build race

package sidebyside

// raceEnabled reports that the race detector is on, so that Build builds
// the servers with it too.
const raceEnabled = true
