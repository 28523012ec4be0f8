package rpcerr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Causes carry what must never reach a gRPC client: paths, stderr, stacks.
var (
	errSecret  = errors.New("open /home/alice/.config/secret.json: permission denied")
	exitCause  = &stdio.ExitError{Code: 1, StderrTail: []byte("panic: boom\n/home/alice/server/main.go:12\ngoroutine 1 [running]:\n")}
	panicCause = &stdio.PanicError{Value: "boom", Stack: []byte("goroutine 7 [running]:\n/home/alice/bridge/handler.go:40")}
)

// leaks are substrings of the causes above that must appear nowhere in a
// status: neither its message nor its details.
var leaks = []string{"/home/alice", "goroutine", "secret", "permission denied", "panic"}

// rpcErr is a JSON-RPC error as a child sends it, with a local cause.
func rpcErr(code int64, msg, data string) *jsonrpc.Error {
	e := &jsonrpc.Error{Code: code, Message: msg, Cause: errSecret}
	if data != "" {
		e.Data = json.RawMessage(data)
	}
	return e
}

// ToStatus maps every row of the table in docs/errors.md, "The mapping",
// and the bridge's own errors, to the status code and details bridge.proto
// documents: a JsonRpcError with the original code, message and data, an
// ErrorInfo with the reason and server/method/code metadata, and RetryInfo
// only on UNAVAILABLE while the child restarts.
func TestToStatus(t *testing.T) {
	const server, method = "files", "tools/call"
	for _, tc := range []struct {
		name   string
		err    error
		code   codes.Code
		msg    string // the status message; also the JsonRpcError message
		rpc    int64  // the JSON-RPC code (ErrorInfo "code")
		wire   int32  // JsonRpcError.code when it is not rpc
		data   string // the JsonRpcError data_json
		reason string
		meta   map[string]string // ErrorInfo metadata; nil: server, method, code as given
		retry  time.Duration     // RetryInfo delay; 0: none
	}{
		// docs/errors.md's table, row by row.
		{name: "-32700 parse error", err: rpcErr(-32700, "Parse error", ""), code: codes.InvalidArgument, msg: "Parse error", rpc: -32700, reason: "CHILD_ERROR"},
		{name: "-32600 invalid request", err: rpcErr(-32600, "Invalid Request", ""), code: codes.InvalidArgument, msg: "Invalid Request", rpc: -32600, reason: "CHILD_ERROR"},
		{name: "-32602 invalid params", err: rpcErr(-32602, "Resource not found", `{"uri":"file:///a b"}`), code: codes.InvalidArgument, msg: "Resource not found", rpc: -32602, data: `{"uri":"file:///a b"}`, reason: "CHILD_ERROR"},
		{name: "-32601 method not found", err: rpcErr(-32601, "Method not found", ""), code: codes.Unimplemented, msg: "Method not found", rpc: -32601, reason: "CHILD_ERROR"},
		{name: "-32603 internal", err: rpcErr(-32603, "Internal error", ""), code: codes.Internal, msg: "Internal error", rpc: -32603, reason: "CHILD_ERROR"},
		{name: "-32603 not retryable", err: rpcErr(-32603, "Internal error", `{"retryable":false}`), code: codes.Internal, msg: "Internal error", rpc: -32603, data: `{"retryable":false}`, reason: "CHILD_ERROR"},
		{name: "capacity refusal", err: rpcErr(-32603, "Server overloaded", `{"retryable":true,"limit":288}`), code: codes.ResourceExhausted, msg: "Server overloaded", rpc: -32603, data: `{"retryable":true,"limit":288}`, reason: "CAPACITY"},
		{
			name: "over a line limit",
			err:  &jsonrpc.Error{Code: -32603, Message: "The server's response exceeds the 100-byte line limit", Data: json.RawMessage(`{"limit":100}`), Cause: stdio.ErrTooLarge},
			code: codes.ResourceExhausted, msg: "The server's response exceeds the 100-byte line limit", rpc: -32603, data: `{"limit":100}`, reason: "TOO_LARGE",
		},
		{
			name: "-32000 child gone", err: &jsonrpc.Error{Code: -32000, Message: "The stdio server exited", Cause: exitCause},
			code: codes.Unavailable, msg: "The stdio server exited", rpc: -32000, reason: "CHILD_UNAVAILABLE",
		},
		{
			name: "-32000 while restarting",
			err:  &CallError{RPC: &jsonrpc.Error{Code: -32000, Message: "The stdio server exited", Cause: exitCause}, RetryAfter: 250 * time.Millisecond},
			code: codes.Unavailable, msg: "The stdio server exited", rpc: -32000, reason: "CHILD_UNAVAILABLE", retry: 250 * time.Millisecond,
		},
		{
			name: "no child: restarting after a failed start",
			err: &supervisor.UnavailableError{State: supervisor.Restarting, Message: "The MCP server could not be started; retrying",
				RetryAfter: 400 * time.Millisecond, Cause: &jsonrpc.Error{Code: -32000, Message: "Executable not found", Cause: exitCause}},
			code: codes.Unavailable, msg: "The MCP server could not be started; retrying", rpc: -32000, reason: "CHILD_UNAVAILABLE", retry: 400 * time.Millisecond,
		},
		{
			name: "no child: failed",
			err:  &supervisor.UnavailableError{State: supervisor.Failed, Message: "The MCP server kept exiting and is not restarted"},
			code: codes.Unavailable, msg: "The MCP server kept exiting and is not restarted", rpc: -32000, reason: "CHILD_UNAVAILABLE",
		},
		{
			name: "-32001 request timeout", err: &jsonrpc.Error{Code: -32001, Message: "Request timed out", Data: json.RawMessage(`{"timeoutMs":30000}`)},
			code: codes.DeadlineExceeded, msg: "Request timed out", rpc: -32001, data: `{"timeoutMs":30000}`, reason: "TIMEOUT",
		},
		{name: "-32002 resource not found", err: rpcErr(-32002, "Resource not found", `{"uri":"file:///x"}`), code: codes.NotFound, msg: "Resource not found", rpc: -32002, data: `{"uri":"file:///x"}`, reason: "CHILD_ERROR"},
		{name: "-32020 header mismatch", err: rpcErr(-32020, "Header mismatch", ""), code: codes.FailedPrecondition, msg: "Header mismatch", rpc: -32020, reason: "CHILD_ERROR"},
		{name: "-32021 missing capability", err: rpcErr(-32021, "Missing capability", `{"capability":"sampling"}`), code: codes.FailedPrecondition, msg: "Missing capability", rpc: -32021, data: `{"capability":"sampling"}`, reason: "CHILD_ERROR"},
		{name: "-32022 unsupported version", err: rpcErr(-32022, "Unsupported protocol version", `{"supported":["2026-07-28"]}`), code: codes.FailedPrecondition, msg: "Unsupported protocol version", rpc: -32022, data: `{"supported":["2026-07-28"]}`, reason: "CHILD_ERROR"},
		{name: "-32042 URL elicitation required", err: rpcErr(-32042, "URL elicitation required", ""), code: codes.FailedPrecondition, msg: "URL elicitation required", rpc: -32042, reason: "CHILD_ERROR"},
		{name: "server-defined -32050", err: rpcErr(-32050, "Quota exceeded", ""), code: codes.Unknown, msg: "Quota exceeded", rpc: -32050, reason: "CHILD_ERROR"},
		{name: "application code 42", err: rpcErr(42, "Nope", `"text"`), code: codes.Unknown, msg: "Nope", rpc: 42, data: `"text"`, reason: "CHILD_ERROR"},

		// Cancellation and deadlines, from the stdio client and from ctx.
		{
			name: "client: cancelled", err: &jsonrpc.Error{Code: -32001, Message: "Request cancelled", Cause: context.Canceled},
			code: codes.Canceled, msg: "Request cancelled", rpc: -32001, reason: "TIMEOUT",
		},
		{name: "ctx cancelled", err: context.Canceled, code: codes.Canceled, msg: "Request cancelled", rpc: -32001, reason: "TIMEOUT"},
		{name: "ctx deadline", err: fmt.Errorf("waiting for the child: %w", context.DeadlineExceeded), code: codes.DeadlineExceeded, msg: "Request timed out", rpc: -32001, reason: "TIMEOUT"},

		// The bridge's own refusals.
		{
			name: "invalid input", err: InvalidInput(server, method, "params_json must be a JSON object"),
			code: codes.InvalidArgument, msg: "params_json must be a JSON object", rpc: -32602, reason: "INVALID_INPUT",
		},
		{
			name: "unknown server",
			err:  &CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown server %q", "nope"), Server: "nope", Method: method, Reason: ReasonUnknownServer},
			code: codes.InvalidArgument, msg: `unknown server "nope"`, rpc: -32602, reason: "UNKNOWN_SERVER",
			meta: map[string]string{"server": "nope", "method": method, "code": "-32602"},
		},
		{
			name: "RetryInfo only with UNAVAILABLE",
			err:  &CallError{RPC: rpcErr(-32602, "Invalid params", ""), RetryAfter: time.Second},
			code: codes.InvalidArgument, msg: "Invalid params", rpc: -32602, reason: "CHILD_ERROR",
		},

		// A code beyond int32 (JsonRpcError.code): -32603 there, exact in
		// ErrorInfo.
		{name: "a code beyond int32", err: rpcErr(1<<40, "Huge", ""), code: codes.Unknown, msg: "Huge", rpc: 1 << 40, wire: -32603, reason: "CHILD_ERROR"},

		// Causes never show.
		{name: "wrapped with a path", err: fmt.Errorf("calling /home/alice/server: %w", rpcErr(-32601, "Method not found", "")), code: codes.Unimplemented, msg: "Method not found", rpc: -32601, reason: "CHILD_ERROR"},
		{name: "plain error with a path", err: errSecret, code: codes.Internal, msg: "Internal error", rpc: -32603, reason: "CHILD_ERROR"},
		{name: "panic with a stack", err: panicCause, code: codes.Internal, msg: "Internal error", rpc: -32603, reason: "CHILD_ERROR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ToStatus(server, method, tc.err)
			st, ok := status.FromError(err)
			if !ok {
				t.Fatalf("ToStatus(%v) = %v, not a status", tc.err, err)
			}
			if st.Code() != tc.code || st.Message() != tc.msg {
				t.Errorf("ToStatus(%v) = %v %q, want %v %q", tc.err, st.Code(), st.Message(), tc.code, tc.msg)
			}
			wire := int32(tc.rpc)
			if tc.wire != 0 {
				wire = tc.wire
			}
			meta := tc.meta
			if meta == nil {
				meta = map[string]string{"server": server, "method": method, "code": fmt.Sprint(tc.rpc)}
			}
			want := []proto.Message{
				&mcpbridgev1.JsonRpcError{Code: wire, Message: tc.msg, DataJson: tc.data},
				&errdetails.ErrorInfo{Reason: tc.reason, Domain: "mcpbridge", Metadata: meta},
			}
			if tc.retry > 0 {
				want = append(want, &errdetails.RetryInfo{RetryDelay: durationpb.New(tc.retry)})
			}
			var got []proto.Message
			for _, d := range st.Details() {
				m, ok := d.(proto.Message)
				if !ok {
					t.Fatalf("detail %v: %v", d, d)
				}
				got = append(got, m)
			}
			if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
				t.Errorf("ToStatus(%v) details (-want +got):\n%s", tc.err, diff)
			}
			text := st.Message() + " " + fmt.Sprint(st.Details())
			for _, leak := range leaks {
				if strings.Contains(text, leak) {
					t.Errorf("ToStatus(%v) leaks %q: %s", tc.err, leak, text)
				}
			}
		})
	}
}

// A deliberate status passes through unchanged, and nil stays nil.
func TestToStatusPassesStatusThrough(t *testing.T) {
	orig := status.Error(codes.PermissionDenied, "no")
	if got := ToStatus("s", "m", orig); got != orig {
		t.Errorf("ToStatus(status) = %v, want it unchanged", got)
	}
	if got := ToStatus("s", "m", nil); got != nil {
		t.Errorf("ToStatus(nil) = %v, want nil", got)
	}
}
