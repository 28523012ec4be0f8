package server

import (
	"os/exec"
	"strconv"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// TestServeProcessLongLine is scenario 83: a 64 MB line without LF against
// a 1 MB limit is refused before its LF is sent, the next line is served,
// and the server's peak RSS (VmHWM) grows by less than 16 MB over a run
// without the long line. cmd/mcpbridge holds the demo binary to the same.
func TestServeProcessLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MB through a pipe")
	}
	const limit = 1000000
	ping := reqLine(2, "echo", `{"after":true}`) + "\n"
	want := `{"jsonrpc":"2.0","id":2,"result":{"after":true}}` + "\n"
	growth := testkit.LongLineGrowth(t, func() *exec.Cmd {
		return serverFixtureCmd(t, "serve", "STDIO_TEST_MAX_LINE="+strconv.Itoa(limit))
	}, limit, ping, want)
	if growth >= 16<<20 {
		t.Errorf("peak RSS grew by %d KiB, want under 16 MiB", growth>>10)
	}
}
