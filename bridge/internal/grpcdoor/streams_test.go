package grpcdoor

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// testCall sends raw JSON-RPC through Call, and refuses what Call may not
// send before it reaches a child.
func testCall(t *testing.T, servers []*pool.Server) {
	_, client := twoEras(t, servers)
	ctx := testCtx(t)
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			res, err := client.Call(ctx, &mcpbridgev1.CallRequest{Server: era, Method: "tools/call", ParamsJson: `{"name":"echo","arguments":{"text":"raw"}}`})
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Content []struct{ Text string }
			}
			if err := json.Unmarshal([]byte(res.GetResultJson()), &out); err != nil || len(out.Content) != 1 || out.Content[0].Text != "raw" {
				t.Errorf("Call(echo) = %s, want the text raw", res.GetResultJson())
			}
			// A result too large for the typed response is no problem
			// for Call.
			res, err = client.Call(ctx, &mcpbridgev1.CallRequest{Server: era, Method: "tools/call", ParamsJson: fmt.Sprintf(`{"name":"big","arguments":{"n":%d}}`, testMaxMessageBytes+1)})
			if err != nil || len(res.GetResultJson()) <= testMaxMessageBytes {
				t.Errorf("Call(big) = %d bytes, %v; want the whole result", len(res.GetResultJson()), err)
			}
			_, err = client.Call(ctx, &mcpbridgev1.CallRequest{Server: era, Method: "no/such/method", ParamsJson: `{}`})
			wantStatus(t, "Call(no/such/method)", err, codes.Unimplemented, rpcerr.ReasonChildError, jsonrpc.CodeMethodNotFound)
		})
	}
	for _, tc := range []struct {
		req   *mcpbridgev1.CallRequest
		field string
	}{
		{&mcpbridgev1.CallRequest{Server: "legacy"}, "method"},
		{&mcpbridgev1.CallRequest{Server: "legacy", Method: "initialize"}, "method"},
		{&mcpbridgev1.CallRequest{Server: "legacy", Method: "notifications/cancelled"}, "method"},
		{&mcpbridgev1.CallRequest{Server: "legacy", Method: "tools/list", ParamsJson: `{"cursor":`}, "params_json"},
		{&mcpbridgev1.CallRequest{Server: "legacy", Method: "tools/list", ParamsJson: `[1]`}, "params_json"},
	} {
		_, err := client.Call(ctx, tc.req)
		wantField(t, "Call("+tc.req.String()+")", err, tc.field)
		st, err := client.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: tc.req.Server, Method: tc.req.Method, ParamsJson: tc.req.ParamsJson})
		if err == nil {
			_, err = recvAll(st)
		}
		wantField(t, "CallStream("+tc.req.String()+")", err, tc.field)
	}
}

// event is a stream's message as a line: "P 1/3" progress, "L info {...}"
// a log, "S method" a server request, "R text" the result.
func toolEvent(t *testing.T, m *mcpbridgev1.CallToolStreamResponse) string {
	switch {
	case m.GetProgress() != nil:
		return fmt.Sprintf("P %v/%v", m.GetProgress().GetProgress(), m.GetProgress().GetTotal())
	case m.GetLog() != nil:
		data, _ := m.GetLog().GetData().MarshalJSON()
		return fmt.Sprintf("L %v %s", m.GetLog().GetLevel(), data)
	case m.GetServerRequest() != nil:
		return "S " + m.GetServerRequest().GetMethod()
	case m.GetResult() != nil:
		return "R " + text(t, m.GetResult())
	}
	t.Fatalf("unknown event %v", m)
	return ""
}

func callEvent(t *testing.T, m *mcpbridgev1.CallStreamResponse) string {
	switch {
	case m.GetProgress() != nil:
		return fmt.Sprintf("P %v/%v", m.GetProgress().GetProgress(), m.GetProgress().GetTotal())
	case m.GetLog() != nil:
		data, _ := m.GetLog().GetData().MarshalJSON()
		return fmt.Sprintf("L %v %s", m.GetLog().GetLevel(), data)
	case m.GetServerRequest() != nil:
		return "S " + m.GetServerRequest().GetMethod()
	case m.GetResult() != nil:
		return "R " + m.GetResult().GetResultJson()
	}
	t.Fatalf("unknown event %v", m)
	return ""
}

// testCallToolStream shows a tool's progress and logs, in order, then its
// result, on a child of each era; without a log level, no logs.
func testCallToolStream(t *testing.T, servers []*pool.Server) {
	_, client := twoEras(t, servers)
	ctx := testCtx(t)
	steps := []string{"P 1/3", `L LOGGING_LEVEL_INFO {"i":1}`, "P 2/3", `L LOGGING_LEVEL_INFO {"i":2}`, "P 3/3", `L LOGGING_LEVEL_INFO {"i":3}`}
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			for _, tc := range []struct {
				level mcpbridgev1.LoggingLevel
				want  []string
			}{
				{mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO, append(steps[:len(steps):len(steps)], "R stepped")},
				{mcpbridgev1.LoggingLevel_LOGGING_LEVEL_UNSPECIFIED, []string{"P 1/3", "P 2/3", "P 3/3", "R stepped"}},
				{mcpbridgev1.LoggingLevel_LOGGING_LEVEL_ERROR, []string{"P 1/3", "P 2/3", "P 3/3", "R stepped"}},
			} {
				st, err := client.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: era, Name: "steps", Arguments: args(t, map[string]any{"n": 3}), LogLevel: tc.level})
				if err != nil {
					t.Fatal(err)
				}
				msgs, err := recvAll(st)
				if err != nil {
					t.Fatalf("CallToolStream(steps, %v) ended with %v", tc.level, err)
				}
				var got []string
				for _, m := range msgs {
					got = append(got, toolEvent(t, m))
				}
				if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
					t.Errorf("CallToolStream(steps, %v):\n%s\nwant\n%s", tc.level, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
				}
			}
			// A refusal of the child ends the stream with its status.
			st, err := client.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: era, Name: "nope"})
			if err == nil {
				_, err = recvAll(st)
			}
			wantStatus(t, "CallToolStream(nope)", err, codes.InvalidArgument, rpcerr.ReasonChildError, jsonrpc.CodeInvalidParams)
			// So does bad input, before it reaches the child.
			st, err = client.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: era})
			if err == nil {
				_, err = recvAll(st)
			}
			wantField(t, "CallToolStream(no name)", err, "name")
			// And a result too large for the typed response.
			st, err = client.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: era, Name: "big", Arguments: args(t, map[string]any{"n": testMaxMessageBytes + 1})})
			if err == nil {
				_, err = recvAll(st)
			}
			wantStatus(t, "CallToolStream(big)", err, codes.ResourceExhausted, rpcerr.ReasonTooLarge, jsonrpc.CodeInternalError)
		})
	}
}

// testCallStream is CallToolStream's raw twin: progress and logs, then the
// result as JSON text.
func testCallStream(t *testing.T, servers []*pool.Server) {
	_, client := twoEras(t, servers)
	ctx := testCtx(t)
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			st, err := client.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: era, Method: "tools/call", ParamsJson: `{"name":"steps","arguments":{"n":2}}`,
				LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_DEBUG})
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := recvAll(st)
			if err != nil {
				t.Fatalf("CallStream(steps) ended with %v", err)
			}
			var got []string
			for _, m := range msgs {
				got = append(got, callEvent(t, m))
			}
			want := []string{"P 1/2", `L LOGGING_LEVEL_INFO {"i":1}`, "P 2/2", `L LOGGING_LEVEL_INFO {"i":2}`}
			if len(got) != len(want)+1 || strings.Join(got[:len(want)], "\n") != strings.Join(want, "\n") || !strings.Contains(got[len(want)], `"text":"stepped"`) {
				t.Errorf("CallStream(steps):\n%s\nwant\n%s\nthen the result", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			st, err = client.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: era, Method: "prompts/get", ParamsJson: `{"name":"nope"}`})
			if err == nil {
				_, err = recvAll(st)
			}
			wantStatus(t, "CallStream(prompts/get nope)", err, codes.InvalidArgument, rpcerr.ReasonChildError, jsonrpc.CodeInvalidParams)
		})
	}
}

// testDeadline shows a call's child timeout cut from its gRPC deadline by
// the margin (deadlineMargin: a tenth of the time left, between 20 ms and
// 250 ms), so that the bridge's own DEADLINE_EXCEEDED, with its
// JsonRpcError -32001, reaches the client before the client's timer
// fires; and a call without a gRPC deadline bounded by the server's
// default. It reads the route's options rather than racing a real
// deadline, which a loaded machine can lose by more than the margin
// (package bridge's TestDeadlineExceededCarriesDetails runs that race
// through a real client; TestServerDeadlines here shows the timeout's
// status).
func testDeadline(t *testing.T, servers []*pool.Server) {
	for _, srv := range servers {
		r := &route{srv: srv, req: &door.Request{Method: "tools/call", Kind: access.Tool, Names: []string{"slow"}}}
		for _, left := range []time.Duration{100 * time.Millisecond, 2 * time.Second, time.Minute} {
			ctx, cancel := context.WithTimeout(context.Background(), left)
			got := r.callOptions(ctx).Timeout
			cancel()
			margin := min(max(left/10, 20*time.Millisecond), 250*time.Millisecond)
			if want := left - margin; got > want || got < want-time.Second {
				t.Errorf("%s: a %v deadline gives the child %v, want just under %v (a %v margin)", srv.Name(), left, got, want, margin)
			}
		}
		if got, want := r.callOptions(context.Background()).Timeout, pool.DeadlinesOf(srv.Config(), "slow").Default; got != want {
			t.Errorf("%s: no deadline gives the child %v, want the server's default %v", srv.Name(), got, want)
		}
	}
}

// TestServerDeadlines shows the server's own deadlines bounding a call:
// its default for a call without a gRPC deadline, its maximum for a call
// whose gRPC deadline is longer. Either ends DEADLINE_EXCEEDED, -32001.
func TestServerDeadlines(t *testing.T) {
	t.Parallel()
	short := startServer(t, "short", "legacy", func(sc *pool.ServerConfig) {
		sc.DefaultDeadline, sc.MaxDeadline = 300*time.Millisecond, 400*time.Millisecond
	})
	client := serve(t, newCore(short))
	// No gRPC deadline, yet a bound: the test's own cancel.
	ctx, cancel := context.WithCancel(context.Background())
	defer time.AfterFunc(wait, cancel).Stop()
	defer cancel()
	_, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "short", Name: "slow"})
	wantStatus(t, "CallTool(slow) without a deadline", err, codes.DeadlineExceeded, rpcerr.ReasonTimeout, jsonrpc.CodeRequestTimeout)
	if ctx.Err() != nil {
		t.Fatalf("the test's bound of %v ended the call", wait)
	}
	long, cancelLong := context.WithTimeout(context.Background(), wait)
	defer cancelLong()
	_, err = client.CallTool(long, &mcpbridgev1.CallToolRequest{Server: "short", Name: "slow"})
	wantStatus(t, "CallTool(slow) with a long deadline", err, codes.DeadlineExceeded, rpcerr.ReasonTimeout, jsonrpc.CodeRequestTimeout)
	if long.Err() != nil {
		t.Errorf("the call's own deadline of %v ended it, not the server's maximum", wait)
	}
}
