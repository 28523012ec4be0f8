package door

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
	"github.com/mcpbridge/mcpbridge/stdio/stdiotest"
)

// The "child" fixture is a stdio MCP server on the project's runtime with
// the tools meta (answers its request's params._meta as text), fail (a
// JSON-RPC error -32602) and broken (a tool error, isError).
func init() { fixtures["child"] = runChildFixture }

func runChildFixture() int {
	srv, err := mcp.NewServer(mcp.Implementation{Name: "door-child", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv.AddTool(mcp.Tool{Name: "meta"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		meta, _ := rawjson.Member(req.Params(), "_meta")
		return mcp.TextResult(string(meta)), nil
	})
	srv.AddTool(mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "the fixture refuses")
	})
	srv.AddTool(mcp.Tool{Name: "broken"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		return nil, errors.New("the tool broke")
	})
	if err := server.Run(context.Background(), srv, server.Config{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// startChild runs the child fixture and negotiates with it; at cleanup
// its stdin closes and it must exit 0.
func startChild(t *testing.T) *stdio.Client {
	t.Helper()
	var stderr testkit.SyncBuffer
	return stdiotest.Connect(t, func(ctx context.Context) (*stdio.Client, error) {
		cmd := testkit.FixtureCommand(t, "child")
		cmd.Stderr = &stderr
		return stdio.Start(ctx, cmd, stdio.ClientConfig{})
	}, stdio.ConnectConfig{}, 0, &stderr)
}
