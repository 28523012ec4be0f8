package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
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
//   - echo {"text"}: answers the text; fail: an isError result.
//   - garbage: writes two lines that are not JSON-RPC to stdout, then
//     answers; bigline {"bytes"}: writes a line of that many bytes.
//   - crash: exits with status 3 at once.
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
		os.Exit(testkit.Linger())
	case "grpcecho": // floor_bench_test.go
		os.Exit(runGRPCEchoFixture())
	case "httpecho": // paired_bench_test.go
		os.Exit(runHTTPEchoFixture())
	case "pipeproxy": // floor_bench_test.go
		os.Exit(runPipeProxyFixture())
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
	srv.AddTool(mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ Text string }
		_ = json.Unmarshal(req.Arguments, &args)
		return mcp.TextResult(args.Text), nil
	})
	srv.AddTool(mcp.Tool{Name: "fail"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		return mcp.ErrorResult("it failed"), nil
	})
	// Lines written whole, in one write each, between the runtime's own.
	srv.AddTool(mcp.Tool{Name: "garbage"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		_, _ = out.Write([]byte("not json at all\n"))
		_, _ = out.Write([]byte("{\"json\":\"but not JSON-RPC\"}\n"))
		return mcp.TextResult("printed"), nil
	})
	srv.AddTool(mcp.Tool{Name: "bigline"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ Bytes int }
		_ = json.Unmarshal(req.Arguments, &args)
		_, _ = out.Write(append(bytes.Repeat([]byte("x"), args.Bytes), '\n'))
		return mcp.TextResult("printed"), nil
	})
	srv.AddTool(mcp.Tool{Name: "crash"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		os.Exit(3)
		return nil, nil
	})
	if err := server.Serve(context.Background(), srv, os.Stdin, out, server.Config{RequestTimeout: -1}); err != nil {
		fmt.Fprintln(os.Stderr, "fixture: serve:", err)
	}
	if os.Getenv("FIXTURE_IGNORE_EOF") == "1" {
		time.Sleep(time.Hour)
	}
	return 0
}
