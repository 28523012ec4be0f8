package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/cmd/mcpbridge/internal/demo"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// The demo driven by a client written by others: the Go SDK's
// (docs/testing.md, "Go SDK everything-server"), over its own
// CommandTransport, in both eras.

// connectSDK runs `mcpbridge demo args...` under the Go SDK client at
// version.
func connectSDK(t *testing.T, version string, opts *sdk.ClientOptions, args ...string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	stderr := &testkit.SyncBuffer{}
	cmd := exec.Command(mcpbridgeBin, append([]string{"demo"}, args...)...)
	cmd.Stderr = stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-client", Version: "1.0.0"}, opts)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("Go SDK Connect at %s: %v\nstderr:\n%s", version, err, stderr)
	}
	t.Cleanup(func() {
		// Close closes stdin and waits for the demo to exit.
		if err := cs.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
			t.Errorf("demo exit = %v, want 0", cmd.ProcessState)
		}
		if t.Failed() {
			t.Logf("demo stderr:\n%s", stderr)
		}
	})
	return cs
}

// sdkText returns the text of a result's first block.
func sdkText(res *sdk.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*sdk.TextContent); ok {
		return tc.Text
	}
	return fmt.Sprintf("(%T)", res.Content[0])
}

func TestDemoGoSDKClient(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			progress := make(chan *sdk.ProgressNotificationParams, 16)
			updated := make(chan string, 16)
			cs := connectSDK(t, version, &sdk.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "Ada via " + req.Params.Message}}, nil
				},
				// The SDK runs notification handlers on goroutines of its
				// own, so progress may be seen after CallTool returns even
				// though the demo wrote every report before the result.
				ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
					progress <- req.Params
				},
				ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
					select {
					case updated <- req.Params.URI:
					default:
					}
				},
			}, "-tick", "20ms")
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %s, want %s", got, version)
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()

			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			if diff := cmp.Diff([]string{"ask", "build", "echo", "exit", "fail", "large_result", "progress", "whoami"}, names); diff != "" {
				t.Errorf("ListTools (-want +got):\n%s", diff)
			}

			for _, tt := range []struct {
				args map[string]any
				want string
			}{{nil, "hello"}, {map[string]any{"message": "from the SDK"}, "from the SDK"}} {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: tt.args})
				if err != nil || sdkText(res) != tt.want || fmt.Sprint(res.StructuredContent) != "map[message:"+tt.want+"]" {
					t.Errorf("echo %v = %+v, %v; want %q", tt.args, res, err, tt.want)
				}
			}

			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "progress", Arguments: map[string]any{"seconds": 0.1, "steps": 3},
				Meta: sdk.Meta{"progressToken": "tok"}})
			if err != nil || !strings.HasPrefix(sdkText(res), "done: 3 steps") {
				t.Errorf("progress = %+v, %v", res, err)
			}
			for want := 1.0; want <= 3; want++ {
				select {
				case p := <-progress:
					if p.ProgressToken != "tok" || p.Progress != want || p.Total != 3 {
						t.Errorf("progress %+v, want %v of 3 for tok", p, want)
					}
				case <-ctx.Done():
					t.Fatalf("progress report %v of 3 never came", want)
				}
			}

			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "fail", Arguments: map[string]any{"message": "boom"}})
			if err != nil || !res.IsError || sdkText(res) != "boom" {
				t.Errorf("fail = %+v, %v; want an isError result", res, err)
			}
			// The SDK answers input_required (2026) or the elicitation
			// request (2025) with its handler: the same tool works in both.
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "Who?"}})
			if err != nil || sdkText(res) != "The user answered: Ada via Who?" {
				t.Errorf("ask = %+v, %v", res, err)
			}
			if _, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "nope"}); err == nil {
				t.Error("an unknown tool succeeded")
			}

			read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "demo://greeting/Linus"})
			if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "Hello, Linus!" {
				t.Errorf("ReadResource = %+v, %v", read, err)
			}
			// 2026: a listen stream with resourceSubscriptions; 2025:
			// resources/subscribe. Either way the timer's updates arrive.
			if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: demo.CounterURI}); err != nil {
				t.Fatalf("Subscribe: %v", err)
			}
			select {
			case uri := <-updated:
				if uri != demo.CounterURI {
					t.Errorf("updated %s, want %s", uri, demo.CounterURI)
				}
			case <-ctx.Done():
				t.Fatal("no resources/updated after Subscribe")
			}
			if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: demo.CounterURI}); err != nil {
				t.Errorf("Unsubscribe: %v", err)
			}

			prompt, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Grace"}})
			if err != nil || len(prompt.Messages) != 1 {
				t.Fatalf("GetPrompt = %+v, %v", prompt, err)
			}
			if tc, _ := prompt.Messages[0].Content.(*sdk.TextContent); tc == nil || tc.Text != "Please greet Grace in a casual style, in one sentence." {
				t.Errorf("GetPrompt message %+v", prompt.Messages[0].Content)
			}
			comp, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "greet"},
				Argument: sdk.CompleteParamsArgument{Name: "name", Value: "ma"}})
			if err != nil || fmt.Sprint(comp.Completion.Values) != "[Margaret]" {
				t.Errorf("Complete = %+v, %v", comp, err)
			}
		})
	}
}
