package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/testkit/otlptest"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// One CallToolStream through `mcpbridge serve` into the demo child, both
// exporting to a real OTLP receiver, makes one trace: the caller's span
// (its traceparent in the gRPC metadata), the bridge's server span for the
// RPC, the bridge's client span for the request to the child, and the
// demo's server span for its handling, each the parent of the next across
// the process boundaries, named and attributed as the MCP conventions say.
// The call's log line names the trace. Both OTLP protocols.
func TestTraceIntoChild(t *testing.T) {
	for _, proto := range []string{otlptest.GRPC, otlptest.HTTPProtobuf} {
		t.Run(proto, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
			defer cancel()
			r := otlptest.Start(t)
			env := r.Env(proto)
			args := []string{}
			for _, kv := range env { // the child gets them only through --env
				name, _, _ := strings.Cut(kv, "=")
				args = append(args, "--env", name)
			}
			b := startBridge(t, env, append(args, "--", mcpbridgeBin, "demo", "-tick", "0")...)
			bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
			childPid(ctx, t, bc)

			const traceID = "0af7651916cd43dd8448eb211c80319c"
			const callerSpan = "b7ad6b7169203331"
			cctx := metadata.AppendToOutgoingContext(ctx, "traceparent", "00-"+traceID+"-"+callerSpan+"-01")
			args2, _ := structpb.NewStruct(map[string]any{"steps": 2, "seconds": 0.05})
			stream, err := bc.CallToolStream(cctx, &mcpbridgev1.CallToolStreamRequest{Name: "progress", Arguments: args2})
			if err != nil {
				t.Fatal(err)
			}
			progress := 0
			for {
				m, err := stream.Recv()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if m.GetProgress() != nil {
					progress++
				}
				if res := m.GetResult(); res != nil && res.GetIsError() {
					t.Fatalf("the progress tool failed: %v", res)
				}
			}
			if progress == 0 {
				t.Error("no progress arrived")
			}

			find := func(spans []otlptest.Span, service, name string) (otlptest.Span, bool) {
				for _, s := range spans {
					if s.Service == service && s.Name == name && s.TraceID == traceID {
						return s, true
					}
				}
				return otlptest.Span{}, false
			}
			spans := r.WaitFor(ctx, t, func(s []otlptest.Span) bool {
				_, a := find(s, "mcpbridge", "mcpbridge.v1.BridgeService/CallToolStream")
				_, b := find(s, "mcpbridge", "tools/call progress")
				_, c := find(s, "mcpbridge-demo", "tools/call progress")
				return a && b && c
			})
			server, _ := find(spans, "mcpbridge", "mcpbridge.v1.BridgeService/CallToolStream")
			client, _ := find(spans, "mcpbridge", "tools/call progress")
			child, _ := find(spans, "mcpbridge-demo", "tools/call progress")
			for _, c := range []struct {
				what       string
				span       otlptest.Span
				parent     string
				kind       trace.SpanKind
				parentName string
			}{
				{"the bridge's RPC span", server, callerSpan, trace.SpanKindServer, "the caller's"},
				{"the bridge's request to the child", client, server.SpanID, trace.SpanKindClient, "the RPC span"},
				{"the demo's handling", child, client.SpanID, trace.SpanKindServer, "the bridge's client span"},
			} {
				if c.span.ParentSpanID != c.parent || c.span.Kind != c.kind {
					t.Errorf("%s (%s): parent %s, kind %s; want %s %s, kind %s", c.what, c.span, c.span.ParentSpanID, c.span.Kind, c.parentName, c.parent, c.kind)
				}
			}
			for span, want := range map[*otlptest.Span]map[string]string{
				&client: {"mcp.method.name": "tools/call", "gen_ai.tool.name": "progress", "gen_ai.operation.name": "execute_tool",
					"network.transport": "pipe", "mcp.protocol.version": "2026-07-28"},
				&child: {"mcp.method.name": "tools/call", "gen_ai.tool.name": "progress", "network.transport": "pipe"},
			} {
				for k, v := range want {
					if span.Attributes[k] != v {
						t.Errorf("%s: %s = %q, want %q", span.Name, k, span.Attributes[k], v)
					}
				}
			}
			if client.Attributes["jsonrpc.request.id"] == "" || client.Attributes["jsonrpc.request.id"] != child.Attributes["jsonrpc.request.id"] {
				t.Errorf("jsonrpc.request.id: the bridge's %q, the child's %q; want the same id", client.Attributes["jsonrpc.request.id"], child.Attributes["jsonrpc.request.id"])
			}
			b.log.WaitFor(ctx, t, `grpc.method=CallToolStream`, "trace_id="+traceID, "span_id="+server.SpanID)
		})
	}
}
