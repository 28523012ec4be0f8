package door

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// tracing is a tracer provider whose ended spans a test reads.
func tracing(t *testing.T, sampler sdktrace.Sampler) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	t.Helper()
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	return tp, sr
}

// attrs are a span's attributes by key, as text.
func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// observations is how many observations the histogram has under labels
// (every label of the series, in its order).
func observations(t *testing.T, o *Observer, labels ...string) uint64 {
	t.Helper()
	h, err := o.duration.GetMetricWithLabelValues(labels...)
	if err != nil {
		t.Fatal(err)
	}
	var pb dto.Metric
	if err := h.(prometheus.Metric).Write(&pb); err != nil {
		t.Fatal(err)
	}
	return pb.GetHistogram().GetSampleCount()
}

// TestPassCallObserved: a request through its pass to a real child is
// observed as the MCP conventions say: a client span named after the
// method and tool, child of the caller's span, with the child's protocol
// version, pid and the request's JSON-RPC id; its traceparent reaches the
// child in params._meta, merged with the caller's own _meta; the
// histogram counts it under the server, method and tool, and failures
// by their error.type.
func TestPassCallObserved(t *testing.T) {
	c := startChild(t)
	tp, sr := tracing(t, sdktrace.AlwaysSample())
	reg := prometheus.NewRegistry()
	o, err := NewObserver(reg, tp)
	if err != nil {
		t.Fatal(err)
	}
	d := New(nil, nil, Limits{})
	d.Obs = o
	srv := &Server{Name: "s"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	parentCtx, parent := tp.Tracer("test").Start(ctx, "caller")

	call := func(tool string, opts *stdio.CallOptions) (json.RawMessage, error) {
		t.Helper()
		params := json.RawMessage(`{"name":"` + tool + `","arguments":{}}`)
		pass, ref := d.Admit(parentCtx, NewRequest(ViaGRPC, srv, "tools/call", params))
		if ref != nil {
			t.Fatal(ref.CallError)
		}
		defer pass.Release()
		return pass.Call(parentCtx, c, params, opts, false)
	}

	var seenID int64 = -1
	res, err := call("meta", &stdio.CallOptions{Meta: json.RawMessage(`{"mine":"kept"}`), OnRequestID: func(id int64) { seenID = id }})
	if err != nil {
		t.Fatal(err)
	}
	parent.End()
	spans := sr.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans ended, want the client span and the caller's", len(spans))
	}
	span := spans[0]
	if span.Name() != "tools/call meta" || span.SpanKind() != trace.SpanKindClient || span.Status().Code != codes.Unset {
		t.Errorf("span %q kind %v status %v", span.Name(), span.SpanKind(), span.Status())
	}
	if span.Parent().SpanID() != parent.SpanContext().SpanID() || span.SpanContext().TraceID() != parent.SpanContext().TraceID() {
		t.Errorf("the client span's parent is %v, want the caller's span %v", span.Parent(), parent.SpanContext())
	}
	want := map[string]string{
		"mcp.method.name": "tools/call", "network.transport": "pipe", "mcpbridge.server": "s",
		"mcp.protocol.version": c.Protocol(), "process.pid": strconv.Itoa(c.Pid()),
		"gen_ai.tool.name": "meta", "gen_ai.operation.name": "execute_tool", "jsonrpc.request.id": strconv.FormatInt(seenID, 10),
	}
	got := attrs(span)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("span attribute %s = %q, want %q", k, got[k], v)
		}
	}
	if seenID < 0 {
		t.Errorf("the caller's OnRequestID was not called")
	}
	// What the child saw in _meta: the caller's member and the span's traceparent.
	var tr struct {
		Content []struct{ Text string }
	}
	if err := json.Unmarshal(res, &tr); err != nil || len(tr.Content) != 1 {
		t.Fatalf("result %s", res)
	}
	meta := json.RawMessage(tr.Content[0].Text)
	wantParent := fmt.Sprintf("00-%s-%s-01", span.SpanContext().TraceID(), span.SpanContext().SpanID())
	if tp, _ := rawjson.Member(meta, "traceparent"); string(tp) != strconv.Quote(wantParent) {
		t.Errorf("the child's _meta.traceparent = %s, want %q (_meta %s)", tp, wantParent, meta)
	}
	if mine, _ := rawjson.Member(meta, "mine"); string(mine) != `"kept"` {
		t.Errorf("the caller's own _meta member was lost: %s", meta)
	}
	if n := observations(t, o, "s", "tools/call", "meta", "", "", ""); n != 1 {
		t.Errorf("%d observations of the call, want 1", n)
	}

	// A JSON-RPC error: the span's status and error.type, the histogram's
	// error_type, and the name that never succeeded as _other.
	sr.Reset()
	_, err = call("fail", nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("fail = %v, want -32602", err)
	}
	span = sr.Ended()[0]
	got = attrs(span)
	if span.Status().Code != codes.Error || got["error.type"] != "-32602" || got["rpc.response.status_code"] != "-32602" {
		t.Errorf("a failed call's span: status %v, attributes %v", span.Status(), got)
	}
	if n := observations(t, o, "s", "tools/call", OtherLabel, "", "", "-32602"); n != 1 {
		t.Errorf("%d observations of the failed call under _other, want 1", n)
	}

	// A tool error: the tool exists, so its name is a label.
	sr.Reset()
	if _, err := call("broken", nil); err != nil {
		t.Fatal(err)
	}
	span = sr.Ended()[0]
	if got := attrs(span); span.Status().Code != codes.Error || got["error.type"] != "tool_error" {
		t.Errorf("a tool error's span: status %v, attributes %v", span.Status(), got)
	}
	if n := observations(t, o, "s", "tools/call", "broken", "", "", "tool_error"); n != 1 {
		t.Errorf("%d observations of the tool error, want 1", n)
	}

	// Without an observer the call is made all the same.
	d.Obs = nil
	sr.Reset()
	if _, err := call("meta", nil); err != nil {
		t.Fatal(err)
	}
	if n := len(sr.Ended()); n != 0 {
		t.Errorf("%d spans without an observer", n)
	}
}

// TestSpanParentFromMeta: a tunnel's request whose _meta carries a
// traceparent is the parent of its client span, before the context's.
func TestSpanParentFromMeta(t *testing.T) {
	tp, sr := tracing(t, sdktrace.AlwaysSample())
	o, err := NewObserver(nil, tp)
	if err != nil {
		t.Fatal(err)
	}
	const traceID, spanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	req := ParseRequest(ViaConnect, &Server{Name: "s"}, "prompts/get",
		json.RawMessage(`{"name":"greet","_meta":{"traceparent":"00-`+traceID+`-`+spanID+`-01"}}`))
	ctx, other := tp.Tracer("test").Start(context.Background(), "another parent")
	op := o.begin(ctx, "s", nil, req, true)
	op.end(json.RawMessage(`{}`), nil)
	other.End()
	span := sr.Ended()[0]
	if span.Parent().TraceID().String() != traceID || span.Parent().SpanID().String() != spanID || !span.Parent().IsRemote() {
		t.Errorf("parent = %v, want the remote span of _meta", span.Parent())
	}
	if got := attrs(span); span.Name() != "prompts/get greet" || got["gen_ai.prompt.name"] != "greet" {
		t.Errorf("span %q, attributes %v", span.Name(), got)
	}
	// Not from _meta: the context's span is the parent.
	sr.Reset()
	op = o.begin(ctx, "s", nil, req, false)
	op.end(nil, nil)
	if span := sr.Ended()[0]; span.Parent().SpanID() != other.SpanContext().SpanID() {
		t.Errorf("without fromMeta the parent is %v, want the context's span", span.Parent())
	}
}

// TestSpanNames: the span is named after the method, and the tool or
// prompt; a resource request carries its URI; a request that names
// several things (or none) names none of them.
func TestSpanNames(t *testing.T) {
	tp, sr := tracing(t, sdktrace.AlwaysSample())
	o, err := NewObserver(nil, tp)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		method, params, name, key, value string
	}{
		{"resources/read", `{"uri":"demo://a"}`, "resources/read", "mcp.resource.uri", "demo://a"},
		{"prompts/get", `{"name":"p"}`, "prompts/get p", "gen_ai.prompt.name", "p"},
		{"tools/call", `{"name":"t"}`, "tools/call t", "gen_ai.tool.name", "t"},
		{"tools/call", `{}`, "tools/call", "", ""},
		{"subscriptions/listen", `{"notifications":{"resourceSubscriptions":["a://1","a://2"]}}`, "subscriptions/listen", "", ""},
		{"tools/list", `{}`, "tools/list", "", ""},
	} {
		sr.Reset()
		op := o.begin(context.Background(), "s", nil, NewRequest(ViaGRPC, nil, tc.method, json.RawMessage(tc.params)), false)
		op.end(nil, errors.New("not a JSON-RPC error"))
		span := sr.Ended()[0]
		got := attrs(span)
		if span.Name() != tc.name || tc.key != "" && got[tc.key] != tc.value {
			t.Errorf("%s %s: span %q, attributes %v; want %q with %s=%s", tc.method, tc.params, span.Name(), got, tc.name, tc.key, tc.value)
		}
		for _, k := range []attribute.Key{"gen_ai.tool.name", "gen_ai.prompt.name", "mcp.resource.uri"} {
			if _, ok := got[string(k)]; ok && string(k) != tc.key {
				t.Errorf("%s %s: attribute %s set", tc.method, tc.params, k)
			}
		}
		if got["error.type"] != "_OTHER" || span.Status().Description != "not a JSON-RPC error" {
			t.Errorf("%s: an error of no JSON-RPC code: %v, %v", tc.method, got, span.Status())
		}
		if _, ok := got["process.pid"]; ok {
			t.Errorf("a span without a child has a pid")
		}
	}
}

// TestUnsampled: an unsampled request still carries its trace context to
// the child (so the child's spans join the trace), and nothing more: no
// request id hook, no span recorded.
func TestUnsampled(t *testing.T) {
	tp, sr := tracing(t, sdktrace.NeverSample())
	o, err := NewObserver(nil, tp)
	if err != nil {
		t.Fatal(err)
	}
	op := o.begin(context.Background(), "s", nil, NewRequest(ViaGRPC, nil, "tools/call", json.RawMessage(`{"name":"t"}`)), false)
	opts := op.options(nil)
	if opts == nil || opts.OnRequestID != nil {
		t.Fatalf("options = %+v, want the trace context only", opts)
	}
	tpv, _ := rawjson.Member(opts.Meta, "traceparent")
	if s, _ := rawjson.StringValue(tpv); len(s) != 55 || s[53:] != "00" {
		t.Errorf("traceparent = %s, want one with the unsampled flag", tpv)
	}
	op.end(nil, nil)
	if n := len(sr.Ended()); n != 0 {
		t.Errorf("%d unsampled spans recorded", n)
	}
}

// TestMetricsOnly: an observer with metrics and no tracing records the
// histogram and leaves the call's options alone; one with neither is nil
// and every method of it a no-op.
func TestMetricsOnly(t *testing.T) {
	reg := prometheus.NewRegistry()
	o, err := NewObserver(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &stdio.CallOptions{Timeout: time.Second}
	op := o.begin(context.Background(), "s", nil, NewRequest(ViaGRPC, nil, "resources/read", json.RawMessage(`{"uri":"a://x"}`)), false)
	if got := op.options(opts); got != opts {
		t.Errorf("options without tracing = %+v, want the caller's", got)
	}
	op.end(json.RawMessage(`{}`), nil)
	if n := observations(t, o, "s", "resources/read", "", "", "a://x", ""); n != 1 {
		t.Errorf("%d observations, want 1", n)
	}
	if _, err := NewObserver(reg, nil); err == nil {
		t.Errorf("a second observer registered the same histogram")
	}

	none, err := NewObserver(nil, nil)
	if none != nil || err != nil {
		t.Fatalf("NewObserver(nil, nil) = %v, %v; want nil", none, err)
	}
	op = none.begin(context.Background(), "s", nil, NewRequest(ViaGRPC, nil, "ping", nil), false)
	if op != nil || op.options(opts) != opts {
		t.Errorf("a nil observer's operation is not a no-op")
	}
	op.end(nil, nil)
	none.Forget("s")
	none.Remember("s")
	if none.Forgotten() != nil {
		t.Errorf("a nil observer has a Forgotten set")
	}
}

// TestForget: a server a reload removed loses its series and label sets,
// and records none while its calls drain; added again, it records anew.
func TestForget(t *testing.T) {
	reg := prometheus.NewRegistry()
	o, err := NewObserver(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	record := func(server, tool string) {
		op := o.begin(context.Background(), server, nil, NewRequest(ViaGRPC, nil, "tools/call", json.RawMessage(`{"name":"`+tool+`"}`)), false)
		op.end(json.RawMessage(`{}`), nil)
	}
	record("gone", "t")
	record("kept", "t")
	if n := testutil.CollectAndCount(o.duration); n != 2 {
		t.Fatalf("%d series, want 2", n)
	}
	o.Forget("gone")
	if n := testutil.CollectAndCount(o.duration); n != 1 {
		t.Errorf("%d series after Forget, want the kept server's", n)
	}
	if _, ok := o.names[nameKey{"gone", access.Tool}]; ok {
		t.Errorf("a forgotten server's label set is kept")
	}
	record("gone", "t") // a call that drains
	if n := testutil.CollectAndCount(o.duration); n != 1 {
		t.Errorf("a draining call on a forgotten server brought its series back")
	}
	if f := o.Forgotten(); f.Begin("gone") {
		t.Errorf("Forgotten().Begin of a forgotten server = true")
	} else {
		f.End()
	}
	o.Remember("gone")
	record("gone", "t")
	if n := observations(t, o, "gone", "tools/call", "t", "", "", ""); n != 1 {
		t.Errorf("%d observations once remembered, want 1", n)
	}
}

// TestForgotten: Forget waits for the recordings in progress and drops
// the series while none can start; a forgotten server's recordings write
// nothing until Remember.
func TestForgotten(t *testing.T) {
	var f Forgotten
	if !f.Begin("s") {
		t.Fatal("the zero value has s forgotten")
	}
	forgot := make(chan struct{})
	go func() {
		f.Forget("s", func() {
			if f.mu.TryRLock() {
				f.mu.RUnlock()
				t.Errorf("a recording could start while the series were dropped")
			}
		})
		close(forgot)
	}()
	f.End() // the recording in progress ends: Forget may go on
	select {
	case <-forgot:
	case <-time.After(30 * time.Second):
		t.Fatal("Forget did not return once the recording ended")
	}
	if f.Begin("s") {
		t.Errorf("a forgotten server may record")
	}
	f.End()
	if !f.Begin("other") {
		t.Errorf("another server is forgotten")
	}
	f.End()
	f.Remember("s")
	if !f.Begin("s") {
		t.Errorf("a remembered server may not record")
	}
	f.End()
}
