// Package tracemeta carries OpenTelemetry trace context and baggage in an
// MCP message's params._meta, where the MCP semantic conventions put it
// (semantic-conventions-genai, docs/gen-ai/mcp.md, "Context propagation";
// SEP-414): the W3C traceparent, tracestate and baggage, unprefixed. It
// depends on the OpenTelemetry API only, never on the SDK or an exporter,
// so that the stdio MCP runtime (package stdio/mcp) can use it without
// linking them into every server built on it; package internal/telemetry,
// which configures the SDK, re-exports it.
package tracemeta

import (
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel/propagation"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// Propagator carries W3C trace context and baggage: in gRPC metadata and
// in params._meta.
var Propagator propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// keys are the _meta members Propagator reads and writes.
var keys = []string{"traceparent", "tracestate", "baggage"}

// Extract returns ctx with the remote span context (and baggage) that a
// request's _meta carries, if any. meta is the _meta object's JSON text,
// valid JSON (nil when there is none); members that are not strings are
// ignored.
func Extract(ctx context.Context, meta json.RawMessage) context.Context {
	if len(meta) == 0 {
		return ctx
	}
	c := propagation.MapCarrier{}
	for _, k := range keys {
		if raw, ok := rawjson.Member(meta, k); ok {
			if v, ok := rawjson.StringValue(raw); ok {
				c[k] = v
			}
		}
	}
	if len(c) == 0 {
		return ctx
	}
	return Propagator.Extract(ctx, c)
}

// AppendInject returns meta, the text of a _meta object (nil for none),
// with the members that carry ctx's span context and baggage set in it.
// It is Inject for a hot path: no map, and one allocation for the object
// when meta is nil.
func AppendInject(ctx context.Context, meta json.RawMessage) json.RawMessage {
	var c appendCarrier
	Propagator.Inject(ctx, &c)
	if c.n == 0 {
		return meta
	}
	if len(meta) == 0 {
		b := make([]byte, 0, 96)
		b = append(b, '{')
		for i := range c.n {
			if i > 0 {
				b = append(b, ',')
			}
			b = rawjson.AppendString(b, c.kv[i][0])
			b = append(b, ':')
			b = rawjson.AppendString(b, c.kv[i][1])
		}
		return append(b, '}')
	}
	for i := range c.n {
		meta, _ = rawjson.SetMember(meta, c.kv[i][0], rawjson.AppendString(nil, c.kv[i][1]))
	}
	return meta
}

// appendCarrier collects what a propagator injects, in order: at most the
// three keys of Propagator.
type appendCarrier struct {
	kv [3][2]string
	n  int
}

func (c *appendCarrier) Get(string) string { return "" }
func (c *appendCarrier) Keys() []string    { return nil }
func (c *appendCarrier) Set(k, v string) {
	if c.n < len(c.kv) {
		c.kv[c.n] = [2]string{k, v}
		c.n++
	}
}
