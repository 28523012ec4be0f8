package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// TestBridgeFrontsDemo runs `mcpbridge serve` in front of its own demo
// server, in both protocol eras, and uses every kind of RPC on it as a
// gRPC client would: lists and calls, a streamed call with progress, a
// subscription that sees the demo's timer, resources, a prompt, completion,
// the lossless Call and Connect paths (byte-identical to talking to the
// demo directly), a deadline that reaches the demo as a cancellation, and
// a tool that kills the demo, after which the bridge restarts it.
func TestBridgeFrontsDemo(t *testing.T) {
	t.Run("default command", func(t *testing.T) {
		b := startBridge(t, nil) // no command: `mcpbridge demo`, as go run ./cmd/mcpbridge does
		bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
		ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
		defer cancel()
		gs, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
		if err != nil || gs.GetServerInfo().GetFields()["name"].GetStringValue() != "mcpbridge-demo" {
			t.Fatalf("GetServer = %v, %v; want the demo server", gs, err)
		}
	})
	for _, era := range []struct{ name, protocol, want string }{
		{"2026-07-28", "auto", protocol.Version20260728},
		{"2025-11-25", protocol.Version20251125, protocol.Version20251125},
	} {
		t.Run(era.name, func(t *testing.T) {
			b := startBridge(t, nil, "--protocol", era.protocol, "--grace", "1s", "--", mcpbridgeBin, "demo", "-tick", "200ms")
			conn := b.conn(t)
			bc := mcpbridgev1.NewBridgeServiceClient(conn)
			ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
			defer cancel()

			gs, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
			if err != nil || gs.GetProtocolVersion() != era.want {
				t.Fatalf("GetServer = %v, %v; want protocol %s", gs, err, era.want)
			}
			tools, err := bc.ListTools(ctx, &mcpbridgev1.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools.GetTools() {
				names = append(names, tl.GetName())
			}
			for _, want := range []string{"echo", "progress", "large_result", "fail", "ask", "exit"} {
				if !slices.Contains(names, want) {
					t.Errorf("ListTools = %v, want %s among them", names, want)
				}
			}

			call := func(name string, args map[string]any) *mcpbridgev1.CallToolResponse {
				t.Helper()
				a, _ := structpb.NewStruct(args)
				res, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: name, Arguments: a})
				if err != nil {
					t.Fatalf("CallTool(%s) = %v", name, err)
				}
				return res
			}
			if got := call("echo", nil).GetContent()[0].GetText().GetText(); got != "hello" {
				t.Errorf("echo without arguments = %q, want the default hello", got)
			}
			if got := call("echo", map[string]any{"message": "héllo ☃"}).GetContent()[0].GetText().GetText(); got != "héllo ☃" {
				t.Errorf("echo = %q", got)
			}
			if res := call("fail", nil); !res.GetIsError() {
				t.Errorf("fail = %v, want an OK response with is_error", res)
			}

			// A streamed call: every progress message before the one result.
			a, _ := structpb.NewStruct(map[string]any{"seconds": 0.2, "steps": 4})
			st, err := bc.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Name: "progress", Arguments: a})
			if err != nil {
				t.Fatal(err)
			}
			var seen []float64
			for {
				msg, err := st.Recv()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("CallToolStream: %v", err)
				}
				if p := msg.GetProgress(); p != nil {
					seen = append(seen, p.GetProgress())
				}
				if r := msg.GetResult(); r != nil && len(seen) != 4 {
					t.Errorf("result after %v, want 4 progress messages first", seen)
				}
			}
			if !slices.Equal(seen, []float64{1, 2, 3, 4}) {
				t.Errorf("progress %v, want 1..4 in order", seen)
			}

			// A subscription sees the demo's counter change.
			sctx, stop := context.WithCancel(ctx)
			sub, err := bc.Subscribe(sctx, &mcpbridgev1.SubscribeRequest{ResourceSubscriptions: []string{"demo://counter"}})
			if err != nil {
				t.Fatal(err)
			}
			first, err := sub.Recv()
			if err != nil || first.GetAcknowledged() == nil {
				t.Fatalf("first Subscribe message = %v, %v; want the acknowledgement", first, err)
			}
			for {
				ev, err := sub.Recv()
				if err != nil {
					t.Fatalf("Subscribe: %v", err)
				}
				if ev.GetResourceUpdated().GetUri() == "demo://counter" {
					break
				}
			}
			stop()

			about, err := bc.ReadResource(ctx, &mcpbridgev1.ReadResourceRequest{Uri: "demo://about"})
			if err != nil || !strings.Contains(about.GetContents()[0].GetText(), "echo") {
				t.Errorf("ReadResource(demo://about) = %v, %v", about, err)
			}
			pixel, err := bc.ReadResource(ctx, &mcpbridgev1.ReadResourceRequest{Uri: "demo://pixel.png"})
			if err != nil || !bytes.HasPrefix(pixel.GetContents()[0].GetBlob(), []byte("\x89PNG")) {
				t.Errorf("ReadResource(demo://pixel.png) = %v, %v; want PNG bytes", pixel, err)
			}
			prompt, err := bc.GetPrompt(ctx, &mcpbridgev1.GetPromptRequest{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
			if err != nil || len(prompt.GetMessages()) == 0 || !strings.Contains(prompt.GetMessages()[0].GetContent().GetText().GetText(), "Ada") {
				t.Errorf("GetPrompt(greet) = %v, %v", prompt, err)
			}
			comp, err := bc.Complete(ctx, &mcpbridgev1.CompleteRequest{Ref: &mcpbridgev1.CompleteRequest_PromptName{PromptName: "greet"}, ArgumentName: "style"})
			if err != nil || len(comp.GetValues()) == 0 {
				t.Errorf("Complete(greet.style) = %v, %v", comp, err)
			}

			// Call and Connect give exactly the bytes the demo gives a
			// direct client.
			params := `{"name":"echo","arguments":{"message":"x 1.50 \u2603 héllo"}}`
			direct := directDemo(t, era.want, params)
			raw, err := bc.Call(ctx, &mcpbridgev1.CallRequest{Method: "tools/call", ParamsJson: params})
			if err != nil || raw.GetResultJson() != direct {
				t.Errorf("Call = %s, %v\nwant the direct result %s", raw.GetResultJson(), err, direct)
			}
			tunnel, err := bc.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sent := params // the tunnel passes a 2026 client's _meta as it is
			if era.want == "2026-07-28" {
				sent = testkit.WithModernMeta(params)
			}
			if err := tunnel.Send(&mcpbridgev1.ConnectRequest{MessageJson: `{"jsonrpc":"2.0","id":"t1","method":"tools/call","params":` + sent + `}`}); err != nil {
				t.Fatal(err)
			}
			tunnel.CloseSend()
			for {
				msg, err := tunnel.Recv()
				if err != nil {
					t.Fatalf("Connect: %v before the response", err)
				}
				m, derr := wire.Decode([]byte(msg.GetMessageJson()))
				if derr != nil || m.Kind != wire.KindResponse {
					continue // a notification the tunnel may carry
				}
				if string(m.ID) != `"t1"` || string(m.Result) != direct {
					t.Errorf("Connect response = %s\nwant id \"t1\" and the direct result %s", msg.GetMessageJson(), direct)
				}
				break
			}

			// A deadline that expires reaches the demo as a cancellation.
			dctx, dcancel := context.WithTimeout(ctx, 300*time.Millisecond)
			long, _ := structpb.NewStruct(map[string]any{"seconds": 60, "steps": 2})
			_, err = bc.CallTool(dctx, &mcpbridgev1.CallToolRequest{Name: "progress", Arguments: long})
			dcancel()
			if status.Code(err) != codes.DeadlineExceeded {
				t.Errorf("CallTool past its deadline = %v, want DEADLINE_EXCEEDED", err)
			}
			b.log.WaitFor(ctx, t, "mcpbridge: server stderr", "progress: stopped", "cancel")

			// A tool that kills the demo: UNAVAILABLE with RetryInfo, then
			// the restarted demo serves.
			health := healthpb.NewHealthClient(conn)
			watch, err := health.Watch(ctx, &healthpb.HealthCheckRequest{Service: "mcpbridge.v1.BridgeService"})
			if err != nil {
				t.Fatal(err)
			}
			if s, err := watch.Recv(); err != nil || s.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				t.Fatalf("health = %v, %v; want SERVING", s, err)
			}
			code, _ := structpb.NewStruct(map[string]any{"code": 3})
			_, err = bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "exit", Arguments: code})
			st2, _ := status.FromError(err)
			retry := false
			for _, d := range st2.Details() {
				_, ok := d.(*errdetails.RetryInfo)
				retry = retry || ok
			}
			if st2.Code() != codes.Unavailable || !retry {
				t.Errorf("exit = %v, want UNAVAILABLE with RetryInfo", err)
			}
			for _, want := range []healthpb.HealthCheckResponse_ServingStatus{healthpb.HealthCheckResponse_NOT_SERVING, healthpb.HealthCheckResponse_SERVING} {
				for {
					s, err := watch.Recv()
					if err != nil {
						t.Fatalf("health Watch: %v", err)
					}
					if s.GetStatus() == want {
						break
					}
				}
			}
			if got := call("echo", map[string]any{"message": "again"}).GetContent()[0].GetText().GetText(); got != "again" {
				t.Errorf("echo after the restart = %q", got)
			}
			gs, err = bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
			if err != nil || gs.GetChild().GetRestarts() != 1 || gs.GetChild().GetLastExit() != "exit status 3" {
				t.Errorf("GetServer after the crash = %v, %v; want restarts 1 and last_exit exit status 3", gs.GetChild(), err)
			}
		})
	}
}

// directDemo runs the demo as a child of a stdio.Client in the given
// protocol version and returns its result for one tools/call.
func directDemo(t *testing.T, version, params string) string {
	t.Helper()
	ctx := t.Context()
	c, err := stdio.Connect(ctx, func(ctx context.Context) (*stdio.Client, error) {
		return stdio.Start(ctx, exec.Command(mcpbridgeBin, "demo", "-tick", "0"), stdio.ClientConfig{Logger: slog.New(slog.DiscardHandler)})
	}, stdio.ConnectConfig{Versions: []string{version}})
	if err != nil {
		t.Fatalf("connecting to the demo directly: %v", err)
	}
	defer func() {
		c.Close()
		<-c.Done()
	}()
	res, err := c.Call(ctx, "tools/call", json.RawMessage(params), nil)
	if err != nil {
		t.Fatalf("direct tools/call: %v", err)
	}
	return string(res)
}
