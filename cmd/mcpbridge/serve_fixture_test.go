package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// The "slow" fixture is a stdio MCP server (package stdio/mcp) for the
// shutdown and deadline tests. Its tools:
//
//   - slow {"ms"}: writes "fixture: slow started" to stderr, which the
//     bridge logs, then answers "done" after ms milliseconds (or fails
//     when cancelled first).
//   - hang: writes "fixture: hang started", then waits to be cancelled.
//
// FIXTURE_IGNORE_EOF=1 keeps it running after stdin reaches EOF, until
// a signal ends it.
//
// The test binary is the fixture: the bridge under test runs it with
// testkit.FixtureEnv=slow, and this init serves the fixture and exits
// before the test machinery starts. (The switch lives here rather than in
// TestMain, which is shared with the demo's tests.)
func init() {
	switch os.Getenv(testkit.FixtureEnv) {
	case "slow":
		os.Exit(runSlowFixture())
	case "linger":
		os.Exit(runLinger())
	}
}

// The "linger" fixture is a launcher's grandchild that outlives stdin EOF
// and group signals: with LINGER_SETSID=true it leaves the process group
// (setsid), it ignores SIGTERM, SIGHUP and SIGINT, writes "linger <pid>"
// on stderr, which the bridge logs, and runs until SIGKILL.
func runLinger() int {
	if os.Getenv("LINGER_SETSID") == "true" {
		if _, err := syscall.Setsid(); err != nil {
			fmt.Fprintln(os.Stderr, "linger: setsid:", err)
			return 1
		}
	}
	signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	fmt.Fprintln(os.Stderr, "linger", os.Getpid())
	io.Copy(io.Discard, os.Stdin) // EOF changes nothing
	for {
		time.Sleep(time.Hour)
	}
}

func runSlowFixture() int {
	out, err := server.TakeStdout()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		return 2
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "slow-fixture", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		return 2
	}
	srv.AddTool(mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ MS int }
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return nil, err
		}
		fmt.Fprintln(os.Stderr, "fixture: slow started")
		t := time.NewTimer(time.Duration(args.MS) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
			return mcp.TextResult("done"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	srv.AddTool(mcp.Tool{Name: "hang"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		fmt.Fprintln(os.Stderr, "fixture: hang started")
		<-ctx.Done() // a notifications/cancelled, never EOF
		fmt.Fprintln(os.Stderr, "fixture: hang cancelled")
		return nil, ctx.Err()
	})
	if err := server.Serve(context.Background(), srv, os.Stdin, out, server.Config{RequestTimeout: -1}); err != nil {
		fmt.Fprintln(os.Stderr, "fixture: serve:", err)
	}
	if os.Getenv("FIXTURE_IGNORE_EOF") == "1" {
		time.Sleep(time.Hour)
	}
	return 0
}
