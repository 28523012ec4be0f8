package grpcdoor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/reaper"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// fixtures are the programs a test can run as a child.
var fixtures = testkit.Fixtures{"mcp": runMCPFixture}

func TestMain(m *testing.M) {
	reaper.Main() // the test binary is the reaper of the children its tests start
	fixtures.Main(m)
}

// eraEnv pins the "mcp" fixture's era: "legacy" serves 2025-11-25 only,
// "modern" 2026-07-28 only.
const eraEnv = "GRPCDOOR_FIXTURE_ERA"

// fixturePageSize is the fixture's list page: its tools take several.
const fixturePageSize = 3

// The "mcp" fixture is a stdio MCP server on the project's runtime, in the
// era eraEnv pins. Its tools:
//
//   - echo {text}: the text
//   - fail: an isError result "it failed"
//   - steps {n}: n progress reports n/n, each followed by an info log
//     {"i":i}, then "stepped"
//   - slow: waits until the call ends
//   - big {n}: a text of n bytes
//   - ask: elicits {name} and returns "hello NAME", or the action when
//     the user did not accept
//   - touch {uri}: announces the resource at uri updated
//   - grow: registers the tool "grown" (tools list_changed)
//   - exit: exits at once, answering nothing
//   - odd: a result whose _meta is an array, which no typed response holds
//
// its resource mem://a ("alpha"), template mem://items/{id} ("item ID"),
// prompt greet {name} ("Hello, NAME") and the completion of greet's name
// from Ada, Alan and Grace.
func runMCPFixture() int {
	out, err := server.TakeStdout()
	if err != nil {
		return 2
	}
	cfg := mcp.Config{PageSize: fixturePageSize, TaskPollInterval: 20 * time.Millisecond}
	switch os.Getenv(eraEnv) {
	case "legacy":
		cfg.Versions = []string{protocol.Version20251125}
	case "modern":
		cfg.Versions = []string{protocol.Version20260728}
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "grpcdoor-fixture", Version: "1.0.0"}, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	type textArgs struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in textArgs) (string, error) {
		return in.Text, nil
	})
	srv.AddTool(mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		return mcp.ErrorResult("it failed"), nil
	})
	srv.AddTool(mcp.Tool{Name: "steps"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ N int }
		_ = json.Unmarshal(req.Arguments, &args)
		for i := 1; i <= args.N; i++ {
			if err := req.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: float64(args.N)}); err != nil {
				return nil, err
			}
			if err := req.Log(ctx, mcp.LevelInfo, "fixture", map[string]int{"i": i}); err != nil {
				return nil, err
			}
		}
		return mcp.TextResult("stepped"), nil
	})
	srv.AddTool(mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	srv.AddTool(mcp.Tool{Name: "big"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ N int }
		_ = json.Unmarshal(req.Arguments, &args)
		return mcp.TextResult(strings.Repeat("x", args.N)), nil
	})
	srv.AddTool(mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		type form struct {
			Name string `json:"name"`
		}
		got, action, err := mcp.Elicit[form](ctx, &req.Request, "who", "Who are you?")
		if err != nil {
			return nil, err
		}
		if action != mcp.ElicitAccept {
			return mcp.TextResult(string(action)), nil
		}
		return mcp.TextResult("hello " + got.Name), nil
	})
	srv.AddTaskTool(mcp.Tool{Name: "job"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		req.SetTaskStatus("asking")
		res, err := req.Elicit(ctx, "go", mcp.ElicitParams{Message: "Go on?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)})
		if err != nil {
			return nil, err
		}
		return mcp.TextResult("job " + res.Action), nil
	})
	srv.AddTaskTool(mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	srv.AddTool(mcp.Tool{Name: "touch"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ URI string }
		_ = json.Unmarshal(req.Arguments, &args)
		srv.ResourceUpdated(args.URI)
		return mcp.TextResult("touched"), nil
	})
	srv.AddTool(mcp.Tool{Name: "grow"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		srv.AddTool(mcp.Tool{Name: "grown"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			return mcp.TextResult("grown"), nil
		})
		return mcp.TextResult("grew"), nil
	})
	srv.AddTool(mcp.Tool{Name: "exit"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		os.Exit(0)
		return nil, nil
	})
	srv.AddTool(mcp.Tool{Name: "odd"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		return &mcp.ToolResult{Content: []mcp.Content{mcp.Text("odd")}, Meta: json.RawMessage(`[5]`)}, nil
	})
	srv.AddResource(mcp.Resource{URI: "mem://a", Name: "a", MIMEType: "text/plain"}, mcp.TextResource("alpha"))
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "mem://items/{id}", Name: "item", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: "item " + req.Vars["id"]}}}, nil
		})
	srv.AddPrompt(mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: "a greeting", Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: mcp.Text("Hello, " + req.Arguments["name"])},
			}}, nil
		})
	srv.AddCompletion(mcp.PromptReference("greet"), func(_ context.Context, req *mcp.CompleteRequest) (*mcp.Completion, error) {
		var values []string
		for _, v := range []string{"Ada", "Alan", "Grace"} {
			if strings.HasPrefix(v, req.Value) {
				values = append(values, v)
			}
		}
		return &mcp.Completion{Values: values, Total: len(values)}, nil
	})
	if err := server.Serve(context.Background(), srv, os.Stdin, out, server.Config{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
