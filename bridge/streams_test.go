package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// streamEvent is what the stream tests compare: one line per message,
// "P progress/total message", "L level logger data" or "R <texts>".
type streamEvent interface {
	GetProgress() *mcpbridgev1.Progress
	GetLog() *mcpbridgev1.LogMessage
}

func describe(m streamEvent) string {
	if p := m.GetProgress(); p != nil {
		total := "?"
		if p.Total != nil {
			total = strconv.FormatFloat(p.GetTotal(), 'g', -1, 64)
		}
		return strings.TrimSpace(fmt.Sprintf("P %g/%s %s", p.GetProgress(), total, p.GetMessage()))
	}
	if l := m.GetLog(); l != nil {
		data, _ := json.Marshal(l.GetData().AsInterface())
		return fmt.Sprintf("L %s %s %s", strings.ToLower(strings.TrimPrefix(l.GetLevel().String(), "LOGGING_LEVEL_")), l.GetLogger(), data)
	}
	switch m := m.(type) {
	case *mcpbridgev1.CallToolStreamResponse:
		if r := m.GetResult(); r != nil {
			return "R " + strings.Join(texts(r.GetContent()), "|")
		}
	case *mcpbridgev1.CallStreamResponse:
		if r := m.GetResult(); r != nil {
			return "R " + r.GetResultJson()
		}
	}
	return fmt.Sprintf("? %v", m)
}

func describeAll[T streamEvent](msgs []T) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, describe(m))
	}
	return out
}

// toolStream runs one CallToolStream to its end.
func toolStream(tb testing.TB, h *typedHarness, ctx context.Context, req *mcpbridgev1.CallToolStreamRequest) []string {
	tb.Helper()
	s, err := h.bc.CallToolStream(ctx, req)
	if err != nil {
		tb.Fatalf("CallToolStream(%s): %v", req.GetName(), err)
	}
	msgs, err := recvAll(s)
	if err != nil {
		tb.Fatalf("CallToolStream(%s): %v after %v", req.GetName(), err, describeAll(msgs))
	}
	return describeAll(msgs)
}

// Progress arrives as progress messages, in order, before the one result,
// from real children of both eras.
func TestCallToolStreamProgress(t *testing.T) {
	t.Parallel()
	h := startTypedBridge(t, goSDKServer(t, "modern"), goSDKServer(t, "legacy", protocol.Version20251125))
	ctx := context.Background()
	for _, server := range []string{"modern", "legacy"} {
		t.Run(server, func(t *testing.T) {
			got := toolStream(t, h, ctx, &mcpbridgev1.CallToolStreamRequest{Server: server, Name: "test_tool_with_progress"})
			// The tool answers with the progress token it was given: the
			// child-side id and 64 random bits, minted by the bridge's
			// stdio Client, never the caller's.
			if len(got) != 4 || !strings.HasPrefix(got[3], "R ") {
				t.Fatalf("stream = %q, want three progress messages and the result", got)
			}
			if !regexp.MustCompile(`^R [0-9]+\.[0-9a-f]{16}$`).MatchString(got[3]) {
				t.Errorf("result %q, want the bridge-minted progress token <id>.<16 hex digits>", got[3])
			}
			want := []string{"P 0/100 Completed step 0 of 100", "P 50/100 Completed step 50 of 100", "P 100/100 Completed step 100 of 100"}
			if diff := cmp.Diff(want, got[:3]); diff != "" {
				t.Errorf("progress (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("CallStream", func(t *testing.T) {
		s, err := h.bc.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: "modern", Method: "tools/call", ParamsJson: `{"name":"test_tool_with_progress"}`})
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := recvAll(s)
		got := describeAll(msgs)
		if err != nil || len(got) != 4 || got[0] != "P 0/100 Completed step 0 of 100" || got[2] != "P 100/100 Completed step 100 of 100" ||
			!strings.HasPrefix(got[3], `R {"_meta":{"io.modelcontextprotocol/serverInfo"`) {
			t.Errorf("CallStream = %q, %v; want three progress messages, then the result as JSON", got, err)
		}
	})
}

// server-everything's long-running operation: four progress messages of a
// legacy child, then the result.
func TestCallToolStreamProgressServerEverything(t *testing.T) {
	t.Parallel()
	h := startTypedBridge(t, everythingServer(t, "everything"))
	got := toolStream(t, h, context.Background(), &mcpbridgev1.CallToolStreamRequest{Name: "trigger-long-running-operation",
		Arguments: mustStruct(t, map[string]any{"duration": 1, "steps": 4})})
	want := []string{"P 1/4", "P 2/4", "P 3/4", "P 4/4", "R Long running operation completed. Duration: 1 seconds, Steps: 4."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stream (-want +got):\n%s", diff)
	}
}

// Logs attributed to the call arrive as log messages, interleaved with
// progress in arrival order, before the result, at or above log_level.
func TestCallToolStreamLogs(t *testing.T) {
	t.Parallel()
	h := startTypedBridge(t, goSDKServer(t, "go"), typedChildServer(t, "modern", "modern"), typedChildServer(t, "legacy", "legacy"))
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		req  *mcpbridgev1.CallToolStreamRequest
		want []string
	}{
		// A 2026 child gets log_level as _meta logLevel and logs for this
		// request only.
		{"go-sdk info", &mcpbridgev1.CallToolStreamRequest{Server: "go", Name: "test_tool_with_logging", LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO},
			[]string{`L info  "Tool execution started"`, `L info  "Tool processing data"`, `L info  "Tool execution completed"`, "R Tool with logging executed successfully"}},
		{"go-sdk warning", &mcpbridgev1.CallToolStreamRequest{Server: "go", Name: "test_tool_with_logging", LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_WARNING},
			[]string{"R Tool with logging executed successfully"}},
		// Without log_level a 2026 child is not asked for logs.
		{"go-sdk none", &mcpbridgev1.CallToolStreamRequest{Server: "go", Name: "test_tool_with_logging"},
			[]string{"R Tool with logging executed successfully"}},
		{"2026 fixture info", &mcpbridgev1.CallToolStreamRequest{Server: "modern", Name: "logs", LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO},
			[]string{"P 1/4", `L info typed-child {"i":1}`, "P 2/4", `L warning typed-child {"i":2}`, "P 3/4", `L error typed-child {"i":3}`, "P 4/4", "R logged"}},
		// A legacy child logs at its session's level (here every level);
		// the bridge filters to log_level.
		{"legacy fixture warning", &mcpbridgev1.CallToolStreamRequest{Server: "legacy", Name: "logs", LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_WARNING},
			[]string{"P 1/4", "P 2/4", `L warning typed-child {"i":2}`, "P 3/4", `L error typed-child {"i":3}`, "P 4/4", "R logged"}},
		{"legacy fixture none", &mcpbridgev1.CallToolStreamRequest{Server: "legacy", Name: "logs"},
			[]string{"P 1/4", "P 2/4", "P 3/4", "P 4/4", "R logged"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, toolStream(t, h, ctx, tt.req)); diff != "" {
				t.Errorf("stream (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("CallStream legacy debug", func(t *testing.T) {
		s, err := h.bc.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: "legacy", Method: "tools/call", ParamsJson: `{"name":"logs"}`, LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_DEBUG})
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := recvAll(s)
		want := []string{`L debug typed-child {"i":0}`, "P 1/4", `L info typed-child {"i":1}`, "P 2/4", `L warning typed-child {"i":2}`, "P 3/4", `L error typed-child {"i":3}`, "P 4/4",
			`R {"content":[{"text":"logged","type":"text"}]}`}
		if diff := cmp.Diff(want, describeAll(msgs)); err != nil || diff != "" {
			t.Errorf("CallStream = %v (-want +got):\n%s", err, diff)
		}
	})
	t.Run("CallStream 2026 puts logLevel in _meta", func(t *testing.T) {
		s, err := h.bc.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: "modern", Method: "tools/call",
			ParamsJson: `{"name":"echo","_meta":{"k":1}}`, LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_NOTICE})
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := recvAll(s)
		if err != nil || len(msgs) == 0 {
			t.Fatalf("CallStream = %v, %v", msgs, err)
		}
		var res struct {
			StructuredContent struct {
				Meta map[string]any `json:"_meta"`
			} `json:"structuredContent"`
		}
		json.Unmarshal([]byte(msgs[len(msgs)-1].GetResult().GetResultJson()), &res)
		if m := res.StructuredContent.Meta; m[protocol.MetaLogLevel] != "notice" || m["k"] != 1.0 || m["progressToken"] == nil {
			t.Errorf("the child got _meta %v, want the caller's k, logLevel notice and a progressToken", m)
		}
	})
}

// cancelled returns the notifications/cancelled the "typed-child" fixture
// has received, waiting until there are at least n.
func cancelled(tb testing.TB, h *typedHarness, server string, n int) []map[string]any {
	tb.Helper()
	res, err := h.bc.CallTool(context.Background(), &mcpbridgev1.CallToolRequest{Server: server, Name: "cancellations",
		Arguments: mustStruct(tb, map[string]any{"atLeast": n})})
	if err != nil {
		tb.Fatalf("CallTool(cancellations): %v", err)
	}
	var out []map[string]any
	for _, v := range res.GetStructuredContent().GetStructValue().GetFields()["cancelled"].GetListValue().GetValues() {
		out = append(out, v.GetStructValue().AsMap())
	}
	return out
}

// startedID reads the child-side request id from the "typed-child" slow
// tool's first progress message ("started <id>").
func startedID(tb testing.TB, m *mcpbridgev1.CallToolStreamResponse) float64 {
	tb.Helper()
	msg, ok := strings.CutPrefix(m.GetProgress().GetMessage(), "started ")
	id, err := strconv.Atoi(msg)
	if !ok || err != nil {
		tb.Fatalf("first message = %v, want progress \"started <id>\"", m)
	}
	return float64(id)
}

// expiryReason reports the reason of a cancellation caused by a gRPC
// deadline. The gRPC client resets the stream when its own deadline passes,
// which usually reaches the bridge just before the deadline the bridge got
// in grpc-timeout does: the bridge then sees a cancel, not an expiry.
func expiryReason(reason any) bool {
	return reason == "Request timed out" || reason == "Request cancelled"
}

// A gRPC deadline that expires mid-call, and a cancelled stream, reach the
// child as notifications/cancelled for its request id, in both eras; the
// caller gets DEADLINE_EXCEEDED or CANCELLED. The "typed-child" fixture
// records what it receives.
func TestDeadlineCancelsChildCall(t *testing.T) {
	t.Parallel()
	h := startTypedBridge(t, typedChildServer(t, "modern", "modern"), typedChildServer(t, "legacy", "legacy"))
	for _, server := range []string{"modern", "legacy"} {
		t.Run(server, func(t *testing.T) {
			t.Parallel()
			// The child is running before any deadline starts.
			if _, err := h.bc.GetServer(context.Background(), &mcpbridgev1.GetServerRequest{Server: server, WaitForReady: true}); err != nil {
				t.Fatal(err)
			}

			// A unary call whose deadline expires while the child works.
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_, err := h.bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: server, Name: "slow"})
			cancel()
			if status.Code(err) != codes.DeadlineExceeded {
				t.Fatalf("CallTool(slow) with a deadline = %v, want DEADLINE_EXCEEDED", err)
			}
			got := cancelled(t, h, server, 1)
			if len(got) != 1 || got[0]["requestId"] == nil || !expiryReason(got[0]["reason"]) {
				t.Errorf("the child received cancellations %v, want one for its request", got)
			}

			// A stream the client cancels once the child has started.
			ctx, cancel = context.WithCancel(context.Background())
			s, err := h.bc.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: server, Name: "slow"})
			if err != nil {
				t.Fatal(err)
			}
			first, err := s.Recv()
			if err != nil {
				t.Fatal(err)
			}
			id := startedID(t, first)
			cancel()
			if _, err := recvAll(s); status.Code(err) != codes.Canceled {
				t.Errorf("cancelled stream ended with %v, want CANCELLED", err)
			}
			got = cancelled(t, h, server, 2)
			if len(got) != 2 || got[1]["requestId"] != id || got[1]["reason"] != "Request cancelled" {
				t.Errorf("the child received cancellations %v, want the second for request %v, reason \"Request cancelled\"", got, id)
			}

			// A stream whose deadline expires after the child started.
			ctx, cancel = context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			s, err = h.bc.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: server, Name: "slow"})
			if err != nil {
				t.Fatal(err)
			}
			if first, err = s.Recv(); err != nil {
				t.Fatal(err)
			}
			id = startedID(t, first)
			if _, err := recvAll(s); status.Code(err) != codes.DeadlineExceeded {
				t.Errorf("stream past its deadline ended with %v, want DEADLINE_EXCEEDED", err)
			}
			got = cancelled(t, h, server, 3)
			if len(got) != 3 || got[2]["requestId"] != id || !expiryReason(got[2]["reason"]) {
				t.Errorf("the child received cancellations %v, want the third for request %v", got, id)
			}
		})
	}
}

// Cancelling server-everything's long-running operation mid-stream: the
// caller gets CANCELLED, and the progress the child keeps sending for the
// cancelled request (docs/testing.md, "Peer quirks") never reaches a later
// call.
func TestCancelServerEverythingOperation(t *testing.T) {
	t.Parallel()
	h := startTypedBridge(t, everythingServer(t, "everything"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := h.bc.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Name: "trigger-long-running-operation",
		Arguments: mustStruct(t, map[string]any{"duration": 20, "steps": 40})})
	if err != nil {
		t.Fatal(err)
	}
	if first, err := s.Recv(); err != nil || describe(first) != "P 1/40" {
		t.Fatalf("first message = %v, %v; want progress 1/40", first, err)
	}
	cancel()
	if _, err := recvAll(s); status.Code(err) != codes.Canceled {
		t.Fatalf("cancelled stream ended with %v, want CANCELLED", err)
	}
	got := toolStream(t, h, context.Background(), &mcpbridgev1.CallToolStreamRequest{Name: "trigger-long-running-operation",
		Arguments: mustStruct(t, map[string]any{"duration": 1, "steps": 2})})
	want := []string{"P 1/2", "P 2/2", "R Long running operation completed. Duration: 1 seconds, Steps: 2."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the next stream (-want +got):\n%s", diff)
	}
}
