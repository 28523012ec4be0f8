package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
	"github.com/mcpbridge/mcpbridge/stdio/stdiotest"
)

// Interop: a server built on this runtime, run as a real child process
// (the test binary re-executed), driven by the project's own stdio.Client
// and by the Go SDK's client, in both eras.

func init() { fixtures["server"] = runServerFixture }

// runServerFixture serves the test server on the process's stdio, as a
// real server binary would.
func runServerFixture() int {
	out, err := server.TakeStdout()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv := newTestServer(nil, mcp.Config{})
	if err := server.Serve(context.Background(), srv, os.Stdin, out, server.Config{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// connectOwn connects the project's stdio.Client to a fixture child.
func connectOwn(t *testing.T, versions []string, caps string, cfg stdio.ClientConfig) *stdio.Client {
	t.Helper()
	start := func(ctx context.Context) (*stdio.Client, error) {
		cmd := testkit.FixtureCommand(t, "server")
		cmd.Stderr = os.Stderr
		return stdio.Start(ctx, cmd, cfg)
	}
	return stdiotest.Connect(t, start, stdio.ConnectConfig{Versions: versions, Capabilities: json.RawMessage(caps)}, 0, nil)
}

func TestInteropOwnClientModern(t *testing.T) {
	c := connectOwn(t, nil, `{"elicitation":{}}`, stdio.ClientConfig{})
	if c.Protocol() != "2026-07-28" || string(c.ServerInfo()) != serverInf {
		t.Fatalf("Protocol() = %q, ServerInfo() = %s", c.Protocol(), c.ServerInfo())
	}
	if !strings.Contains(string(stdiotest.Call(t, c, "tools/list", `{}`, nil)), `"name":"echo"`) {
		t.Error("tools/list lacks echo")
	}
	if got := field(stdiotest.Call(t, c, "tools/call", `{"name":"echo","arguments":{"text":"héllo 日本"}}`, nil), "content"); got != `[{"type":"text","text":"héllo 日本"}]` {
		t.Errorf("echo = %s", got)
	}
	var progress []float64
	stdiotest.Call(t, c, "tools/call", `{"name":"progress"}`, &stdio.CallOptions{Progress: func(p stdio.Progress) { progress = append(progress, p.Progress) }})
	if fmt.Sprint(progress) != "[0 50 100]" {
		t.Errorf("progress = %v, want [0 50 100] before the result", progress)
	}

	// The MRTR round trip, by hand: input_required, then the retry.
	res := stdiotest.Call(t, c, "tools/call", `{"name":"elicit"}`, nil)
	if field(res, "resultType") != `"input_required"` {
		t.Fatalf("elicit = %s, want input_required", res)
	}
	res = stdiotest.Call(t, c, "tools/call", `{"name":"elicit","inputResponses":{"user_name":`+accept+`},"requestState":`+field(res, "requestState")+`}`, nil)
	if got := field(res, "content"); got != `[{"type":"text","text":"Hello, Ada! (accept)"}]` {
		t.Errorf("elicit retry = %s", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	sub, err := c.Listen(ctx, json.RawMessage(`{"toolsListChanged":true,"promptsListChanged":true}`), nil)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	defer sub.Close()
	if got := string(sub.Accepted()); got != `{"toolsListChanged":true,"promptsListChanged":true}` {
		t.Errorf("Accepted() = %s", got)
	}
	stdiotest.Call(t, c, "tools/call", `{"name":"add_tool"}`, nil)
	ev, err := sub.Next(ctx)
	if err != nil || ev.Method != "notifications/tools/list_changed" {
		t.Errorf("Next = %+v, %v; want tools/list_changed", ev, err)
	}
}

func TestInteropOwnClientLegacy(t *testing.T) {
	notes := make(chan stdio.Notification, 10)
	c := connectOwn(t, []string{"2025-11-25"}, `{"elicitation":{}}`, stdio.ClientConfig{
		OnServerRequest: func(_ context.Context, req stdio.ServerRequest) (json.RawMessage, error) {
			if req.Method != "elicitation/create" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no"}
			}
			return json.RawMessage(accept), nil
		},
		OnNotification: func(n stdio.Notification) { notes <- n },
	})
	if c.Protocol() != "2025-11-25" {
		t.Fatalf("Protocol() = %q", c.Protocol())
	}
	res := stdiotest.Call(t, c, "tools/list", `{}`, nil)
	if field(res, "resultType") != "" || !strings.Contains(string(res), `"name":"echo"`) {
		t.Errorf("tools/list = %s", res)
	}
	var progress []float64
	stdiotest.Call(t, c, "tools/call", `{"name":"progress"}`, &stdio.CallOptions{Progress: func(p stdio.Progress) { progress = append(progress, p.Progress) }})
	if fmt.Sprint(progress) != "[0 50 100]" {
		t.Errorf("progress = %v", progress)
	}
	// Elicitation is a real server-to-client request, answered by the
	// client's handler, within the one tools/call.
	if got := field(stdiotest.Call(t, c, "tools/call", `{"name":"elicit"}`, nil), "content"); got != `[{"type":"text","text":"Hello, Ada! (accept)"}]` {
		t.Errorf("elicit = %s", got)
	}
	stdiotest.Call(t, c, "tools/call", `{"name":"add_tool"}`, nil)
	select {
	case n := <-notes:
		if n.Method != "notifications/tools/list_changed" {
			t.Errorf("notification %s, want tools/list_changed", n.Method)
		}
	case <-time.After(waitLimit):
		t.Error("no tools/list_changed after add_tool")
	}
}

// connectSDK connects the Go SDK's client to a fixture child at version.
func connectSDK(t *testing.T, version string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	cmd := testkit.FixtureCommand(t, "server")
	cmd.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-client", Version: "1.0.0"}, opts)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("Go SDK Connect at %s: %v", version, err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return cs
}

func TestInteropGoSDKClient(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			changed := make(chan struct{}, 10)
			progress := make(chan float64, 10)
			cs := connectSDK(t, version, &sdk.ClientOptions{
				ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				},
				ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
				// The SDK runs notification handlers on goroutines of its
				// own, so they may run after CallTool returns even though
				// the server wrote every progress frame first.
				ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
					progress <- req.Params.Progress
				},
			})
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %s, want %s", got, version)
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()

			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) == 0 || tools.Tools[0].Name != "add_tool" {
				t.Fatalf("ListTools = %v, %v", tools, err)
			}
			text := func(res *sdk.CallToolResult) string {
				if len(res.Content) == 0 {
					return ""
				}
				tc, _ := res.Content[0].(*sdk.TextContent)
				if tc == nil {
					return fmt.Sprintf("%T", res.Content[0])
				}
				return tc.Text
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil || text(res) != "hi" {
				t.Errorf("echo = %v, %v", res, err)
			}
			// The SDK answers input_required (2026) or the elicitation
			// request (2025) with its handler: the same tool works in both.
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "elicit"})
			if err != nil || text(res) != "Hello, Ada! (accept)" {
				t.Errorf("elicit = %+v, %v", res, err)
			}
			if _, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "progress", Meta: sdk.Meta{"progressToken": "tok"}}); err != nil {
				t.Errorf("progress: %v", err)
			}
			got := map[float64]bool{}
			for range 3 {
				select {
				case v := <-progress:
					got[v] = true
				case <-ctx.Done():
					t.Fatalf("progress values %v, want 0, 50 and 100", got)
				}
			}
			if !got[0] || !got[50] || !got[100] {
				t.Errorf("progress values %v, want 0, 50 and 100", got)
			}
			if _, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "nope"}); err == nil {
				t.Error("an unknown tool succeeded")
			}
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "fail"})
			if err != nil || !res.IsError {
				t.Errorf("fail = %+v, %v; want an isError result", res, err)
			}

			read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://template/42/data"})
			if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != `{"id":"42"}` {
				t.Errorf("ReadResource = %+v, %v", read, err)
			}
			prompt, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "with_args", Arguments: map[string]string{"arg1": "x"}})
			if err != nil || len(prompt.Messages) != 1 {
				t.Errorf("GetPrompt = %+v, %v", prompt, err)
			}
			comp, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "with_args"},
				Argument: sdk.CompleteParamsArgument{Name: "arg1", Value: "pa"}})
			if err != nil || fmt.Sprint(comp.Completion.Values) != "[paris park party]" {
				t.Errorf("Complete = %+v, %v", comp, err)
			}

			if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "add_tool"}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-changed:
			case <-ctx.Done():
				t.Error("the SDK client saw no tools/list_changed")
			}
		})
	}
}
