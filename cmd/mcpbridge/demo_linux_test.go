//go:build linux

package main

import (
	"os/exec"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// TestDemoLongLine is the long-line scenario (docs/stdio.md, scenario 83)
// against the demo binary: a 64 MB line without LF is refused with -32600
// before its LF is sent, the next request is answered, the demo exits 0 at
// EOF, and its peak RSS (VmHWM) grows by less than 16 MB over a run without
// the long line.
func TestDemoLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MB through a pipe")
	}
	const limit = 2000000 // stdio's default MaxLineBytes, which the demo keeps
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	want := `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
	growth := testkit.LongLineGrowth(t, func() *exec.Cmd {
		cmd := exec.Command(mcpbridgeBin, "demo", "-tick", "0")
		cmd.WaitDelay = waitLimit
		return cmd
	}, limit, ping, want)
	// The reader holds up to the 2 MB limit before it refuses a line
	// (about 5 MB of RSS growth, measured); under -race the binary's
	// shadow memory about triples that, and a line kept whole would still
	// be four times the bound.
	bound := int64(16 << 20)
	if raceEnabled {
		bound = 32 << 20
	}
	if growth >= bound {
		t.Errorf("peak RSS grew by %d KiB, want under %d MiB", growth>>10, bound>>20)
	}
}
