// Package mcp is the MCP runtime of mcpbridge's stdio server: a Go
// developer registers tools, resources, prompts and completions on a
// [Server] and calls [Server.Run], and has an MCP server on stdin and
// stdout that speaks every protocol era at once (docs/protocol.md).
//
//	func main() {
//		srv, err := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"}, mcp.Config{})
//		if err != nil {
//			log.Fatal(err)
//		}
//		type forecastArgs struct {
//			City string `json:"city" jsonschema:"the city"`
//		}
//		mcp.AddTool(srv, mcp.Tool{Name: "forecast", Description: "Tomorrow's forecast for a city"},
//			func(ctx context.Context, req *mcp.CallToolRequest, in forecastArgs) (string, error) {
//				return "Sunny in " + in.City, nil // in.City is there: the runtime checked
//			})
//		if err := srv.Run(context.Background()); err != nil {
//			log.Fatal(err)
//		}
//	}
//
// Run takes standard output first, so that a stray print lands on stderr
// instead of corrupting the protocol, serves until stdin ends, and at
// SIGINT or SIGTERM lets the requests in flight finish before it returns
// nil. Anything printed before Run has already reached the client: a main
// that may print first calls [server.TakeStdout] before it. Run is
// [server.Run] with the defaults; server.Run takes a [server.Config], and
// [server.Serve] serves any reader and writer (in-process pipes in tests,
// for instance).
//
// # Eras
//
// [Server] implements [server.Runtime]. Which versions it serves is
// [Config.Versions] (default all three, 2026-07-28 preferred).
//
//   - 2026-07-28 is stateless: every request carries its version,
//     capabilities and identity in params._meta, validated in the order of
//     docs/protocol.md, "Validation order" (-32602 for a missing _meta or
//     version, -32022 for an unsupported version, -32602 for missing
//     capabilities, -32601 for an unknown or removed method, -32600 for a
//     top-level elicitation/create, sampling/createMessage or roots/list,
//     -32602 for bad params, a _meta key outside the grammar or an unknown
//     logLevel, -32021 for an undeclared client capability). Every result
//     carries resultType and _meta io.modelcontextprotocol/serverInfo;
//     list, read and server/discover results carry ttlMs and cacheScope.
//     Change notifications travel on subscriptions/listen streams.
//   - 2025-11-25 and 2025-06-18 start with initialize, which echoes an
//     enabled version or counter-offers the first; the session then keeps
//     the client's capabilities, its logging/setLevel level and its
//     resources/subscribe URIs, and gets list changes and resource updates
//     as unsolicited notifications. Results carry none of the 2026 fields.
//   - Both eras share one process: a request whose _meta names 2026-07-28
//     is served statelessly even after initialize. A request with neither
//     2026 _meta nor a session is -32602, except a bare ping ({}).
//
// # Typed handlers
//
// [AddTool] registers a tool whose handler takes its arguments as a Go
// struct and returns its result as a Go value: the input schema is
// inferred from the struct by github.com/google/jsonschema-go (json tag
// names; fields without omitempty required; jsonschema tag as the
// description; closed objects), an mcp struct tag adds enum, bounds,
// lengths, pattern, format, default and title, and the output schema is
// inferred from the result type, which is sent as structuredContent. The
// runtime validates the arguments and decodes them in one pass over their
// JSON before the handler runs, integers exactly, and answers a violation
// as the request's era requires (docs/protocol.md, "Argument validation"):
// -32602 with data.errors on 2025-06-18, an isError result the model can
// read, with the violations in _meta [MetaArgumentErrors], on 2025-11-25
// and 2026-07-28. Messages name the path: "steps: 11 is above the maximum
// 10", "address.zip: required", "tags[2]: ...". [AddPrompt],
// [AddResourceTemplate] and [Elicit] do the same for prompt arguments,
// template variables and elicitation forms. [Server.AddTool] and the other
// raw registrations take raw JSON and validate nothing.
//
// # Handlers
//
// Each handler gets a ctx, which ends when the client cancels the request
// or its deadline passes, and a request value embedding [Request]: the
// method's own fields (a tool's Arguments as raw JSON, a prompt's
// Arguments, a resource's URI and template Vars), the client's
// capabilities, [Request.ReportProgress], [Request.Log] and
// [Request.Logger] (notifications/message, sent only at or above the level
// the client asked for: the request's _meta logLevel on 2026-07-28, the
// session's logging/setLevel on 2025 connections, and nothing without one),
// and [Request.Ask].
//
// # Asking the client
//
// [Request.Ask] (and its typed forms [Request.Elicit],
// [Request.CreateMessage] and [Request.ListRoots]) is the one way to ask
// the client for input, and it works in both eras. On a 2025 connection it
// sends the server-to-client request over the connection and returns the
// answer. On 2026-07-28 it returns the answer the client sent in
// inputResponses (or an earlier round carried in requestState) or, when
// there is none yet, [ErrInputRequired]: the handler returns that
// error, the client gets {resultType:"input_required", inputRequests,
// requestState}, and its retry runs the handler again from the top, where
// Ask now finds the answer. Questions are named by keys that stay the same
// across runs. requestState is sealed (AES-256-GCM) and bound to the method,
// a digest of the params and an expiry, so a tampered or replayed one is
// -32602. A question the client did not declare a capability for is a
// [*MissingCapabilityError]: -32021 on 2026-07-28.
//
// # Errors
//
// A handler's *jsonrpc.Error (jsonrpc.Error) is sent as it is. A tool's other
// errors become isError results, which the model sees; a prompt's,
// resource's or completion's become -32603 without detail. Unknown tools
// and prompts are -32602 in every era (the 2025 tools page and 2026-07-28
// agree); a missing resource is -32002 on 2025 connections and -32602 on
// 2026-07-28, with data {"uri"}.
//
// # Tracing
//
// With [Config.TracerProvider] set, each request the runtime serves is an
// OpenTelemetry span of kind SERVER, as the semantic conventions for MCP
// describe it (semantic-conventions-genai, docs/gen-ai/mcp.md, "Server";
// status Development). The instrumentation scope is this package's import
// path, and the runtime uses the OpenTelemetry API only: the program
// chooses the SDK, sampler and exporter (cmd/mcpbridge's demo exports over
// OTLP as the OTEL_* environment says).
//
//   - Name: "{method} {target}", the target being the tool of a tools/call
//     or the prompt of a prompts/get when one of that name is registered;
//     otherwise the method alone, and "_OTHER" for a method no era has. A
//     resource URI is never in the name: its cardinality is unbounded.
//   - Parent: the trace context the request's params._meta carries
//     (traceparent and tracestate; baggage goes into the handler's ctx
//     too); without it, the span is a new root. A span in the ctx given to
//     [server.Serve] is linked, never the parent.
//   - Attributes: mcp.method.name, jsonrpc.request.id, mcp.protocol.version
//     (the request's era; for initialize the version negotiated),
//     network.transport "pipe"; gen_ai.tool.name and gen_ai.operation.name
//     "execute_tool" for tools/call, gen_ai.prompt.name for prompts/get,
//     mcp.resource.uri for resources/read, resources/subscribe and
//     resources/unsubscribe. stdio has no mcp.session.id.
//   - Outcome: a JSON-RPC error response sets rpc.response.status_code to
//     its code and, unless the caller was at fault (-32700, -32600, -32601,
//     -32602, -32002), error.type to the code and the status to Error with
//     the error's message. A tools/call result with isError is error.type
//     "tool_error" and status Error. A request past its deadline records
//     the -32603 that Serve answers; one the client cancelled is no error.
//
// The handler's ctx carries the span, so a handler's own spans, started
// from its ctx, are its children. subscriptions/listen is traced from its
// arrival to its acceptance, not for the life of the stream. The client's
// notifications are not traced: Serve consumes notifications/initialized
// and notifications/cancelled itself, and hands the others to the runtime
// on its coordinator, where nothing may block, while ending a span runs
// the program's span processors inline. Without a TracerProvider none of
// this runs, and a request costs what it did before.
//
// # Lists
//
// tools/list, prompts/list, resources/list and resources/templates/list
// are sorted by name, URI or URI template and paged by
// [Config.PageSize], with signed cursors; an altered cursor, or one
// from another list, is -32602. A kind of feature is advertised once one
// is registered, and stays advertised; methods of kinds never registered
// are -32601.
package mcp
