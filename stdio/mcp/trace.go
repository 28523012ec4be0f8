package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/internal/tracemeta"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// This file traces the requests the runtime serves when Config.TracerProvider
// is set, as the OpenTelemetry semantic conventions for MCP describe a
// server span (semantic-conventions-genai, docs/gen-ai/mcp.md, "Server";
// status Development). Without a provider none of it runs.

// tracerName is the instrumentation scope of the runtime's spans: the
// package's import path.
const tracerName = "github.com/mcpbridge/mcpbridge/stdio/mcp"

// The attributes of a server span.
const (
	attrMethod          = "mcp.method.name"
	attrProtocolVersion = "mcp.protocol.version"
	attrResourceURI     = "mcp.resource.uri"
	attrRequestID       = "jsonrpc.request.id"
	attrTransport       = "network.transport"
	attrToolName        = "gen_ai.tool.name"
	attrPromptName      = "gen_ai.prompt.name"
	attrOperation       = "gen_ai.operation.name"
	attrStatusCode      = "rpc.response.status_code"
	attrErrorType       = "error.type"
)

// traceHandle is Handle under a server span.
func (ss *session) traceHandle(ctx context.Context, sreq *seam.Request) (out json.RawMessage, err error) {
	ctx, span := ss.srv.startSpan(ctx, sreq)
	var c *call
	done := false
	defer func() {
		if !done {
			// The handler panicked; Serve recovers and answers -32603
			// "Request worker failed".
			endSpan(ctx, span, spanVersion(c, sreq), false, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Request worker failed"})
		}
	}()
	out, c, err = ss.handle(ctx, sreq)
	done = true
	endSpan(ctx, span, spanVersion(c, sreq), c != nil && c.toolError, err)
	return out, err
}

// traceListen is Listen under a server span, which covers the opening of
// the stream (validation and acceptance), not its life: a stream lasts as
// long as the client wants, and a span is exported only when it ends.
func (ss *session) traceListen(ctx context.Context, sreq *seam.Request) (seam.Source, error) {
	ctx, span := ss.srv.startSpan(ctx, sreq)
	src, err := ss.listen(sreq)
	endSpan(ctx, span, spanVersion(nil, sreq), false, err)
	return src, err
}

// startSpan starts the server span of sreq. Its parent is the span
// context that params._meta carries (traceparent, tracestate); with none
// it is a new root. A span in ctx itself (Serve's ctx) is not the parent
// but a link, as the conventions ask ("Context propagation"). The returned
// ctx, which the handler gets, carries the span and any baggage of _meta.
func (s *Server) startSpan(ctx context.Context, sreq *seam.Request) (context.Context, trace.Span) {
	method := sreq.Method
	name := method
	if !knownMethod(method) {
		// A client may send any method name; like an unknown resource URI,
		// it must not become a span name.
		name = "_OTHER"
	}
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, attribute.String(attrMethod, method), attribute.String(attrTransport, "pipe"))
	if len(sreq.ID) > 0 {
		attrs = append(attrs, attribute.String(attrRequestID, idText(sreq.ID)))
	}
	params := sreq.Params
	switch method {
	case "tools/call", "prompts/get":
		key := attrPromptName
		if method == "tools/call" {
			key = attrToolName
			attrs = append(attrs, attribute.String(attrOperation, "execute_tool"))
		}
		if target := stringMember(params, "name"); target != "" {
			attrs = append(attrs, attribute.String(key, target))
			if s.registered(method, target) {
				name += " " + target
			}
		}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		// The URI is an attribute, never in the name: its cardinality is
		// unbounded.
		if raw, ok := rawjson.Member(params, "uri"); ok {
			if uri, ok := rawjson.StringValue(raw); ok {
				attrs = append(attrs, attribute.String(attrResourceURI, uri))
			}
		}
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...)}
	if ambient := trace.SpanContextFromContext(ctx); ambient.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: ambient}))
	}
	// Only _meta may give the span a parent: the ambient span is hidden
	// from the tracer, which makes a root when _meta has no traceparent.
	meta, _ := rawjson.Member(params, "_meta")
	parent := tracemeta.Extract(trace.ContextWithSpanContext(ctx, trace.SpanContext{}), meta)
	return s.tracer.Start(parent, name, opts...)
}

// registered reports whether target, the name of a tools/call or
// prompts/get, is a registered tool or prompt: only those name spans, so
// that a client cannot make span names of unbounded cardinality by asking
// for tools that do not exist.
func (s *Server) registered(method, target string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ok bool
	if method == "tools/call" {
		_, ok = s.tools[target]
	} else {
		_, ok = s.prompts[target]
	}
	return ok
}

// knownMethod reports whether method is a request of some era the
// runtime knows, served or refused.
func knownMethod(method string) bool {
	return method == "subscriptions/listen" || slices.Contains(legacyMethods, method) ||
		slices.Contains(protocol.ModernMethods, method) || slices.Contains(protocol.InputMethods, method)
}

// idText is a request id as jsonrpc.request.id has it: a string id's
// value, a number's digits.
func idText(id json.RawMessage) string {
	if s, ok := rawjson.StringValue(id); ok {
		return s
	}
	return string(id)
}

// spanVersion is mcp.protocol.version: the version the request was served
// under (the negotiated one for initialize); when it was refused before
// that was known, the version its _meta asked for, else the session's.
func spanVersion(c *call, sreq *seam.Request) string {
	if c != nil && c.version != "" {
		return c.version
	}
	if _, v, ok := protocol.MetaVersion(sreq.Params); ok {
		return v
	}
	return sreq.Version
}

// callerFault reports whether a JSON-RPC error code says the request was
// wrong rather than the server: such an error response leaves a server
// span's status unset (docs/gen-ai/mcp.md; the conventions' "Recording
// errors").
func callerFault(code int64) bool {
	switch code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams,
		jsonrpc.CodeResourceNotFound:
		return true
	}
	return false
}

// endSpan records the outcome the client sees and ends span. err is what
// Handle or Listen returned; ctx is the handler's.
func endSpan(ctx context.Context, span trace.Span, version string, toolError bool, err error) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	if version != "" {
		span.SetAttributes(attribute.String(attrProtocolVersion, version))
	}
	if ctx.Err() != nil {
		// Serve discards a late answer (docs/stdio.md, "Admission, ids
		// and cancellation"): what the client saw depends on why ctx ended.
		switch {
		case errors.Is(context.Cause(ctx), server.ErrCancelled):
			// The client withdrew the request and gets no response: its
			// choice, not a failure.
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			spanError(span, jsonrpc.CodeInternalError, "Request execution timed out")
		default:
			// Serve is stopping: no response at all.
			span.SetAttributes(attribute.String(attrErrorType, "_OTHER"))
			span.SetStatus(codes.Error, "abandoned: the server stopped serving")
		}
		return
	}
	switch {
	case err != nil:
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) {
			rpc = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"} // as Serve sends it
		}
		spanError(span, rpc.Code, rpc.Message)
	case toolError:
		// A result the model sees as a failure (isError: true).
		span.SetAttributes(attribute.String(attrErrorType, "tool_error"))
		span.SetStatus(codes.Error, "")
	}
}

// spanError records a JSON-RPC error response: its code always, and an
// error status (described by its message) unless the caller was at fault.
func spanError(span trace.Span, code int64, message string) {
	text := strconv.FormatInt(code, 10)
	span.SetAttributes(attribute.String(attrStatusCode, text))
	if callerFault(code) {
		return
	}
	span.SetAttributes(attribute.String(attrErrorType, text))
	span.SetStatus(codes.Error, message)
}
