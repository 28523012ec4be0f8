package stdio

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// A child that dies while a descendant holds its stdout ends the
// connection with its exit status even when a write notices first: the
// write that breaks on the dead child's stdin waits for the status, as
// EOF does, instead of ending with "connection failed".
func TestBrokenStdinReportsTheExit(t *testing.T) {
	c := rawClient(t, nil, "FIXTURE_GRANDCHILD=1", "FIXTURE_GRANDCHILD_STDOUT=1")
	if _, err := callTool(context.Background(), c, "echo", map[string]string{"message": "up"}, nil); err != nil {
		t.Fatal(err)
	}
	pid := c.Pid()
	exited := testkit.Pidfd(t, pid)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Dead: its stdin has no reader now, its stdout still has one.
	if !testkit.Exited(t, exited, 10*time.Second) {
		t.Fatal("the SIGKILLed child did not exit")
	}
	_, err := callTool(context.Background(), c, "echo", map[string]string{"message": "into a broken pipe"}, nil)
	wantCode(t, "a call into the dead child", err, jsonrpc.CodeConnectionClosed)
	var x *ExitError
	if !errors.As(c.Err(), &x) || x.Signal != "killed" {
		t.Fatalf("Err() = %v, want the exit status, signal killed", c.Err())
	}
}
