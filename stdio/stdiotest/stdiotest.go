// Package stdiotest holds the test helpers that drive an MCP server
// through the project's stdio.Client: connect to a child and check how it
// exits, make a call that must succeed or fail; and a scripted in-process
// peer behind a real Client (scripted.go). Helpers that do not need a
// Client (and so may be used by package stdio's own tests) are in package
// testkit.
package stdiotest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Wait bounds every wait of these helpers, so that a failure fails instead
// of hanging until go test's own timeout. It is not a delay.
const Wait = 30 * time.Second

// Connect negotiates with the child that start starts, as cfg says. At
// cleanup it closes the child's stdin and fails tb unless the child exits
// (an MCP server must, at EOF) within Wait with status wantExit; stderr,
// when not nil, is logged if the test failed.
func Connect(tb testing.TB, start func(context.Context) (*stdio.Client, error), cfg stdio.ConnectConfig, wantExit int, stderr fmt.Stringer) *stdio.Client {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	c, err := stdio.Connect(ctx, start, cfg)
	if err != nil {
		if stderr != nil {
			tb.Fatalf("Connect(%v): %v\nstderr:\n%s", cfg.Versions, err, stderr)
		}
		tb.Fatalf("Connect(%v): %v", cfg.Versions, err)
	}
	tb.Cleanup(func() {
		c.Close()
		t := time.NewTimer(Wait)
		defer t.Stop()
		select {
		case <-c.Done():
		case <-t.C:
			tb.Errorf("the server did not exit at stdin EOF")
			c.Signal(9)
			<-c.Done()
		}
		if st := c.ExitState(); st == nil || st.ExitCode() != wantExit {
			tb.Errorf("server exit = %v, want code %d", st, wantExit)
		}
		if tb.Failed() && stderr != nil {
			tb.Logf("server stderr:\n%s", stderr)
		}
	})
	return c
}

// ConnectProgram starts the program bin as a stdio MCP server and
// negotiates version with it, as Connect does: its stderr is kept for the
// log of a failed test, and it must exit 0 at stdin EOF.
func ConnectProgram(tb testing.TB, bin, version string) *stdio.Client {
	tb.Helper()
	var stderr testkit.SyncBuffer
	start := func(ctx context.Context) (*stdio.Client, error) {
		cmd := exec.Command(bin)
		cmd.Stderr = &stderr
		return stdio.Start(ctx, cmd, stdio.ClientConfig{})
	}
	return Connect(tb, start, stdio.ConnectConfig{Versions: []string{version}}, 0, &stderr)
}

// Call makes one call that must succeed, within Wait, and returns its
// result.
func Call(tb testing.TB, c *stdio.Client, method, params string, opts *stdio.CallOptions) json.RawMessage {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	res, err := c.Call(ctx, method, json.RawMessage(params), opts)
	if err != nil {
		tb.Fatalf("Call(%s, %s) = %v", method, params, err)
	}
	return res
}

// CallErr makes one call that must fail with a JSON-RPC error of code.
func CallErr(tb testing.TB, c *stdio.Client, method, params string, code int64) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	res, err := c.Call(ctx, method, json.RawMessage(params), nil)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != code {
		tb.Errorf("Call(%s, %s) = %s, %v; want error %d", method, params, res, err, code)
	}
}
