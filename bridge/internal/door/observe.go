package door

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/tracemeta"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file observes each request the bridge sends a child, as the
// OpenTelemetry semantic conventions for MCP describe an MCP client
// (docs/observability.md): the mcp.client.operation.duration histogram,
// and a client span whose context travels to the child in params._meta.
// With neither metrics nor tracing configured the Service has no
// observer, and a call pays one nil check.

// OperationBuckets are the boundaries the MCP conventions give
// mcp.client.operation.duration, in seconds.
var OperationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// maxLabelValues bounds the tool, prompt and resource names each server
// contributes to the metrics' labels. A name is admitted when a call
// naming it succeeds (a tool error counts: the tool exists), so a caller
// cannot fill the set with names that do not exist; beyond the bound, and
// for names not admitted, the label is "_other".
const maxLabelValues = 100

// OtherLabel stands for the names over maxLabelValues.
const OtherLabel = "_other"

// instrumentation is the tracer's instrumentation scope.
const instrumentation = "github.com/mcpbridge/mcpbridge/bridge"

// Observer holds the instruments of the calls to children.
type Observer struct {
	tracer   trace.Tracer             // nil: no tracing
	duration *prometheus.HistogramVec // nil: no metrics

	mu    sync.Mutex
	names map[nameKey]map[string]struct{} // admitted label values

	forgotten Forgotten // servers a reload removed: no series recorded for them
}

type nameKey struct {
	server string
	kind   access.Kind
}

// NewObserver makes the observer that registers its histogram with reg
// and traces with tp; nil, a no-op, when it has neither.
func NewObserver(reg prometheus.Registerer, tp trace.TracerProvider) (*Observer, error) {
	if reg == nil && tp == nil {
		return nil, nil
	}
	o := &Observer{names: map[nameKey]map[string]struct{}{}}
	if tp != nil {
		o.tracer = tp.Tracer(instrumentation)
	}
	if reg != nil {
		o.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mcp_client_operation_duration_seconds",
			Help:    "The duration of the MCP requests the bridge sent its children, from the time each was sent until its response arrived (OpenTelemetry's mcp.client.operation.duration).",
			Buckets: OperationBuckets,
		}, []string{"server", "mcp_method_name", "gen_ai_tool_name", "gen_ai_prompt_name", "mcp_resource_uri", "error_type"})
		if err := reg.Register(o.duration); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// operation is one request to a child being observed.
type operation struct {
	o       *Observer
	server  string
	method  string
	kind    access.Kind // what name names
	name    string      // the tool, prompt or resource
	start   time.Time
	span    trace.Span // nil without tracing
	spanCtx context.Context
}

// begin starts observing a request of method to child c of srv, about
// the tool, resource or prompt of kind that names names (decoded once, at
// the door); ctx is the parent of its span. nil (a no-op) without an
// observer.
//
// fromMeta takes the span's parent from the request's own _meta when it
// carries one (a tunnel's client that traces), before ctx's.
func (o *Observer) begin(ctx context.Context, srv string, c *stdio.Client, req *Request, fromMeta bool) *operation {
	method, kind, names := req.Method, req.Kind, req.Names
	if o == nil {
		return nil
	}
	op := &operation{o: o, server: srv, method: method, start: time.Now()}
	if len(names) == 1 && kind != access.Server {
		op.kind, op.name = kind, names[0]
	}
	if o.tracer == nil {
		return op
	}
	if fromMeta {
		ctx = tracemeta.Extract(ctx, req.Meta)
	}
	spanName := method
	switch {
	case method == "tools/call" && op.name != "", method == "prompts/get" && op.name != "":
		spanName += " " + op.name
	}
	op.spanCtx, op.span = o.tracer.Start(ctx, spanName, trace.WithSpanKind(trace.SpanKindClient))
	if !op.span.IsRecording() {
		return op // not sampled: only its context goes to the child
	}
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs,
		attribute.String("mcp.method.name", method),
		attribute.String("network.transport", "pipe"),
		attribute.String("mcpbridge.server", srv),
	)
	if req.Aggregate != nil {
		attrs = append(attrs, attribute.String("mcpbridge.aggregate", req.Aggregate.Server))
	}
	if c != nil {
		attrs = append(attrs, attribute.String("mcp.protocol.version", c.Protocol()), attribute.Int("process.pid", c.Pid()))
	}
	switch {
	case method == "tools/call" && op.name != "":
		attrs = append(attrs, attribute.String("gen_ai.tool.name", op.name), attribute.String("gen_ai.operation.name", "execute_tool"))
	case op.kind == access.Resource && op.name != "":
		attrs = append(attrs, attribute.String("mcp.resource.uri", op.name))
	case op.kind == access.Prompt && op.name != "":
		attrs = append(attrs, attribute.String("gen_ai.prompt.name", op.name))
	}
	op.span.SetAttributes(attrs...)
	return op
}

// options returns opts with what the child needs to continue the trace:
// the span's traceparent (and tracestate, baggage) merged into the
// request's _meta, and a hook that records the request's JSON-RPC id.
func (op *operation) options(opts *stdio.CallOptions) *stdio.CallOptions {
	if op == nil || op.span == nil || !op.span.SpanContext().IsValid() {
		return opts
	}
	o := stdio.CallOptions{}
	if opts != nil {
		o = *opts
	}
	o.Meta = tracemeta.AppendInject(op.spanCtx, o.Meta)
	if !op.span.IsRecording() {
		return &o
	}
	span := op.span
	next := o.OnRequestID
	o.OnRequestID = func(id int64) {
		span.SetAttributes(attribute.String("jsonrpc.request.id", strconv.FormatInt(id, 10)))
		if next != nil {
			next(id)
		}
	}
	return &o
}

// end records the request's outcome: res and err as the child answered.
func (op *operation) end(res json.RawMessage, err error) {
	if op == nil {
		return
	}
	errType, code := errorType(res, err)
	if op.span != nil {
		if code != "" {
			op.span.SetAttributes(attribute.String("rpc.response.status_code", code))
		}
		if errType != "" {
			op.span.SetAttributes(attribute.String("error.type", errType))
			msg := errType
			if err != nil {
				msg = err.Error()
			}
			op.span.SetStatus(codes.Error, msg)
		}
		op.span.End()
	}
	if op.o.duration == nil {
		return
	}
	ok := op.o.forgotten.Begin(op.server)
	defer op.o.forgotten.End()
	if !ok {
		return // removed by a reload while this call drained
	}
	var tool, prompt, uri string
	if op.kind != access.Server && op.name != "" {
		label := op.o.label(op.server, op.kind, op.name, err == nil)
		switch op.kind {
		case access.Tool:
			tool = label
		case access.Prompt:
			prompt = label
		case access.Resource:
			uri = label
		}
	}
	op.o.duration.WithLabelValues(op.server, op.method, tool, prompt, uri, errType).Observe(time.Since(op.start).Seconds())
}

// label is the metric label for name: itself when admitted, or admitted
// now (the call succeeded and the server's set has room), else "_other".
func (o *Observer) label(server string, kind access.Kind, name string, ok bool) string {
	k := nameKey{server, kind}
	o.mu.Lock()
	defer o.mu.Unlock()
	set := o.names[k]
	if _, known := set[name]; known {
		return name
	}
	if !ok || len(set) >= maxLabelValues {
		return OtherLabel
	}
	if set == nil {
		set = map[string]struct{}{}
		o.names[k] = set
	}
	set[name] = struct{}{}
	return name
}

// Forget drops a removed server's label sets and its series, so that
// /metrics no longer shows a server the bridge no longer fronts, and keeps
// calls still draining on it from recording them again, until Remember.
func (o *Observer) Forget(server string) {
	if o == nil {
		return
	}
	o.forgotten.Forget(server, func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		for k := range o.names {
			if k.server == server {
				delete(o.names, k)
			}
		}
		if o.duration != nil {
			o.duration.DeletePartialMatch(prometheus.Labels{"server": server})
		}
	})
}

// Remember undoes Forget for a server added again: its calls record anew.
func (o *Observer) Remember(server string) {
	if o != nil {
		o.forgotten.Remember(server)
	}
}

// Forgotten is the set of servers Forget removed, for the bridge's other
// series that carry a server label to share (nil for a nil Observer).
func (o *Observer) Forgotten() *Forgotten {
	if o == nil {
		return nil
	}
	return &o.forgotten
}

// errorType is the conventions' error.type of an outcome and its JSON-RPC
// code, if any: the code as text for a JSON-RPC error (every code is an
// error to a client; the stdio Client's errors all are), "tool_error" for a
// tools/call result with isError, "_OTHER" otherwise.
func errorType(res json.RawMessage, err error) (errType, code string) {
	if err == nil {
		if IsToolError(res) {
			return "tool_error", ""
		}
		return "", ""
	}
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		c := strconv.FormatInt(e.Code, 10)
		return c, c
	}
	return "_OTHER", ""
}
