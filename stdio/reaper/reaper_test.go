package reaper_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/reaper"
)

// This test binary does not call reaper.Main: it is the program that
// cannot act as a reaper. The reaper itself is tested through the stdio
// client, whose tests' binary calls Main (stdio/reaper_linux_test.go).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Scenario 97 (docs/stdio.md): without Main, a client refuses to run its command under a reaper rather
// than run this binary, which would be the program itself, and spawns
// nothing.
func TestReaperNeedsMain(t *testing.T) {
	if reaper.Available() {
		t.Fatal("Available() without Main")
	}
	cmd := exec.Command("true")
	c, err := stdio.Start(context.Background(), cmd, stdio.ClientConfig{Reaper: true})
	var e *jsonrpc.Error
	if c != nil || !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "reaper.Main") {
		t.Fatalf("Start with Reaper and without Main = %v, %v; want -32602 naming reaper.Main", c, err)
	}
	if cmd.Process != nil {
		t.Errorf("Start spawned %d", cmd.Process.Pid)
	}
}
