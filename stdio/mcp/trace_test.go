package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// The trace context of the tests' requests: the caller's span, as an MCP
// client puts it in params._meta.
const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
	traceparent = `"traceparent":"00-` + callerTrace + `-` + callerSpan + `-01"`
	tracestate  = `"tracestate":"rojo=00f067aa0ba902b7"`
)

// tracedServer is the fixture server of the tests, tracing into an
// in-memory exporter as each span ends, with two more tools: broken fails
// the server's way (-32603), and whoami answers with the span and baggage
// its ctx carries.
func tracedServer(tb testing.TB) (*mcp.Server, *tracetest.InMemoryExporter) {
	tb.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	tb.Cleanup(func() { tp.Shutdown(context.Background()) })
	srv := newTestServer(tb, mcp.Config{TracerProvider: tp})
	srv.AddTool(mcp.Tool{Name: "broken"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "The database is down"}
	})
	srv.AddTool(mcp.Tool{Name: "whoami"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		sc := trace.SpanFromContext(ctx).SpanContext()
		return mcp.TextResult(sc.SpanID().String() + " " + baggage.FromContext(ctx).Member("user").Value()), nil
	})
	srv.AddTool(mcp.Tool{Name: "panic"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		panic("the tool exploded")
	})
	return srv, exp
}

// spanByID returns the one ended span whose jsonrpc.request.id is id.
func spanByID(tb testing.TB, exp *tracetest.InMemoryExporter, id string) tracetest.SpanStub {
	tb.Helper()
	var found []tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		for _, kv := range s.Attributes {
			if kv.Key == "jsonrpc.request.id" && kv.Value.AsString() == id {
				found = append(found, s)
			}
		}
	}
	if len(found) != 1 {
		tb.Fatalf("%d spans with jsonrpc.request.id %s, want 1; spans: %v", len(found), id, spanNames(exp))
	}
	return found[0]
}

func spanNames(exp *tracetest.InMemoryExporter) []string {
	var names []string
	for _, s := range exp.GetSpans() {
		names = append(names, s.Name)
	}
	return names
}

func attrs(s tracetest.SpanStub) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// withMeta builds the _meta member of a request in era: the 2026-07-28
// fields on 2026-07-28, then extra (members, comma-separated); "" when
// there is nothing to put in it.
func withMeta(era, extra string) string {
	var members []string
	if era == stdio.Version20260728 {
		members = append(members, v26, noCaps, infoMeta)
	}
	if extra != "" {
		members = append(members, extra)
	}
	if len(members) == 0 {
		return ""
	}
	return `"_meta":{` + strings.Join(members, ",") + `}`
}

// params joins the members of a params object.
func params(members ...string) string {
	var kept []string
	for _, m := range members {
		if m != "" {
			kept = append(kept, m)
		}
	}
	return "{" + strings.Join(kept, ",") + "}"
}

// Each request the runtime serves is one SERVER span, named and
// attributed as the MCP semantic conventions say, whose parent is the
// caller's span from params._meta, in both eras, through the real
// transport.
func TestTracing(t *testing.T) {
	for _, era := range []string{stdio.Version20260728, stdio.Version20251125} {
		t.Run(era, func(t *testing.T) {
			srv, exp := tracedServer(t)
			p := serve(t, srv)
			if era != stdio.Version20260728 {
				// Asked for an unknown version, the server counter-offers:
				// the span records the version negotiated.
				wantResult(t, p.call(request("init", "initialize", `{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)), `"init"`)
				p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				s := spanByID(t, exp, "init")
				want := map[string]string{"mcp.method.name": "initialize", "jsonrpc.request.id": "init", "network.transport": "pipe",
					"mcp.protocol.version": era}
				if diff := cmp.Diff(want, attrs(s)); s.Name != "initialize" || diff != "" {
					t.Errorf("initialize span %q, attributes (-want +got):\n%s", s.Name, diff)
				}
			}
			common := func(method string) map[string]string {
				return map[string]string{"mcp.method.name": method, "network.transport": "pipe", "mcp.protocol.version": era}
			}
			with := func(m map[string]string, kv ...string) map[string]string {
				for i := 0; i < len(kv); i += 2 {
					m[kv[i]] = kv[i+1]
				}
				return m
			}
			tool := func(name string) map[string]string {
				return with(common("tools/call"), "gen_ai.tool.name", name, "gen_ai.operation.name", "execute_tool")
			}
			notFound := "-32602" // a missing resource, by era
			if era != stdio.Version20260728 {
				notFound = "-32002"
			}
			for i, tc := range []struct {
				name       string
				method     string
				params     string
				wantName   string
				wantAttrs  map[string]string
				wantStatus sdktrace.Status
				parented   bool // the caller's span is the parent; else a root
			}{
				{"tool", "tools/call", params(`"name":"echo"`, `"arguments":{"text":"hi"}`, withMeta(era, traceparent+","+tracestate)),
					"tools/call echo", tool("echo"), sdktrace.Status{}, true},
				{"no trace context", "tools/call", params(`"name":"echo"`, withMeta(era, "")),
					"tools/call echo", tool("echo"), sdktrace.Status{}, false},
				{"tool error", "tools/call", params(`"name":"fail"`, withMeta(era, traceparent)),
					"tools/call fail", with(tool("fail"), "error.type", "tool_error"), sdktrace.Status{Code: codes.Error}, true},
				{"server error", "tools/call", params(`"name":"broken"`, withMeta(era, traceparent)),
					"tools/call broken", with(tool("broken"), "rpc.response.status_code", "-32603", "error.type", "-32603"),
					sdktrace.Status{Code: codes.Error, Description: "The database is down"}, true},
				// The caller's mistakes are recorded, but are no error of
				// the server's; and a name that is not registered names no
				// span.
				{"unknown tool", "tools/call", params(`"name":"nope"`, withMeta(era, traceparent)),
					"tools/call", with(tool("nope"), "rpc.response.status_code", "-32602"), sdktrace.Status{}, true},
				{"prompt", "prompts/get", params(`"name":"simple"`, withMeta(era, traceparent)),
					"prompts/get simple", with(common("prompts/get"), "gen_ai.prompt.name", "simple"), sdktrace.Status{}, true},
				{"unknown prompt", "prompts/get", params(`"name":"nope"`, withMeta(era, traceparent)),
					"prompts/get", with(common("prompts/get"), "gen_ai.prompt.name", "nope", "rpc.response.status_code", "-32602"),
					sdktrace.Status{}, true},
				{"resource", "resources/read", params(`"uri":"test://static-text"`, withMeta(era, traceparent)),
					"resources/read", with(common("resources/read"), "mcp.resource.uri", "test://static-text"), sdktrace.Status{}, true},
				{"missing resource", "resources/read", params(`"uri":"test://nope"`, withMeta(era, traceparent)),
					"resources/read", with(common("resources/read"), "mcp.resource.uri", "test://nope", "rpc.response.status_code", notFound),
					sdktrace.Status{}, true},
				{"bad params", "tools/call", params(`"name":7`, withMeta(era, traceparent)),
					"tools/call", with(common("tools/call"), "gen_ai.operation.name", "execute_tool", "rpc.response.status_code", "-32602"),
					sdktrace.Status{}, true},
				{"unknown method", "no/such/method", params(withMeta(era, traceparent)),
					"_OTHER", with(common("no/such/method"), "rpc.response.status_code", "-32601"), sdktrace.Status{}, true},
				{"list", "tools/list", params(withMeta(era, traceparent)),
					"tools/list", common("tools/list"), sdktrace.Status{}, true},
			} {
				t.Run(tc.name, func(t *testing.T) {
					id := fmt.Sprintf("r%d", i)
					p.call(request(id, tc.method, tc.params)) // the span ended before the response was written
					s := spanByID(t, exp, id)
					checkSpan(t, s, tc.wantName, with(tc.wantAttrs, "jsonrpc.request.id", id), tc.wantStatus, tc.parented)
					if strings.Contains(tc.params, tracestate) && s.SpanContext.TraceState().String() != "rojo=00f067aa0ba902b7" {
						t.Errorf("tracestate = %q, want the caller's", s.SpanContext.TraceState())
					}
				})
			}
			p.eof()
		})
	}
}

// checkSpan checks a server span of the runtime: its name, kind, scope,
// every attribute, status, and parent: the caller's span of the tests'
// traceparent, or none.
func checkSpan(t *testing.T, s tracetest.SpanStub, name string, attributes map[string]string, status sdktrace.Status, parented bool) {
	t.Helper()
	if s.Name != name || s.SpanKind != trace.SpanKindServer || s.InstrumentationScope.Name != "github.com/mcpbridge/mcpbridge/stdio/mcp" {
		t.Errorf("span %q, kind %v, scope %q; want %q, server, github.com/mcpbridge/mcpbridge/stdio/mcp",
			s.Name, s.SpanKind, s.InstrumentationScope.Name, name)
	}
	if diff := cmp.Diff(attributes, attrs(s)); diff != "" {
		t.Errorf("span %q attributes (-want +got):\n%s", s.Name, diff)
	}
	if s.Status != status {
		t.Errorf("span %q status = %+v, want %+v", s.Name, s.Status, status)
	}
	switch {
	case parented && (s.Parent.TraceID().String() != callerTrace || s.Parent.SpanID().String() != callerSpan || !s.Parent.IsRemote()):
		t.Errorf("span %q parent = %s/%s (remote %v), want the caller's %s/%s", s.Name,
			s.Parent.TraceID(), s.Parent.SpanID(), s.Parent.IsRemote(), callerTrace, callerSpan)
	case parented && s.SpanContext.TraceID().String() != callerTrace:
		t.Errorf("span %q is in trace %s, want the caller's %s", s.Name, s.SpanContext.TraceID(), callerTrace)
	case !parented && (s.Parent.IsValid() || s.SpanContext.TraceID().String() == callerTrace):
		t.Errorf("span %q has parent %s in trace %s, want a new root", s.Name, s.Parent.SpanID(), s.SpanContext.TraceID())
	}
}

// handle calls Handle of a new session of srv directly, without a
// transport, as Serve's workers do.
func handle(ctx context.Context, srv *mcp.Server, id, method, params string) (json.RawMessage, error) {
	sess := srv.NewSession(nil)
	defer sess.Close()
	return sess.Handle(ctx, &seam.Request{ID: json.RawMessage(id), Method: method, Params: json.RawMessage(params)})
}

// When the request's ctx ends before the handler does, Serve discards the
// answer, and the span records what the client saw instead: nothing when
// it cancelled (no failure), the -32603 of an expired deadline, or nothing
// because the server stopped. A panicking handler's span ends too, with
// the -32603 Serve answers.
func TestTracingOutcomes(t *testing.T) {
	srv, exp := tracedServer(t)
	call := params(`"name":"park"`, withMeta(stdio.Version20260728, traceparent))
	// The deadline expired and the ctx wears it as Serve's workers' do.
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancelCause := context.WithCancelCause(context.Background())
	cancelCause(fmt.Errorf("%w: the user gave up", server.ErrCancelled))
	stopped, stop := context.WithCancelCause(context.Background())
	stop(io.EOF) // Serve stops at the end of its input with this cause

	for _, tc := range []struct {
		name      string
		ctx       context.Context
		params    string
		wantAttrs map[string]string
		want      sdktrace.Status
	}{
		{"deadline", expired, call, map[string]string{"rpc.response.status_code": "-32603", "error.type": "-32603"},
			sdktrace.Status{Code: codes.Error, Description: "Request execution timed out"}},
		{"cancelled", cancelled, call, map[string]string{}, sdktrace.Status{}},
		{"stopped", stopped, call, map[string]string{"error.type": "_OTHER"},
			sdktrace.Status{Code: codes.Error, Description: "abandoned: the server stopped serving"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := `"` + tc.name + `"`
			if tc.ctx.Err() != nil {
				// park waits for ctx: it has ended already, so the events
				// it sends are not waited for.
				defer func() { <-fixtureEvents.started; <-fixtureEvents.cancelled }()
			}
			handle(tc.ctx, srv, id, "tools/call", tc.params)
			want := map[string]string{"mcp.method.name": "tools/call", "network.transport": "pipe", "mcp.protocol.version": stdio.Version20260728,
				"jsonrpc.request.id": tc.name, "gen_ai.tool.name": "park", "gen_ai.operation.name": "execute_tool"}
			for k, v := range tc.wantAttrs {
				want[k] = v
			}
			checkSpan(t, spanByID(t, exp, tc.name), "tools/call park", want, tc.want, true)
		})
	}

	t.Run("panic", func(t *testing.T) {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Fatal("Handle of the panicking tool returned")
				}
			}()
			handle(context.Background(), srv, "9", "tools/call", params(`"name":"panic"`, withMeta(stdio.Version20260728, "")))
		}()
		want := map[string]string{"mcp.method.name": "tools/call", "network.transport": "pipe", "mcp.protocol.version": stdio.Version20260728,
			"jsonrpc.request.id": "9", "gen_ai.tool.name": "panic", "gen_ai.operation.name": "execute_tool",
			"rpc.response.status_code": "-32603", "error.type": "-32603"}
		checkSpan(t, spanByID(t, exp, "9"), "tools/call panic", want, sdktrace.Status{Code: codes.Error, Description: "Request worker failed"}, false)
	})
}

// The handler's ctx carries the server span and the caller's baggage. A
// span in Serve's own ctx is linked, never the parent: with a traceparent
// in _meta the caller's span is the parent, and without one the span is a
// root.
func TestTracingContext(t *testing.T) {
	srv, exp := tracedServer(t)
	ambientTP := sdktrace.NewTracerProvider()
	defer ambientTP.Shutdown(context.Background())
	ambientCtx, ambient := ambientTP.Tracer("host").Start(context.Background(), "serve")
	defer ambient.End()

	for _, tc := range []struct {
		name     string
		meta     string
		parented bool
	}{
		{"meta", traceparent + `,"baggage":"user=ada"`, true},
		{"no meta", `"baggage":"user=ada"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := handle(ambientCtx, srv, `"`+tc.name+`"`, "tools/call", params(`"name":"whoami"`, withMeta(stdio.Version20260728, tc.meta)))
			if err != nil {
				t.Fatal(err)
			}
			s := spanByID(t, exp, tc.name)
			if got, want := field(res, "content"), `[{"type":"text","text":"`+s.SpanContext.SpanID().String()+` ada"}]`; got != want {
				t.Errorf("whoami = %s, want %s: the server span and the baggage", got, want)
			}
			want := map[string]string{"mcp.method.name": "tools/call", "network.transport": "pipe", "mcp.protocol.version": stdio.Version20260728,
				"jsonrpc.request.id": tc.name, "gen_ai.tool.name": "whoami", "gen_ai.operation.name": "execute_tool"}
			checkSpan(t, s, "tools/call whoami", want, sdktrace.Status{}, tc.parented)
			if len(s.Links) != 1 || !s.Links[0].SpanContext.Equal(ambient.SpanContext()) {
				t.Errorf("links = %v, want one to Serve's span %v", s.Links, ambient.SpanContext())
			}
		})
	}
}

// subscriptions/listen gets a span for its opening; on a legacy session it
// is the caller's mistake (-32601).
func TestTracingListen(t *testing.T) {
	srv, exp := tracedServer(t)
	sess := srv.NewSession(nil)
	defer sess.Close()
	src, err := sess.Listen(context.Background(), &seam.Request{ID: json.RawMessage(`"L"`), Method: "subscriptions/listen",
		Params: json.RawMessage(params(withMeta(stdio.Version20260728, traceparent), `"notifications":{"toolsListChanged":true}`))})
	if err != nil {
		t.Fatal(err)
	}
	src.Close(nil)
	want := map[string]string{"mcp.method.name": "subscriptions/listen", "network.transport": "pipe",
		"mcp.protocol.version": stdio.Version20260728, "jsonrpc.request.id": "L"}
	checkSpan(t, spanByID(t, exp, "L"), "subscriptions/listen", want, sdktrace.Status{}, true)

	_, err = sess.Listen(context.Background(), &seam.Request{ID: json.RawMessage(`"L2"`), Method: "subscriptions/listen",
		Params: json.RawMessage(`{"notifications":{}}`), Version: stdio.Version20251125})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("legacy listen = %v, want -32601", err)
	}
	want = map[string]string{"mcp.method.name": "subscriptions/listen", "network.transport": "pipe",
		"mcp.protocol.version": stdio.Version20251125, "jsonrpc.request.id": "L2", "rpc.response.status_code": "-32601"}
	checkSpan(t, spanByID(t, exp, "L2"), "subscriptions/listen", want, sdktrace.Status{}, false)
}

// The runtime traces through the OpenTelemetry API alone: a server built
// on it links neither the SDK nor an exporter (nor gRPC), whatever the
// program that configures tracing chooses.
func TestTracingAPIOnly(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "github.com/mcpbridge/mcpbridge/stdio/mcp")
	cmd.Dir = testkit.ModuleRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	api := false
	for pkg := range strings.FieldsSeq(string(out)) {
		switch {
		case strings.HasPrefix(pkg, "go.opentelemetry.io/otel/sdk"), strings.HasPrefix(pkg, "go.opentelemetry.io/otel/exporters"),
			strings.HasPrefix(pkg, "google.golang.org/grpc"), pkg == "github.com/mcpbridge/mcpbridge/internal/telemetry":
			t.Errorf("stdio/mcp depends on %s", pkg)
		case pkg == "go.opentelemetry.io/otel/trace":
			api = true
		}
	}
	if !api {
		t.Errorf("stdio/mcp does not depend on go.opentelemetry.io/otel/trace; is the test looking at the right package?")
	}
}
