package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	otelcodes "go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// A traced call continues the caller's trace: the gRPC server span is the
// child of the traceparent in the caller's metadata, the client span of
// the request to the child is the server span's child, named and
// attributed as the MCP conventions say, and the child receives that
// client span as the traceparent in params._meta. A tunnel request's own
// _meta traceparent is its client span's parent. Errors mark the span.
func TestTracing(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	svc, err := New(Config{Servers: []ServerConfig{typedChildServer(t, "a", "modern")}, Logger: slog.New(slog.DiscardHandler),
		TracerProvider: tp, Metrics: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	bc := mcpbridgev1.NewBridgeServiceClient(serveLoopback(t, svc.NewGRPCServer()))

	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	const callerSpan = "00f067aa0ba902b7"
	cctx := metadata.AppendToOutgoingContext(ctx, "traceparent", "00-"+traceID+"-"+callerSpan+"-01")
	res, err := bc.CallTool(cctx, &mcpbridgev1.CallToolRequest{Name: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	// What reached the child: the echo fixture returns its params.
	sent := res.GetStructuredContent().GetStructValue().GetFields()["_meta"].GetStructValue().GetFields()["traceparent"].GetStringValue()

	server := findSpan(t, rec, "mcpbridge.v1.BridgeService/CallTool")
	client := findSpan(t, rec, "tools/call echo")
	switch {
	case server.SpanContext().TraceID().String() != traceID || server.Parent().SpanID().String() != callerSpan || !server.Parent().IsRemote():
		t.Errorf("the server span %s has parent %s, want the caller's %s-%s", server.SpanContext().SpanID(), server.Parent().SpanID(), traceID, callerSpan)
	case server.SpanKind() != trace.SpanKindServer:
		t.Errorf("the server span's kind is %s", server.SpanKind())
	case client.Parent().SpanID() != server.SpanContext().SpanID() || client.SpanContext().TraceID().String() != traceID:
		t.Errorf("the client span's parent is %s, want the server span %s", client.Parent().SpanID(), server.SpanContext().SpanID())
	case client.SpanKind() != trace.SpanKindClient:
		t.Errorf("the client span's kind is %s", client.SpanKind())
	case sent != "00-"+traceID+"-"+client.SpanContext().SpanID().String()+"-01":
		t.Errorf("the child received traceparent %q, want the client span %s", sent, client.SpanContext().SpanID())
	}
	wantAttrs(t, client, map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
		"network.transport": "pipe", "mcp.protocol.version": "2026-07-28", "mcpbridge.server": "a", "jsonrpc.request.id": "*",
	})
	if client.Status().Code == otelcodes.Error {
		t.Errorf("a successful call's span has status %v", client.Status())
	}

	// A JSON-RPC error: the span says so.
	rec.Reset()
	if _, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "no_such_tool"}); err == nil {
		t.Fatal("an unknown tool succeeded")
	}
	failed := findSpan(t, rec, "tools/call no_such_tool")
	if failed.Status().Code != otelcodes.Error {
		t.Errorf("a failed call's span has status %v, want Error", failed.Status())
	}
	wantAttrs(t, failed, map[string]string{"error.type": "*", "rpc.response.status_code": "*"})

	// A tunnel request with its own traceparent in _meta.
	rec.Reset()
	const tunnelParent = "b7ad6b7169203331"
	stream, err := bc.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"traceparent":"00-%s-%s-01","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, traceID, tunnelParent)
	if err := stream.Send(&mcpbridgev1.ConnectRequest{Server: "a", MessageJson: msg}); err != nil {
		t.Fatal(err)
	}
	reply, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	stream.CloseSend()
	for {
		if _, err := stream.Recv(); err != nil {
			break
		}
	}
	var echoed struct {
		Result struct {
			StructuredContent struct {
				Meta map[string]any `json:"_meta"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(reply.GetMessageJson()), &echoed); err != nil {
		t.Fatalf("%s: %v", reply.GetMessageJson(), err)
	}
	tc := findSpan(t, rec, "tools/call echo")
	if tc.Parent().SpanID().String() != tunnelParent || tc.SpanContext().TraceID().String() != traceID {
		t.Errorf("the tunnel request's span has parent %s, want its own _meta's %s", tc.Parent().SpanID(), tunnelParent)
	}
	if got := echoed.Result.StructuredContent.Meta["traceparent"]; got != "00-"+traceID+"-"+tc.SpanContext().SpanID().String()+"-01" {
		t.Errorf("the child received traceparent %v through the tunnel, want the bridge's span %s", got, tc.SpanContext().SpanID())
	}
}

// findSpan waits, at most spanWait, for rec to have ended a span named
// name: a server span ends after its response has gone, so it may end
// after the caller has the response in hand.
func findSpan(t *testing.T, rec *tracetest.SpanRecorder, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var names []string
	for deadline := time.Now().Add(spanWait); ; time.Sleep(10 * time.Millisecond) {
		names = names[:0]
		for _, s := range rec.Ended() {
			if s.Name() == name {
				return s
			}
			names = append(names, s.Name())
		}
		if time.Now().After(deadline) {
			break
		}
	}
	t.Fatalf("no span %q within %v among %q", name, spanWait, names)
	return nil
}

// spanWait bounds findSpan's wait.
const spanWait = 10 * time.Second

// wantAttrs checks a span's attributes; "*" wants any value.
func wantAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, a := range s.Attributes() {
		got[string(a.Key)] = a.Value.String()
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || (v != "*" && g != v) {
			t.Errorf("span %q: %s = %q, want %q (attributes %v)", s.Name(), k, g, v, got)
		}
	}
}

// A reload that removes a server removes its series from the metrics: a
// scrape no longer shows a server the bridge no longer fronts, while the
// servers kept keep theirs.
func TestReloadForgetsSeries(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	reg, svc, bc, a, _ := reloadMetricsBridge(t)
	for _, server := range []string{"a", "b"} {
		if _, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: server, Name: "echo"}); err != nil {
			t.Fatalf("CallTool on %s: %v", server, err)
		}
	}
	servers := func() map[string]bool { return seriesServers(t, reg) }
	const series = "mcp_client_operation_duration_seconds"
	if got := servers(); !got[series+"{server=a}"] || !got[series+"{server=b}"] {
		t.Fatalf("before the reload: %v; want %s for a and b", got, series)
	}
	if err := svc.Reload(Config{Servers: []ServerConfig{a}, Logger: svc.cfg.Logger, Metrics: reg}); err != nil {
		t.Fatal(err)
	}
	got := servers()
	for s := range got {
		if strings.HasSuffix(s, "{server=b}") {
			t.Errorf("after b was removed: series %s is still there", s)
		}
	}
	if !got[series+"{server=a}"] {
		t.Errorf("after the reload: %v; want a's %s kept", got, series)
	}
}

// A call still draining on a server that a reload removed does not bring
// the server's series back when it ends; once the server is added again,
// its calls record anew.
func TestReloadForgetsDrainingSeries(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	reg, svc, bc, a, b := reloadMetricsBridge(t)
	const series = "mcp_client_operation_duration_seconds"
	hasB := func() bool { return seriesServers(t, reg)[series+"{server=b}"] }
	if _, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "b", Name: "echo"}); err != nil {
		t.Fatal(err)
	}
	// A call in flight on b, the child working on it.
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	s, err := bc.CallToolStream(sctx, &mcpbridgev1.CallToolStreamRequest{Server: "b", Name: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recv(); err != nil { // its "started" progress
		t.Fatal(err)
	}
	if err := svc.Reload(Config{Servers: []ServerConfig{a}, Logger: svc.cfg.Logger, Metrics: reg}); err != nil {
		t.Fatal(err)
	}
	if hasB() {
		t.Fatalf("after b was removed: its %s series are still there", series)
	}
	stop() // the draining call ends, and would record
	if _, err := recvAll(s); status.Code(err) != codes.Canceled {
		t.Fatalf("the draining call ended with %v, want CANCELLED", err)
	}
	// Its end is recorded by the bridge after the client has seen it: watch
	// for a while that the series stay gone.
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if hasB() {
			t.Fatalf("the call that drained on removed server b brought its %s series back", series)
		}
	}
	// b added again records again.
	if err := svc.Reload(Config{Servers: []ServerConfig{a, b}, Logger: svc.cfg.Logger, Metrics: reg}); err != nil {
		t.Fatal(err)
	}
	if _, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: "b", WaitForReady: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "b", Name: "echo"}); err != nil {
		t.Fatal(err)
	}
	if !hasB() {
		t.Errorf("b added again: no %s series for its call", series)
	}
}

// reloadMetricsBridge serves a bridge with metrics in front of two typed
// children, a and b, and returns its registry, its service, a client and
// the two servers' configs, for reloads.
func reloadMetricsBridge(t *testing.T) (*prometheus.Registry, *Service, mcpbridgev1.BridgeServiceClient, ServerConfig, ServerConfig) {
	t.Helper()
	reg := prometheus.NewRegistry()
	a, b := typedChildServer(t, "a", "modern"), typedChildServer(t, "b", "modern")
	svc, err := New(Config{Servers: []ServerConfig{a, b}, Logger: slog.New(slog.DiscardHandler), Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return reg, svc, mcpbridgev1.NewBridgeServiceClient(serveLoopback(t, svc.NewGRPCServer())), a, b
}

// seriesServers lists reg's series by family and server label, as
// "family{server=name}".
func seriesServers(t *testing.T, reg *prometheus.Registry) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "server" {
					got[f.GetName()+"{server="+l.GetValue()+"}"] = true
				}
			}
		}
	}
	return got
}
