//go:build !linux

package reaper

// Reapers need Linux: a child subreaper and /proc.
const supported = false

func run(string) {}
