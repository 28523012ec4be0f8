package grpcdoor

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
)

// ServerMetadataKey is the request metadata key that names the fronted
// server, like the server field of every request (package bridge's
// ServerMetadataKey, which is this one).
const ServerMetadataKey = "mcp-server"

// The fields of a BridgeService call's log line besides those of the
// logging interceptor (grpc.method, grpc.code, grpc.time_ms, peer.address
// and the like): what the call is about, never its payload (arguments,
// params_json, message_json) nor any metadata value but mcp-server.
const (
	// logServer is the server the call is for: the mcp-server metadata,
	// else the request's server field, else the only server's name. Every
	// method but ListServers has it (possibly empty: an unnamed server).
	logServer = "server"
	// logMCPMethod is the MCP method the call makes (mcpMethods).
	logMCPMethod = "mcp.method"
	// logMCPName is the tool or prompt name, or the resource URI.
	logMCPName = "mcp.name"
	// logTraceID and logSpanID are the call's server span, when traced.
	logTraceID = "trace_id"
	logSpanID  = "span_id"
)

// mcpMethods maps BridgeService's methods to the MCP method their log
// line names. Call and CallStream name the request's method field; the
// methods that are not listed (GetServer, ListServers,
// RespondToServerRequest) name none.
var mcpMethods = map[string]string{
	"CallTool":              "tools/call",
	"CallToolStream":        "tools/call",
	"ListTools":             "tools/list",
	"ListResources":         "resources/list",
	"ListResourceTemplates": "resources/templates/list",
	"ReadResource":          "resources/read",
	"ListPrompts":           "prompts/list",
	"GetPrompt":             "prompts/get",
	"Complete":              "completion/complete",
	"Subscribe":             "subscribe",
	"Connect":               "connect",
	"Ping":                  "ping",
	"Call":                  "", // the request's method
	"CallStream":            "",
}

// LogFields are the interceptors that give a BridgeService call's log
// line its fields (Unary, Stream), placed before the logging interceptor
// that writes it.
type LogFields struct{ core Core }

// NewLogFields are the log fields of calls on core.
func NewLogFields(core Core) LogFields { return LogFields{core: core} }

// callFields returns the log fields of a call of fullMethod with the
// request req: nil when it is not known yet (a stream's, at its start).
func (s LogFields) callFields(ctx context.Context, fullMethod string, req any) logging.Fields {
	method := fullMethod[strings.LastIndexByte(fullMethod, '/')+1:]
	var f logging.Fields
	if method != "ListServers" {
		f = append(f, logServer, s.ServerName(ctx, req))
	}
	mcpMethod, ok := mcpMethods[method]
	if r, isCall := req.(interface{ GetMethod() string }); ok && mcpMethod == "" && isCall {
		mcpMethod = r.GetMethod()
	}
	if mcpMethod != "" {
		f = append(f, logMCPMethod, door.TruncateLogValue(mcpMethod))
	}
	switch r := req.(type) {
	case interface{ GetName() string }: // CallTool, CallToolStream, GetPrompt
		f = append(f, logMCPName, door.TruncateLogValue(r.GetName()))
	case interface{ GetUri() string }: // ReadResource
		f = append(f, logMCPName, door.TruncateLogValue(r.GetUri()))
	}
	return f
}

// ServerName is the name of the server a call is for, as routing
// finds it: the mcp-server metadata, else the request's server field,
// else the only server's name.
func (s LogFields) ServerName(ctx context.Context, req any) string {
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(ServerMetadataKey); len(v) > 0 {
			return door.TruncateLogValue(v[0])
		}
	}
	if r, ok := req.(interface{ GetServer() string }); ok && r.GetServer() != "" {
		return door.TruncateLogValue(r.GetServer())
	}
	if set := s.core.Servers(); len(set) == 1 {
		for name := range set {
			return name
		}
	}
	return ""
}

// Unary injects a unary call's fields into the context that the logging
// interceptor after it reads.
func (s LogFields) Unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	return handler(logging.InjectFields(ctx, append(s.callFields(ctx, info.FullMethod, req), traceFields(ctx)...)), req)
}

// traceFields are the trace and span ids of the call's server span, when
// it is traced, so that its log line leads to its trace.
func traceFields(ctx context.Context) logging.Fields {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return nil
	}
	return logging.Fields{logTraceID, sc.TraceID().String(), logSpanID, sc.SpanID().String()}
}

// Stream adds a stream's fields to those of the logging
// interceptor around it (logging.AddFields): those it knows at the start
// (the metadata's server, the MCP method), then those of the first
// message the handler receives. Every BridgeService handler receives its
// first message in its own goroutine, before it returns and the
// interceptor logs the fields, so that the fields, which AddFields
// mutates without a lock, are never read and written at once.
func (s LogFields) Stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	logging.AddFields(ss.Context(), append(s.callFields(ss.Context(), info.FullMethod, nil), traceFields(ss.Context())...))
	return handler(srv, &fieldsStream{ServerStream: ss, s: s, method: info.FullMethod})
}

// fieldsStream adds the fields of the first message it receives to the
// call's log fields.
type fieldsStream struct {
	grpc.ServerStream
	s        LogFields
	method   string
	received atomic.Bool
}

func (f *fieldsStream) RecvMsg(m any) error {
	if err := f.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if f.received.CompareAndSwap(false, true) {
		logging.AddFields(f.Context(), f.s.callFields(f.Context(), f.method, m))
	}
	return nil
}
