//go:build !race

package sidebyside

const raceEnabled = false
