// mcpbridge.v1 is the gRPC front that mcpbridge puts on stdio MCP servers.
//
// Each RPC of BridgeService becomes newline-delimited JSON-RPC on a managed
// child process (the "child": the MCP server the bridge fronts). The child's
// answers, progress, logs and subscription events come back as gRPC
// responses and stream messages.
//
// # Eras
//
// The bridge negotiates one MCP protocol revision per child, once, and
// GetServerResponse.protocol_version reports it. Field comments say which
// children a field applies to with one of these tags:
//
//   - "Eras: all."      every child.
//   - "Eras: 2026."     2026-07-28 ("modern", stateless) children only.
//   - "Eras: legacy."   2025-06-18 and 2025-11-25 children (initialize
//     handshake; 2025-03-26 and 2024-11-05 count as 2025-06-18).
//   - "Eras: 2025-11-25 and 2026."  children of those revisions; older
//     children leave the field empty.
//
// A field that does not apply to the child's era is left empty in
// responses; in requests it is refused with INVALID_ARGUMENT where it would
// change the meaning (for example request_state to a legacy child) and is
// otherwise ignored.
//
// # Choosing the fronted server
//
// Every request message has a `server` field naming the fronted server. The
// `mcp-server` request metadata key names it too (handy for Connect and for
// generic clients). Both may be empty when the bridge fronts exactly one
// server. When both are set they must agree; an unknown name, or a field and
// a header that disagree, is INVALID_ARGUMENT and nothing reaches a child.
//
// # Children
//
// Each fronted server has a child policy (ServerPolicy), set by the
// operator. SERVER_POLICY_SHARED (the default) multiplexes every caller's
// requests onto one process. SERVER_POLICY_POOL keeps several processes and
// sends each call to the least loaded ready one; a stream (CallToolStream,
// CallStream, Subscribe, Connect) stays on the child it started on, and so
// do the server requests it receives. SERVER_POLICY_SESSION runs one process
// per client session, named by the `mcp-session` request metadata: created
// on the session's first request, stopped after it has been idle for the
// configured time, at most a configured number at once (beyond that,
// RESOURCE_EXHAUSTED with RetryInfo). A request without `mcp-session` to
// such a server is INVALID_ARGUMENT, except Connect, which then gets a child
// of its own for the life of the stream. With authentication a session
// belongs to its principal; without, a session name is a capability:
// whoever presents it reaches that session's child, so make it unguessable.
// Every child is restarted with backoff when it exits.
//
// # Authentication and authorization
//
// When the operator configures credentials (docs/security.md), every RPC
// but grpc.health.v1 needs one: a bearer API key or JWT in the
// `authorization` metadata, or a TLS client certificate. A missing or bad
// credential is UNAUTHENTICATED with no details; when the bridge is an
// OAuth resource server (docs/authorization.md), with an ErrorInfo whose
// metadata says where its protected resource metadata is
// ("resource_metadata", "scope", "error", "www_authenticate"). Rules then
// allow each principal servers, tools, resources and prompts: a denied
// request is PERMISSION_DENIED (ErrorInfo reason "PERMISSION_DENIED", with
// "error": "insufficient_scope" and the "scope" to ask for when an OAuth
// scope would grant it) and never reaches a child; lists show only what
// the caller may use; inside
// Connect a denied request is answered with a JSON-RPC error. A caller
// over its limits is RESOURCE_EXHAUSTED with RetryInfo.
//
// # Deadlines and cancellation
//
// A gRPC deadline or cancellation becomes the child request's timeout. On
// expiry or cancel the bridge sends `notifications/cancelled` to the child
// with the child-side request id, drops anything the child sends later for
// that id, and the caller gets DEADLINE_EXCEEDED or CANCELLED. Without a
// deadline the bridge's configured default applies; a deadline beyond the
// configured maximum is cut to the maximum. Subscribe and Connect are
// long-lived and get no default deadline. Cancelling a Subscribe stream
// leaves the child's listen it shares (2026; `notifications/cancelled` is
// sent when its last stream leaves) or drops this stream's resource
// subscriptions (legacy; `resources/unsubscribe` is sent when the last
// subscriber of a URI leaves).
//
// # Errors
//
// JSON-RPC errors become gRPC status codes through one mapping:
//
//   | JSON-RPC code                               | gRPC code                |
//   |---------------------------------------------|--------------------------|
//   | -32700 parse, -32600 invalid request,       | INVALID_ARGUMENT         |
//   | -32602 invalid params                       |                          |
//   | -32601 method not found                     | UNIMPLEMENTED            |
//   | -32603 internal                             | INTERNAL                 |
//   | capacity refusals (queue or limit full)     | RESOURCE_EXHAUSTED       |
//   | -32000 connection closed, child gone        | UNAVAILABLE (+RetryInfo) |
//   | -32001 request timeout                      | DEADLINE_EXCEEDED        |
//   | -32002 resource not found (legacy)          | NOT_FOUND                |
//   | -32020, -32021, -32022, -32042              | FAILED_PRECONDITION      |
//   | any other code                              | UNKNOWN                  |
//
// The status details (google.rpc.Status.details) always carry:
//
//   - mcpbridge.v1.JsonRpcError: the JSON-RPC error as the child sent it
//     (code, message, data as JSON text), or, for an error the bridge
//     raised itself, the JSON-RPC error it would answer an MCP client with.
//   - google.rpc.ErrorInfo with domain "mcpbridge" and a reason:
//     "CHILD_ERROR" (the child answered with a JSON-RPC error),
//     "CHILD_UNAVAILABLE" (the child is not running or exited mid-call),
//     "TIMEOUT", "CAPACITY", "INVALID_INPUT" (refused at the bridge),
//     "TOO_LARGE" (with RESOURCE_EXHAUSTED: a request over the child's
//     configured line limit, refused at the bridge, or a response over the
//     bridge's --max-message-bytes, dropped as it arrived; the call fails
//     at once, whatever its deadline) or "UNKNOWN_SERVER". Its metadata
//     has "server" (the fronted server's
//     name), "method" (the MCP method) and "code" (the JSON-RPC code in
//     decimal), and "pid" when a child exited mid-call (which of a pool's
//     children it was).
//   - google.rpc.RetryInfo, with UNAVAILABLE while the child restarts or
//     its circuit is open (the time until the next start attempt), and with
//     RESOURCE_EXHAUSTED when a session server has its most sessions open
//     or a caller is over its rate limit.
//   - google.rpc.BadRequest, with INVALID_ARGUMENT when one field of the
//     request is at fault: one field violation whose `field` is the field's
//     path, `reason` one of "INVALID_JSON" (the text does not parse),
//     "WRONG_JSON_TYPE" (valid JSON of the wrong kind, for example an array
//     where an object is required), "REQUIRED", "INVALID_UTF8" or
//     "INVALID_VALUE" (anything else), and `description` the message.
//
// The google.rpc messages are defined in google/rpc/status.proto and
// google/rpc/error_details.proto, which this module carries beside this
// file, so that a code generator in any language finds them.
//
// Field names in error messages and in BadRequest are spelled as the
// caller's language spells them, judged by the user-agent its gRPC library
// sends: `paramsJson` (the JSON name) for JavaScript and TypeScript
// (grpc-js, connect-es), Java and grpcurl; `ParamsJson` for Go and C#; the
// proto name `params_json` for Python, C++, Ruby, PHP and any other caller.
//
// Bad input from a gRPC client (an unknown server, JSON text that does not
// parse or is not an object where an object is required, a malformed
// request_state, a field that does not apply to the child's era) is refused
// with INVALID_ARGUMENT and never reaches the child: some real servers exit
// on a malformed line. A tool result with `isError: true` is not an error:
// it is an OK CallToolResponse with is_error set.
//
// # JSON payloads
//
// Object-valued fields that people read and write by hand (tool arguments,
// schemas, `_meta` as `meta`, server_info, capabilities, annotations) are
// google.protobuf.Struct, so grpcurl shows and accepts plain JSON. Struct
// stores numbers as doubles, so integers above 2^53 lose precision there.
// The lossless path is Call, CallStream and Connect: their `*_json` string
// fields hold JSON text that the bridge validates and compacts (insignificant
// whitespace removed) but never decodes and re-encodes, so numbers, strings
// and key order arrive unchanged. Typed messages carry the fields listed on
// them; fields a later MCP revision adds are reachable through Call.
// Binary data (image, audio, blob) is `bytes`: the bridge decodes the
// child's base64 and encodes the caller's. One configured maximum message
// size (default 16 MiB) bounds gRPC messages in both directions and the
// child's lines.
//
// # Over HTTP
//
// With `serve --http-listen`, the same service is served over the Connect
// protocol and gRPC-Web (docs/operations.md, "HTTP"): a call is a POST of
// the request's JSON (protobuf's JSON mapping) to
// /mcpbridge.v1.BridgeService/<Method>, which curl and fetch make without a
// generated client, and server streams are Connect or gRPC-Web streams.
// There are no REST routes (no google.api.http annotations): every method
// would map to a POST with the whole request as its body, since requests
// are JSON documents rather than resources, so routes would add a second
// name for each call and a googleapis dependency to every client's build,
// and make nothing easier to call. MCP hosts use the MCP endpoints at /mcp
// instead of this API.
//
// # Requests from a legacy child to the client
//
// A legacy child may send `ping`, `roots/list`, `sampling/createMessage` and
// `elicitation/create` requests. Its stdio gives no link to the call that
// caused them, so the bridge routes each one as follows, first match wins:
//
//  1. `ping` is answered `{}` by the bridge itself.
//  2. `roots/list`, when a roots list is configured for the server, is
//     answered by the bridge from that list.
//  3. If a Connect tunnel is open on that child (any tunnel on it, the most
//     recently opened first: the child is shared), the request goes into
//     that tunnel as a JSON-RPC request under a bridge-minted id, and the
//     tunnel's JSON-RPC response goes back to the child.
//  4. Otherwise it is offered as a `server_request` message (ServerRequest)
//     on the streams that opted in with `server_requests: true`: the
//     CallToolStream and CallStream calls in flight on that child, and the
//     Subscribe streams on that child. While exactly one call of any kind
//     is in flight on the child and it is an opted-in stream, that stream
//     alone gets it (it is the cause); otherwise every opted-in stream of
//     that child does. The first RespondToServerRequest for its id, from
//     the same principal and with the routing_key of a stream it was
//     offered on as `mcp-session`, answers the child; later ones get
//     NOT_FOUND.
//  5. With no tunnel and no opted-in stream, the child gets -32601 (method
//     not found) at once, as MCP asks of a client without a handler.
//
// A request that was delivered but not answered by
// ServerRequest.expire_time (a configured bounded wait), or whose every
// receiving stream ended first, gets a JSON-RPC error (-32603) and is
// forgotten. Because the child is shared, a child's request may stem from
// any caller's call and carry its data: front a server whose requests carry
// one client's data with one bridge per client. 2026 children never send
// such requests: they ask for input inside results instead (see
// InputRequired); if one sends one anyway it gets -32601.
//
// # Multi round-trip requests (MRTR, 2026 children)
//
// CallTool, ReadResource, GetPrompt and CallToolStream may answer with
// `input_required` (InputRequired) instead of a result. The caller answers
// each entry of input_requests and repeats the same call with
// input_responses and request_state copied byte for byte; the bridge sends
// the retry under a fresh JSON-RPC id and never answers input requests on
// the caller's behalf.
//
// # Tasks
//
// An MCP task is a tools/call whose work outlives the request: a build, a
// research query, a batch. The task RPCs model one as a long-running
// operation in the shape of AIP-151's google.longrunning.Operation:
// StartTask returns a Task (an id, done, and once done either response or
// error), GetTask is GetOperation, WaitTask is WaitOperation, CancelTask is
// CancelOperation and ListTasks is ListOperations. Two things MCP tasks
// have and Operations do not are RPCs of their own: WatchTask, a server
// stream of the task's changes ending with its outcome, and AnswerTask, the
// answers to a task's input requests. The Task is a message of this API,
// not an Operation: its outcome is a typed CallToolResponse or the child's
// JsonRpcError rather than an Any to unpack, and its status, status
// message, input requests, TTL and poll interval are fields.
//
// Each RPC is the child's own task methods in its era, through the same
// checks as every other request: the 2026-07-28 tasks extension (declared
// by the bridge in the request's client capabilities) or 2025-11-25's core
// tasks (`params.task`, `tasks/get`, `tasks/result`, `tasks/cancel`). A
// task belongs to the principal that created it, through any door (this
// API, Call, Connect, `/mcp`, `mcpbridge connect`): any other principal's
// request naming it is NOT_FOUND, as an unknown task is. It outlives the RPC
// that started it and the caller's connection; it lives as long as the
// child keeps it (its ttl) and the child runs: a task whose child exited is
// FAILED with an error that says so. Input: a 2026 child lists its
// questions in the task (Task.input_requests, under its own keys); a
// 2025-11-25 child asks them with requests, which the bridge holds for a
// task StartTask created and shows the same way (under keys input-1,
// input-2, ...), until AnswerTask answers them or the child stops waiting
// (the server's server_request_timeout). Progress is the task's status
// message: a 2026 child reports it there, and the bridge does not hold a
// 2025 child's request open to receive progress notifications. The live
// tasks of a server are bounded, per principal and in all
// (`servers[].tasks` in the config file): beyond them StartTask (and any
// tools/call that creates a task) is RESOURCE_EXHAUSTED with RetryInfo,
// and the child's new task is cancelled.

// Code generated by protoc-gen-connect-go. DO NOT EDIT.
//
// Source: mcpbridge/v1/bridge.proto

package mcpbridgev1connect

import (
	connect "connectrpc.com/connect"
	context "context"
	errors "errors"
	v1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	http "net/http"
	strings "strings"
)

// This is a compile-time assertion to ensure that this generated file and the connect package are
// compatible. If you get a compiler error that this constant is not defined, this code was
// generated with a version of connect newer than the one compiled into your binary. You can fix the
// problem by either regenerating this code with an older version of connect or updating the connect
// version compiled into your binary.
const _ = connect.IsAtLeastVersion1_13_0

const (
	// BridgeServiceName is the fully-qualified name of the BridgeService service.
	BridgeServiceName = "mcpbridge.v1.BridgeService"
)

// These constants are the fully-qualified names of the RPCs defined in this package. They're
// exposed at runtime as Spec.Procedure and as the final two segments of the HTTP route.
//
// Note that these are different from the fully-qualified method names used by
// google.golang.org/protobuf/reflect/protoreflect. To convert from these constants to
// reflection-formatted method names, remove the leading slash and convert the remaining slash to a
// period.
const (
	// BridgeServiceGetServerProcedure is the fully-qualified name of the BridgeService's GetServer RPC.
	BridgeServiceGetServerProcedure = "/mcpbridge.v1.BridgeService/GetServer"
	// BridgeServiceListServersProcedure is the fully-qualified name of the BridgeService's ListServers
	// RPC.
	BridgeServiceListServersProcedure = "/mcpbridge.v1.BridgeService/ListServers"
	// BridgeServiceListToolsProcedure is the fully-qualified name of the BridgeService's ListTools RPC.
	BridgeServiceListToolsProcedure = "/mcpbridge.v1.BridgeService/ListTools"
	// BridgeServiceListResourcesProcedure is the fully-qualified name of the BridgeService's
	// ListResources RPC.
	BridgeServiceListResourcesProcedure = "/mcpbridge.v1.BridgeService/ListResources"
	// BridgeServiceListResourceTemplatesProcedure is the fully-qualified name of the BridgeService's
	// ListResourceTemplates RPC.
	BridgeServiceListResourceTemplatesProcedure = "/mcpbridge.v1.BridgeService/ListResourceTemplates"
	// BridgeServiceListPromptsProcedure is the fully-qualified name of the BridgeService's ListPrompts
	// RPC.
	BridgeServiceListPromptsProcedure = "/mcpbridge.v1.BridgeService/ListPrompts"
	// BridgeServiceCallToolProcedure is the fully-qualified name of the BridgeService's CallTool RPC.
	BridgeServiceCallToolProcedure = "/mcpbridge.v1.BridgeService/CallTool"
	// BridgeServiceReadResourceProcedure is the fully-qualified name of the BridgeService's
	// ReadResource RPC.
	BridgeServiceReadResourceProcedure = "/mcpbridge.v1.BridgeService/ReadResource"
	// BridgeServiceGetPromptProcedure is the fully-qualified name of the BridgeService's GetPrompt RPC.
	BridgeServiceGetPromptProcedure = "/mcpbridge.v1.BridgeService/GetPrompt"
	// BridgeServiceCompleteProcedure is the fully-qualified name of the BridgeService's Complete RPC.
	BridgeServiceCompleteProcedure = "/mcpbridge.v1.BridgeService/Complete"
	// BridgeServiceCallToolStreamProcedure is the fully-qualified name of the BridgeService's
	// CallToolStream RPC.
	BridgeServiceCallToolStreamProcedure = "/mcpbridge.v1.BridgeService/CallToolStream"
	// BridgeServiceSubscribeProcedure is the fully-qualified name of the BridgeService's Subscribe RPC.
	BridgeServiceSubscribeProcedure = "/mcpbridge.v1.BridgeService/Subscribe"
	// BridgeServiceCallProcedure is the fully-qualified name of the BridgeService's Call RPC.
	BridgeServiceCallProcedure = "/mcpbridge.v1.BridgeService/Call"
	// BridgeServiceCallStreamProcedure is the fully-qualified name of the BridgeService's CallStream
	// RPC.
	BridgeServiceCallStreamProcedure = "/mcpbridge.v1.BridgeService/CallStream"
	// BridgeServiceConnectProcedure is the fully-qualified name of the BridgeService's Connect RPC.
	BridgeServiceConnectProcedure = "/mcpbridge.v1.BridgeService/Connect"
	// BridgeServicePingProcedure is the fully-qualified name of the BridgeService's Ping RPC.
	BridgeServicePingProcedure = "/mcpbridge.v1.BridgeService/Ping"
	// BridgeServiceRespondToServerRequestProcedure is the fully-qualified name of the BridgeService's
	// RespondToServerRequest RPC.
	BridgeServiceRespondToServerRequestProcedure = "/mcpbridge.v1.BridgeService/RespondToServerRequest"
	// BridgeServiceStartTaskProcedure is the fully-qualified name of the BridgeService's StartTask RPC.
	BridgeServiceStartTaskProcedure = "/mcpbridge.v1.BridgeService/StartTask"
	// BridgeServiceGetTaskProcedure is the fully-qualified name of the BridgeService's GetTask RPC.
	BridgeServiceGetTaskProcedure = "/mcpbridge.v1.BridgeService/GetTask"
	// BridgeServiceWaitTaskProcedure is the fully-qualified name of the BridgeService's WaitTask RPC.
	BridgeServiceWaitTaskProcedure = "/mcpbridge.v1.BridgeService/WaitTask"
	// BridgeServiceWatchTaskProcedure is the fully-qualified name of the BridgeService's WatchTask RPC.
	BridgeServiceWatchTaskProcedure = "/mcpbridge.v1.BridgeService/WatchTask"
	// BridgeServiceAnswerTaskProcedure is the fully-qualified name of the BridgeService's AnswerTask
	// RPC.
	BridgeServiceAnswerTaskProcedure = "/mcpbridge.v1.BridgeService/AnswerTask"
	// BridgeServiceCancelTaskProcedure is the fully-qualified name of the BridgeService's CancelTask
	// RPC.
	BridgeServiceCancelTaskProcedure = "/mcpbridge.v1.BridgeService/CancelTask"
	// BridgeServiceListTasksProcedure is the fully-qualified name of the BridgeService's ListTasks RPC.
	BridgeServiceListTasksProcedure = "/mcpbridge.v1.BridgeService/ListTasks"
)

// BridgeServiceClient is a client for the mcpbridge.v1.BridgeService service.
type BridgeServiceClient interface {
	// GetServer returns what the bridge negotiated with the child (protocol
	// version, server info, capabilities, instructions) and the child's state.
	// It is served from the bridge's cache and never waits: while the child
	// starts, restarts or is FAILED it answers at once with that state and
	// without the negotiated fields (use grpc.health.v1 Watch to wait for
	// SERVING).
	GetServer(context.Context, *connect.Request[v1.GetServerRequest]) (*connect.Response[v1.GetServerResponse], error)
	// ListServers returns every fronted server as GetServer describes it,
	// sorted by name, with each one's children. It never waits.
	ListServers(context.Context, *connect.Request[v1.ListServersRequest]) (*connect.Response[v1.ListServersResponse], error)
	// ListTools is `tools/list`: one page of the child's tools.
	ListTools(context.Context, *connect.Request[v1.ListToolsRequest]) (*connect.Response[v1.ListToolsResponse], error)
	// ListResources is `resources/list`: one page of the child's resources.
	ListResources(context.Context, *connect.Request[v1.ListResourcesRequest]) (*connect.Response[v1.ListResourcesResponse], error)
	// ListResourceTemplates is `resources/templates/list`: one page of the
	// child's resource templates.
	ListResourceTemplates(context.Context, *connect.Request[v1.ListResourceTemplatesRequest]) (*connect.Response[v1.ListResourceTemplatesResponse], error)
	// ListPrompts is `prompts/list`: one page of the child's prompts.
	ListPrompts(context.Context, *connect.Request[v1.ListPromptsRequest]) (*connect.Response[v1.ListPromptsResponse], error)
	// CallTool is `tools/call`. A tool that ran and failed (`isError`) is an
	// OK response with is_error set, never a gRPC error. A 2026 child may
	// answer with input_required (MRTR). No progress or logs are delivered;
	// use CallToolStream for those.
	CallTool(context.Context, *connect.Request[v1.CallToolRequest]) (*connect.Response[v1.CallToolResponse], error)
	// ReadResource is `resources/read`. A 2026 child may answer with
	// input_required (MRTR).
	ReadResource(context.Context, *connect.Request[v1.ReadResourceRequest]) (*connect.Response[v1.ReadResourceResponse], error)
	// GetPrompt is `prompts/get`. A 2026 child may answer with input_required
	// (MRTR).
	GetPrompt(context.Context, *connect.Request[v1.GetPromptRequest]) (*connect.Response[v1.GetPromptResponse], error)
	// Complete is `completion/complete`: suggestions for a prompt argument or
	// a resource template variable.
	Complete(context.Context, *connect.Request[v1.CompleteRequest]) (*connect.Response[v1.CompleteResponse], error)
	// CallToolStream is `tools/call` with a progress token: zero or more
	// progress, log and server_request messages, then exactly one result,
	// after which the stream ends with OK. Errors end the stream with a status
	// as for CallTool.
	CallToolStream(context.Context, *connect.Request[v1.CallToolStreamRequest]) (*connect.ServerStreamForClient[v1.CallToolStreamResponse], error)
	// Subscribe delivers list changes and resource updates. The first message
	// is always `acknowledged`, listing what the child honours. On a 2026
	// child it is a `subscriptions/listen` shared by every stream whose
	// request it covers, so that the child's limit on open listens does not
	// limit the subscribers; on a legacy child it is `resources/subscribe`
	// (reference-counted across subscribers) plus the child's
	// `notifications/*/list_changed` and `notifications/resources/updated`.
	// The stream ends with UNAVAILABLE when the child exits (subscribe again
	// after it restarts and re-read what you cache: events may have been
	// missed) and with OK when a 2026 child ends the listen it shares.
	Subscribe(context.Context, *connect.Request[v1.SubscribeRequest]) (*connect.ServerStreamForClient[v1.SubscribeResponse], error)
	// Call sends any MCP request method with params as JSON text and returns
	// the result as JSON text, losslessly. JSON-RPC errors map to a status as
	// everywhere else.
	Call(context.Context, *connect.Request[v1.CallRequest]) (*connect.Response[v1.CallResponse], error)
	// CallStream is Call with a progress token: zero or more progress, log and
	// server_request messages, then exactly one result.
	CallStream(context.Context, *connect.Request[v1.CallStreamRequest]) (*connect.ServerStreamForClient[v1.CallStreamResponse], error)
	// Connect is a raw JSON-RPC tunnel to the child, one JSON-RPC message per
	// stream item in both directions, for clients that speak MCP themselves.
	// Requests pass with the client's own params and `_meta`: on a 2026-07-28
	// child the client sends the `_meta` every request needs (protocol
	// version, client capabilities, client info), and a request without it,
	// or naming another version, gets the child's own answer. On a shared
	// child the bridge remaps ids, progress tokens and subscription ids so
	// that sharing is safe; the tunnel sees only its own. On a child of the
	// tunnel's own (a 2025 client's `initialize` on a server whose tunnels
	// are private) ids, progress tokens and cancellation reasons pass as the
	// client sent them. On a legacy child
	// the bridge answers the tunnel's `initialize` from the negotiated state
	// (the child is initialized once), absorbs `notifications/initialized`,
	// reference-counts `resources/subscribe` and `resources/unsubscribe`, and
	// answers `logging/setLevel` itself: the tunnel gets the child's logs
	// from that level up, and the child is held at least that verbose while
	// the tunnel is open. Server requests reach the
	// tunnel as described in the file comment. A client of the other era than
	// the child's is translated: a 2025 client (initialize) in front of a
	// 2026 child gets initialize answered, 2026 `_meta` added from its
	// initialize, and input_required results turned into requests into the
	// tunnel; a 2026 client in front of a legacy child gets 2026 validation,
	// server/discover, stamped results, subscriptions/listen, and the child's
	// requests as input_required rounds. A message that is not valid
	// JSON-RPC is answered in the tunnel with a JSON-RPC error (-32700 or
	// -32600) and never reaches the child. Half-closing the send side ends
	// the tunnel's listens and subscriptions, waits for its other requests in
	// flight, then ends the stream with OK; cancelling the RPC cancels them.
	Connect(context.Context) *connect.BidiStreamForClient[v1.ConnectRequest, v1.ConnectResponse]
	// Ping checks that the child answers: `ping` on a legacy child,
	// `server/discover` on a 2026 child (which has no ping). It returns the
	// round-trip time.
	Ping(context.Context, *connect.Request[v1.PingRequest]) (*connect.Response[v1.PingResponse], error)
	// RespondToServerRequest answers a ServerRequest that the bridge offered
	// on a stream. Send it with the request's routing_key as its
	// `mcp-session` metadata (none when routing_key is empty): an answer
	// belongs to the principal and to the sessions of the streams the request
	// was offered on. Unknown, expired or already answered ids are NOT_FOUND,
	// and so, with the same message and details, is an answer from another
	// principal or with another `mcp-session`: nothing tells a caller that
	// another session's request exists. An id another bridge replica minted
	// is NOT_FOUND with a message that says so (route the answer by
	// ServerRequest.routing_key).
	RespondToServerRequest(context.Context, *connect.Request[v1.RespondToServerRequestRequest]) (*connect.Response[v1.RespondToServerRequestResponse], error)
	// StartTask is `tools/call` run as an MCP task: a long-running operation
	// that outlives this RPC and the caller's connection (the file comment,
	// "Tasks"). The bridge asks the child for a task the way its era does
	// (the 2026-07-28 tasks extension declared in the request's client
	// capabilities; 2025-11-25's `params.task`) and returns the Task at once,
	// usually WORKING. A tool that does not run as a task on its child runs
	// to its end in this RPC instead, and the Task comes back done, with no
	// task_id. A task belongs to the caller's principal: no other principal
	// can get, wait for, watch, answer, cancel or list it. Beyond the
	// server's live-task caps (per principal and per server) the call is
	// RESOURCE_EXHAUSTED with RetryInfo.
	StartTask(context.Context, *connect.Request[v1.StartTaskRequest]) (*connect.Response[v1.StartTaskResponse], error)
	// GetTask is `tasks/get`: the task's latest state, and its result or
	// error once it is done. An unknown, expired or another principal's task
	// is NOT_FOUND, with the same message for each.
	GetTask(context.Context, *connect.Request[v1.GetTaskRequest]) (*connect.Response[v1.GetTaskResponse], error)
	// WaitTask returns the task once it is done or has input requests to
	// answer, or when the timeout passes (then as it is), as
	// google.longrunning's WaitOperation does; the bridge polls the child at
	// the task's poll interval (at least every second).
	WaitTask(context.Context, *connect.Request[v1.WaitTaskRequest]) (*connect.Response[v1.WaitTaskResponse], error)
	// WatchTask streams the task: its state now, then every change of state,
	// status message (where the task's progress is reported) or input
	// requests, and last the done Task with its result or error, after which
	// the stream ends with OK. Closing the stream does not cancel the task.
	WatchTask(context.Context, *connect.Request[v1.WatchTaskRequest]) (*connect.ServerStreamForClient[v1.WatchTaskResponse], error)
	// AnswerTask answers the task's input_requests: the 2026 `tasks/update`,
	// or, on a 2025-11-25 child, the answers to the requests it asked. It
	// returns the task's state after the answers.
	AnswerTask(context.Context, *connect.Request[v1.AnswerTaskRequest]) (*connect.Response[v1.AnswerTaskResponse], error)
	// CancelTask is `tasks/cancel`: the work is stopped and the task ends
	// CANCELLED, unless it ended already (cancellation does not undo a
	// result). It returns the task's state after the cancellation.
	CancelTask(context.Context, *connect.Request[v1.CancelTaskRequest]) (*connect.Response[v1.CancelTaskResponse], error)
	// ListTasks lists the caller's tasks on one server, oldest first, as the
	// bridge saw them created (through any door), with their state now.
	// Tasks that expired or that the child no longer knows are left out.
	ListTasks(context.Context, *connect.Request[v1.ListTasksRequest]) (*connect.Response[v1.ListTasksResponse], error)
}

// NewBridgeServiceClient constructs a client for the mcpbridge.v1.BridgeService service. By
// default, it uses the Connect protocol with the binary Protobuf Codec, asks for gzipped responses,
// and sends uncompressed requests. To use the gRPC or gRPC-Web protocols, supply the
// connect.WithGRPC() or connect.WithGRPCWeb() options.
//
// The URL supplied here should be the base URL for the Connect or gRPC server (for example,
// http://api.acme.com or https://acme.com/grpc).
func NewBridgeServiceClient(httpClient connect.HTTPClient, baseURL string, opts ...connect.ClientOption) BridgeServiceClient {
	baseURL = strings.TrimRight(baseURL, "/")
	bridgeServiceMethods := v1.File_mcpbridge_v1_bridge_proto.Services().ByName("BridgeService").Methods()
	return &bridgeServiceClient{
		getServer: connect.NewClient[v1.GetServerRequest, v1.GetServerResponse](
			httpClient,
			baseURL+BridgeServiceGetServerProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("GetServer")),
			connect.WithClientOptions(opts...),
		),
		listServers: connect.NewClient[v1.ListServersRequest, v1.ListServersResponse](
			httpClient,
			baseURL+BridgeServiceListServersProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("ListServers")),
			connect.WithClientOptions(opts...),
		),
		listTools: connect.NewClient[v1.ListToolsRequest, v1.ListToolsResponse](
			httpClient,
			baseURL+BridgeServiceListToolsProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("ListTools")),
			connect.WithClientOptions(opts...),
		),
		listResources: connect.NewClient[v1.ListResourcesRequest, v1.ListResourcesResponse](
			httpClient,
			baseURL+BridgeServiceListResourcesProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("ListResources")),
			connect.WithClientOptions(opts...),
		),
		listResourceTemplates: connect.NewClient[v1.ListResourceTemplatesRequest, v1.ListResourceTemplatesResponse](
			httpClient,
			baseURL+BridgeServiceListResourceTemplatesProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("ListResourceTemplates")),
			connect.WithClientOptions(opts...),
		),
		listPrompts: connect.NewClient[v1.ListPromptsRequest, v1.ListPromptsResponse](
			httpClient,
			baseURL+BridgeServiceListPromptsProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("ListPrompts")),
			connect.WithClientOptions(opts...),
		),
		callTool: connect.NewClient[v1.CallToolRequest, v1.CallToolResponse](
			httpClient,
			baseURL+BridgeServiceCallToolProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("CallTool")),
			connect.WithClientOptions(opts...),
		),
		readResource: connect.NewClient[v1.ReadResourceRequest, v1.ReadResourceResponse](
			httpClient,
			baseURL+BridgeServiceReadResourceProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("ReadResource")),
			connect.WithClientOptions(opts...),
		),
		getPrompt: connect.NewClient[v1.GetPromptRequest, v1.GetPromptResponse](
			httpClient,
			baseURL+BridgeServiceGetPromptProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("GetPrompt")),
			connect.WithClientOptions(opts...),
		),
		complete: connect.NewClient[v1.CompleteRequest, v1.CompleteResponse](
			httpClient,
			baseURL+BridgeServiceCompleteProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("Complete")),
			connect.WithClientOptions(opts...),
		),
		callToolStream: connect.NewClient[v1.CallToolStreamRequest, v1.CallToolStreamResponse](
			httpClient,
			baseURL+BridgeServiceCallToolStreamProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("CallToolStream")),
			connect.WithClientOptions(opts...),
		),
		subscribe: connect.NewClient[v1.SubscribeRequest, v1.SubscribeResponse](
			httpClient,
			baseURL+BridgeServiceSubscribeProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("Subscribe")),
			connect.WithClientOptions(opts...),
		),
		call: connect.NewClient[v1.CallRequest, v1.CallResponse](
			httpClient,
			baseURL+BridgeServiceCallProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("Call")),
			connect.WithClientOptions(opts...),
		),
		callStream: connect.NewClient[v1.CallStreamRequest, v1.CallStreamResponse](
			httpClient,
			baseURL+BridgeServiceCallStreamProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("CallStream")),
			connect.WithClientOptions(opts...),
		),
		connect: connect.NewClient[v1.ConnectRequest, v1.ConnectResponse](
			httpClient,
			baseURL+BridgeServiceConnectProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("Connect")),
			connect.WithClientOptions(opts...),
		),
		ping: connect.NewClient[v1.PingRequest, v1.PingResponse](
			httpClient,
			baseURL+BridgeServicePingProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("Ping")),
			connect.WithClientOptions(opts...),
		),
		respondToServerRequest: connect.NewClient[v1.RespondToServerRequestRequest, v1.RespondToServerRequestResponse](
			httpClient,
			baseURL+BridgeServiceRespondToServerRequestProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("RespondToServerRequest")),
			connect.WithClientOptions(opts...),
		),
		startTask: connect.NewClient[v1.StartTaskRequest, v1.StartTaskResponse](
			httpClient,
			baseURL+BridgeServiceStartTaskProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("StartTask")),
			connect.WithClientOptions(opts...),
		),
		getTask: connect.NewClient[v1.GetTaskRequest, v1.GetTaskResponse](
			httpClient,
			baseURL+BridgeServiceGetTaskProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("GetTask")),
			connect.WithClientOptions(opts...),
		),
		waitTask: connect.NewClient[v1.WaitTaskRequest, v1.WaitTaskResponse](
			httpClient,
			baseURL+BridgeServiceWaitTaskProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("WaitTask")),
			connect.WithClientOptions(opts...),
		),
		watchTask: connect.NewClient[v1.WatchTaskRequest, v1.WatchTaskResponse](
			httpClient,
			baseURL+BridgeServiceWatchTaskProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("WatchTask")),
			connect.WithClientOptions(opts...),
		),
		answerTask: connect.NewClient[v1.AnswerTaskRequest, v1.AnswerTaskResponse](
			httpClient,
			baseURL+BridgeServiceAnswerTaskProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("AnswerTask")),
			connect.WithClientOptions(opts...),
		),
		cancelTask: connect.NewClient[v1.CancelTaskRequest, v1.CancelTaskResponse](
			httpClient,
			baseURL+BridgeServiceCancelTaskProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("CancelTask")),
			connect.WithClientOptions(opts...),
		),
		listTasks: connect.NewClient[v1.ListTasksRequest, v1.ListTasksResponse](
			httpClient,
			baseURL+BridgeServiceListTasksProcedure,
			connect.WithSchema(bridgeServiceMethods.ByName("ListTasks")),
			connect.WithClientOptions(opts...),
		),
	}
}

// bridgeServiceClient implements BridgeServiceClient.
type bridgeServiceClient struct {
	getServer              *connect.Client[v1.GetServerRequest, v1.GetServerResponse]
	listServers            *connect.Client[v1.ListServersRequest, v1.ListServersResponse]
	listTools              *connect.Client[v1.ListToolsRequest, v1.ListToolsResponse]
	listResources          *connect.Client[v1.ListResourcesRequest, v1.ListResourcesResponse]
	listResourceTemplates  *connect.Client[v1.ListResourceTemplatesRequest, v1.ListResourceTemplatesResponse]
	listPrompts            *connect.Client[v1.ListPromptsRequest, v1.ListPromptsResponse]
	callTool               *connect.Client[v1.CallToolRequest, v1.CallToolResponse]
	readResource           *connect.Client[v1.ReadResourceRequest, v1.ReadResourceResponse]
	getPrompt              *connect.Client[v1.GetPromptRequest, v1.GetPromptResponse]
	complete               *connect.Client[v1.CompleteRequest, v1.CompleteResponse]
	callToolStream         *connect.Client[v1.CallToolStreamRequest, v1.CallToolStreamResponse]
	subscribe              *connect.Client[v1.SubscribeRequest, v1.SubscribeResponse]
	call                   *connect.Client[v1.CallRequest, v1.CallResponse]
	callStream             *connect.Client[v1.CallStreamRequest, v1.CallStreamResponse]
	connect                *connect.Client[v1.ConnectRequest, v1.ConnectResponse]
	ping                   *connect.Client[v1.PingRequest, v1.PingResponse]
	respondToServerRequest *connect.Client[v1.RespondToServerRequestRequest, v1.RespondToServerRequestResponse]
	startTask              *connect.Client[v1.StartTaskRequest, v1.StartTaskResponse]
	getTask                *connect.Client[v1.GetTaskRequest, v1.GetTaskResponse]
	waitTask               *connect.Client[v1.WaitTaskRequest, v1.WaitTaskResponse]
	watchTask              *connect.Client[v1.WatchTaskRequest, v1.WatchTaskResponse]
	answerTask             *connect.Client[v1.AnswerTaskRequest, v1.AnswerTaskResponse]
	cancelTask             *connect.Client[v1.CancelTaskRequest, v1.CancelTaskResponse]
	listTasks              *connect.Client[v1.ListTasksRequest, v1.ListTasksResponse]
}

// GetServer calls mcpbridge.v1.BridgeService.GetServer.
func (c *bridgeServiceClient) GetServer(ctx context.Context, req *connect.Request[v1.GetServerRequest]) (*connect.Response[v1.GetServerResponse], error) {
	return c.getServer.CallUnary(ctx, req)
}

// ListServers calls mcpbridge.v1.BridgeService.ListServers.
func (c *bridgeServiceClient) ListServers(ctx context.Context, req *connect.Request[v1.ListServersRequest]) (*connect.Response[v1.ListServersResponse], error) {
	return c.listServers.CallUnary(ctx, req)
}

// ListTools calls mcpbridge.v1.BridgeService.ListTools.
func (c *bridgeServiceClient) ListTools(ctx context.Context, req *connect.Request[v1.ListToolsRequest]) (*connect.Response[v1.ListToolsResponse], error) {
	return c.listTools.CallUnary(ctx, req)
}

// ListResources calls mcpbridge.v1.BridgeService.ListResources.
func (c *bridgeServiceClient) ListResources(ctx context.Context, req *connect.Request[v1.ListResourcesRequest]) (*connect.Response[v1.ListResourcesResponse], error) {
	return c.listResources.CallUnary(ctx, req)
}

// ListResourceTemplates calls mcpbridge.v1.BridgeService.ListResourceTemplates.
func (c *bridgeServiceClient) ListResourceTemplates(ctx context.Context, req *connect.Request[v1.ListResourceTemplatesRequest]) (*connect.Response[v1.ListResourceTemplatesResponse], error) {
	return c.listResourceTemplates.CallUnary(ctx, req)
}

// ListPrompts calls mcpbridge.v1.BridgeService.ListPrompts.
func (c *bridgeServiceClient) ListPrompts(ctx context.Context, req *connect.Request[v1.ListPromptsRequest]) (*connect.Response[v1.ListPromptsResponse], error) {
	return c.listPrompts.CallUnary(ctx, req)
}

// CallTool calls mcpbridge.v1.BridgeService.CallTool.
func (c *bridgeServiceClient) CallTool(ctx context.Context, req *connect.Request[v1.CallToolRequest]) (*connect.Response[v1.CallToolResponse], error) {
	return c.callTool.CallUnary(ctx, req)
}

// ReadResource calls mcpbridge.v1.BridgeService.ReadResource.
func (c *bridgeServiceClient) ReadResource(ctx context.Context, req *connect.Request[v1.ReadResourceRequest]) (*connect.Response[v1.ReadResourceResponse], error) {
	return c.readResource.CallUnary(ctx, req)
}

// GetPrompt calls mcpbridge.v1.BridgeService.GetPrompt.
func (c *bridgeServiceClient) GetPrompt(ctx context.Context, req *connect.Request[v1.GetPromptRequest]) (*connect.Response[v1.GetPromptResponse], error) {
	return c.getPrompt.CallUnary(ctx, req)
}

// Complete calls mcpbridge.v1.BridgeService.Complete.
func (c *bridgeServiceClient) Complete(ctx context.Context, req *connect.Request[v1.CompleteRequest]) (*connect.Response[v1.CompleteResponse], error) {
	return c.complete.CallUnary(ctx, req)
}

// CallToolStream calls mcpbridge.v1.BridgeService.CallToolStream.
func (c *bridgeServiceClient) CallToolStream(ctx context.Context, req *connect.Request[v1.CallToolStreamRequest]) (*connect.ServerStreamForClient[v1.CallToolStreamResponse], error) {
	return c.callToolStream.CallServerStream(ctx, req)
}

// Subscribe calls mcpbridge.v1.BridgeService.Subscribe.
func (c *bridgeServiceClient) Subscribe(ctx context.Context, req *connect.Request[v1.SubscribeRequest]) (*connect.ServerStreamForClient[v1.SubscribeResponse], error) {
	return c.subscribe.CallServerStream(ctx, req)
}

// Call calls mcpbridge.v1.BridgeService.Call.
func (c *bridgeServiceClient) Call(ctx context.Context, req *connect.Request[v1.CallRequest]) (*connect.Response[v1.CallResponse], error) {
	return c.call.CallUnary(ctx, req)
}

// CallStream calls mcpbridge.v1.BridgeService.CallStream.
func (c *bridgeServiceClient) CallStream(ctx context.Context, req *connect.Request[v1.CallStreamRequest]) (*connect.ServerStreamForClient[v1.CallStreamResponse], error) {
	return c.callStream.CallServerStream(ctx, req)
}

// Connect calls mcpbridge.v1.BridgeService.Connect.
func (c *bridgeServiceClient) Connect(ctx context.Context) *connect.BidiStreamForClient[v1.ConnectRequest, v1.ConnectResponse] {
	return c.connect.CallBidiStream(ctx)
}

// Ping calls mcpbridge.v1.BridgeService.Ping.
func (c *bridgeServiceClient) Ping(ctx context.Context, req *connect.Request[v1.PingRequest]) (*connect.Response[v1.PingResponse], error) {
	return c.ping.CallUnary(ctx, req)
}

// RespondToServerRequest calls mcpbridge.v1.BridgeService.RespondToServerRequest.
func (c *bridgeServiceClient) RespondToServerRequest(ctx context.Context, req *connect.Request[v1.RespondToServerRequestRequest]) (*connect.Response[v1.RespondToServerRequestResponse], error) {
	return c.respondToServerRequest.CallUnary(ctx, req)
}

// StartTask calls mcpbridge.v1.BridgeService.StartTask.
func (c *bridgeServiceClient) StartTask(ctx context.Context, req *connect.Request[v1.StartTaskRequest]) (*connect.Response[v1.StartTaskResponse], error) {
	return c.startTask.CallUnary(ctx, req)
}

// GetTask calls mcpbridge.v1.BridgeService.GetTask.
func (c *bridgeServiceClient) GetTask(ctx context.Context, req *connect.Request[v1.GetTaskRequest]) (*connect.Response[v1.GetTaskResponse], error) {
	return c.getTask.CallUnary(ctx, req)
}

// WaitTask calls mcpbridge.v1.BridgeService.WaitTask.
func (c *bridgeServiceClient) WaitTask(ctx context.Context, req *connect.Request[v1.WaitTaskRequest]) (*connect.Response[v1.WaitTaskResponse], error) {
	return c.waitTask.CallUnary(ctx, req)
}

// WatchTask calls mcpbridge.v1.BridgeService.WatchTask.
func (c *bridgeServiceClient) WatchTask(ctx context.Context, req *connect.Request[v1.WatchTaskRequest]) (*connect.ServerStreamForClient[v1.WatchTaskResponse], error) {
	return c.watchTask.CallServerStream(ctx, req)
}

// AnswerTask calls mcpbridge.v1.BridgeService.AnswerTask.
func (c *bridgeServiceClient) AnswerTask(ctx context.Context, req *connect.Request[v1.AnswerTaskRequest]) (*connect.Response[v1.AnswerTaskResponse], error) {
	return c.answerTask.CallUnary(ctx, req)
}

// CancelTask calls mcpbridge.v1.BridgeService.CancelTask.
func (c *bridgeServiceClient) CancelTask(ctx context.Context, req *connect.Request[v1.CancelTaskRequest]) (*connect.Response[v1.CancelTaskResponse], error) {
	return c.cancelTask.CallUnary(ctx, req)
}

// ListTasks calls mcpbridge.v1.BridgeService.ListTasks.
func (c *bridgeServiceClient) ListTasks(ctx context.Context, req *connect.Request[v1.ListTasksRequest]) (*connect.Response[v1.ListTasksResponse], error) {
	return c.listTasks.CallUnary(ctx, req)
}

// BridgeServiceHandler is an implementation of the mcpbridge.v1.BridgeService service.
type BridgeServiceHandler interface {
	// GetServer returns what the bridge negotiated with the child (protocol
	// version, server info, capabilities, instructions) and the child's state.
	// It is served from the bridge's cache and never waits: while the child
	// starts, restarts or is FAILED it answers at once with that state and
	// without the negotiated fields (use grpc.health.v1 Watch to wait for
	// SERVING).
	GetServer(context.Context, *connect.Request[v1.GetServerRequest]) (*connect.Response[v1.GetServerResponse], error)
	// ListServers returns every fronted server as GetServer describes it,
	// sorted by name, with each one's children. It never waits.
	ListServers(context.Context, *connect.Request[v1.ListServersRequest]) (*connect.Response[v1.ListServersResponse], error)
	// ListTools is `tools/list`: one page of the child's tools.
	ListTools(context.Context, *connect.Request[v1.ListToolsRequest]) (*connect.Response[v1.ListToolsResponse], error)
	// ListResources is `resources/list`: one page of the child's resources.
	ListResources(context.Context, *connect.Request[v1.ListResourcesRequest]) (*connect.Response[v1.ListResourcesResponse], error)
	// ListResourceTemplates is `resources/templates/list`: one page of the
	// child's resource templates.
	ListResourceTemplates(context.Context, *connect.Request[v1.ListResourceTemplatesRequest]) (*connect.Response[v1.ListResourceTemplatesResponse], error)
	// ListPrompts is `prompts/list`: one page of the child's prompts.
	ListPrompts(context.Context, *connect.Request[v1.ListPromptsRequest]) (*connect.Response[v1.ListPromptsResponse], error)
	// CallTool is `tools/call`. A tool that ran and failed (`isError`) is an
	// OK response with is_error set, never a gRPC error. A 2026 child may
	// answer with input_required (MRTR). No progress or logs are delivered;
	// use CallToolStream for those.
	CallTool(context.Context, *connect.Request[v1.CallToolRequest]) (*connect.Response[v1.CallToolResponse], error)
	// ReadResource is `resources/read`. A 2026 child may answer with
	// input_required (MRTR).
	ReadResource(context.Context, *connect.Request[v1.ReadResourceRequest]) (*connect.Response[v1.ReadResourceResponse], error)
	// GetPrompt is `prompts/get`. A 2026 child may answer with input_required
	// (MRTR).
	GetPrompt(context.Context, *connect.Request[v1.GetPromptRequest]) (*connect.Response[v1.GetPromptResponse], error)
	// Complete is `completion/complete`: suggestions for a prompt argument or
	// a resource template variable.
	Complete(context.Context, *connect.Request[v1.CompleteRequest]) (*connect.Response[v1.CompleteResponse], error)
	// CallToolStream is `tools/call` with a progress token: zero or more
	// progress, log and server_request messages, then exactly one result,
	// after which the stream ends with OK. Errors end the stream with a status
	// as for CallTool.
	CallToolStream(context.Context, *connect.Request[v1.CallToolStreamRequest], *connect.ServerStream[v1.CallToolStreamResponse]) error
	// Subscribe delivers list changes and resource updates. The first message
	// is always `acknowledged`, listing what the child honours. On a 2026
	// child it is a `subscriptions/listen` shared by every stream whose
	// request it covers, so that the child's limit on open listens does not
	// limit the subscribers; on a legacy child it is `resources/subscribe`
	// (reference-counted across subscribers) plus the child's
	// `notifications/*/list_changed` and `notifications/resources/updated`.
	// The stream ends with UNAVAILABLE when the child exits (subscribe again
	// after it restarts and re-read what you cache: events may have been
	// missed) and with OK when a 2026 child ends the listen it shares.
	Subscribe(context.Context, *connect.Request[v1.SubscribeRequest], *connect.ServerStream[v1.SubscribeResponse]) error
	// Call sends any MCP request method with params as JSON text and returns
	// the result as JSON text, losslessly. JSON-RPC errors map to a status as
	// everywhere else.
	Call(context.Context, *connect.Request[v1.CallRequest]) (*connect.Response[v1.CallResponse], error)
	// CallStream is Call with a progress token: zero or more progress, log and
	// server_request messages, then exactly one result.
	CallStream(context.Context, *connect.Request[v1.CallStreamRequest], *connect.ServerStream[v1.CallStreamResponse]) error
	// Connect is a raw JSON-RPC tunnel to the child, one JSON-RPC message per
	// stream item in both directions, for clients that speak MCP themselves.
	// Requests pass with the client's own params and `_meta`: on a 2026-07-28
	// child the client sends the `_meta` every request needs (protocol
	// version, client capabilities, client info), and a request without it,
	// or naming another version, gets the child's own answer. On a shared
	// child the bridge remaps ids, progress tokens and subscription ids so
	// that sharing is safe; the tunnel sees only its own. On a child of the
	// tunnel's own (a 2025 client's `initialize` on a server whose tunnels
	// are private) ids, progress tokens and cancellation reasons pass as the
	// client sent them. On a legacy child
	// the bridge answers the tunnel's `initialize` from the negotiated state
	// (the child is initialized once), absorbs `notifications/initialized`,
	// reference-counts `resources/subscribe` and `resources/unsubscribe`, and
	// answers `logging/setLevel` itself: the tunnel gets the child's logs
	// from that level up, and the child is held at least that verbose while
	// the tunnel is open. Server requests reach the
	// tunnel as described in the file comment. A client of the other era than
	// the child's is translated: a 2025 client (initialize) in front of a
	// 2026 child gets initialize answered, 2026 `_meta` added from its
	// initialize, and input_required results turned into requests into the
	// tunnel; a 2026 client in front of a legacy child gets 2026 validation,
	// server/discover, stamped results, subscriptions/listen, and the child's
	// requests as input_required rounds. A message that is not valid
	// JSON-RPC is answered in the tunnel with a JSON-RPC error (-32700 or
	// -32600) and never reaches the child. Half-closing the send side ends
	// the tunnel's listens and subscriptions, waits for its other requests in
	// flight, then ends the stream with OK; cancelling the RPC cancels them.
	Connect(context.Context, *connect.BidiStream[v1.ConnectRequest, v1.ConnectResponse]) error
	// Ping checks that the child answers: `ping` on a legacy child,
	// `server/discover` on a 2026 child (which has no ping). It returns the
	// round-trip time.
	Ping(context.Context, *connect.Request[v1.PingRequest]) (*connect.Response[v1.PingResponse], error)
	// RespondToServerRequest answers a ServerRequest that the bridge offered
	// on a stream. Send it with the request's routing_key as its
	// `mcp-session` metadata (none when routing_key is empty): an answer
	// belongs to the principal and to the sessions of the streams the request
	// was offered on. Unknown, expired or already answered ids are NOT_FOUND,
	// and so, with the same message and details, is an answer from another
	// principal or with another `mcp-session`: nothing tells a caller that
	// another session's request exists. An id another bridge replica minted
	// is NOT_FOUND with a message that says so (route the answer by
	// ServerRequest.routing_key).
	RespondToServerRequest(context.Context, *connect.Request[v1.RespondToServerRequestRequest]) (*connect.Response[v1.RespondToServerRequestResponse], error)
	// StartTask is `tools/call` run as an MCP task: a long-running operation
	// that outlives this RPC and the caller's connection (the file comment,
	// "Tasks"). The bridge asks the child for a task the way its era does
	// (the 2026-07-28 tasks extension declared in the request's client
	// capabilities; 2025-11-25's `params.task`) and returns the Task at once,
	// usually WORKING. A tool that does not run as a task on its child runs
	// to its end in this RPC instead, and the Task comes back done, with no
	// task_id. A task belongs to the caller's principal: no other principal
	// can get, wait for, watch, answer, cancel or list it. Beyond the
	// server's live-task caps (per principal and per server) the call is
	// RESOURCE_EXHAUSTED with RetryInfo.
	StartTask(context.Context, *connect.Request[v1.StartTaskRequest]) (*connect.Response[v1.StartTaskResponse], error)
	// GetTask is `tasks/get`: the task's latest state, and its result or
	// error once it is done. An unknown, expired or another principal's task
	// is NOT_FOUND, with the same message for each.
	GetTask(context.Context, *connect.Request[v1.GetTaskRequest]) (*connect.Response[v1.GetTaskResponse], error)
	// WaitTask returns the task once it is done or has input requests to
	// answer, or when the timeout passes (then as it is), as
	// google.longrunning's WaitOperation does; the bridge polls the child at
	// the task's poll interval (at least every second).
	WaitTask(context.Context, *connect.Request[v1.WaitTaskRequest]) (*connect.Response[v1.WaitTaskResponse], error)
	// WatchTask streams the task: its state now, then every change of state,
	// status message (where the task's progress is reported) or input
	// requests, and last the done Task with its result or error, after which
	// the stream ends with OK. Closing the stream does not cancel the task.
	WatchTask(context.Context, *connect.Request[v1.WatchTaskRequest], *connect.ServerStream[v1.WatchTaskResponse]) error
	// AnswerTask answers the task's input_requests: the 2026 `tasks/update`,
	// or, on a 2025-11-25 child, the answers to the requests it asked. It
	// returns the task's state after the answers.
	AnswerTask(context.Context, *connect.Request[v1.AnswerTaskRequest]) (*connect.Response[v1.AnswerTaskResponse], error)
	// CancelTask is `tasks/cancel`: the work is stopped and the task ends
	// CANCELLED, unless it ended already (cancellation does not undo a
	// result). It returns the task's state after the cancellation.
	CancelTask(context.Context, *connect.Request[v1.CancelTaskRequest]) (*connect.Response[v1.CancelTaskResponse], error)
	// ListTasks lists the caller's tasks on one server, oldest first, as the
	// bridge saw them created (through any door), with their state now.
	// Tasks that expired or that the child no longer knows are left out.
	ListTasks(context.Context, *connect.Request[v1.ListTasksRequest]) (*connect.Response[v1.ListTasksResponse], error)
}

// NewBridgeServiceHandler builds an HTTP handler from the service implementation. It returns the
// path on which to mount the handler and the handler itself.
//
// By default, handlers support the Connect, gRPC, and gRPC-Web protocols with the binary Protobuf
// and JSON codecs. They also support gzip compression.
func NewBridgeServiceHandler(svc BridgeServiceHandler, opts ...connect.HandlerOption) (string, http.Handler) {
	bridgeServiceMethods := v1.File_mcpbridge_v1_bridge_proto.Services().ByName("BridgeService").Methods()
	bridgeServiceGetServerHandler := connect.NewUnaryHandler(
		BridgeServiceGetServerProcedure,
		svc.GetServer,
		connect.WithSchema(bridgeServiceMethods.ByName("GetServer")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceListServersHandler := connect.NewUnaryHandler(
		BridgeServiceListServersProcedure,
		svc.ListServers,
		connect.WithSchema(bridgeServiceMethods.ByName("ListServers")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceListToolsHandler := connect.NewUnaryHandler(
		BridgeServiceListToolsProcedure,
		svc.ListTools,
		connect.WithSchema(bridgeServiceMethods.ByName("ListTools")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceListResourcesHandler := connect.NewUnaryHandler(
		BridgeServiceListResourcesProcedure,
		svc.ListResources,
		connect.WithSchema(bridgeServiceMethods.ByName("ListResources")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceListResourceTemplatesHandler := connect.NewUnaryHandler(
		BridgeServiceListResourceTemplatesProcedure,
		svc.ListResourceTemplates,
		connect.WithSchema(bridgeServiceMethods.ByName("ListResourceTemplates")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceListPromptsHandler := connect.NewUnaryHandler(
		BridgeServiceListPromptsProcedure,
		svc.ListPrompts,
		connect.WithSchema(bridgeServiceMethods.ByName("ListPrompts")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceCallToolHandler := connect.NewUnaryHandler(
		BridgeServiceCallToolProcedure,
		svc.CallTool,
		connect.WithSchema(bridgeServiceMethods.ByName("CallTool")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceReadResourceHandler := connect.NewUnaryHandler(
		BridgeServiceReadResourceProcedure,
		svc.ReadResource,
		connect.WithSchema(bridgeServiceMethods.ByName("ReadResource")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceGetPromptHandler := connect.NewUnaryHandler(
		BridgeServiceGetPromptProcedure,
		svc.GetPrompt,
		connect.WithSchema(bridgeServiceMethods.ByName("GetPrompt")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceCompleteHandler := connect.NewUnaryHandler(
		BridgeServiceCompleteProcedure,
		svc.Complete,
		connect.WithSchema(bridgeServiceMethods.ByName("Complete")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceCallToolStreamHandler := connect.NewServerStreamHandler(
		BridgeServiceCallToolStreamProcedure,
		svc.CallToolStream,
		connect.WithSchema(bridgeServiceMethods.ByName("CallToolStream")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceSubscribeHandler := connect.NewServerStreamHandler(
		BridgeServiceSubscribeProcedure,
		svc.Subscribe,
		connect.WithSchema(bridgeServiceMethods.ByName("Subscribe")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceCallHandler := connect.NewUnaryHandler(
		BridgeServiceCallProcedure,
		svc.Call,
		connect.WithSchema(bridgeServiceMethods.ByName("Call")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceCallStreamHandler := connect.NewServerStreamHandler(
		BridgeServiceCallStreamProcedure,
		svc.CallStream,
		connect.WithSchema(bridgeServiceMethods.ByName("CallStream")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceConnectHandler := connect.NewBidiStreamHandler(
		BridgeServiceConnectProcedure,
		svc.Connect,
		connect.WithSchema(bridgeServiceMethods.ByName("Connect")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServicePingHandler := connect.NewUnaryHandler(
		BridgeServicePingProcedure,
		svc.Ping,
		connect.WithSchema(bridgeServiceMethods.ByName("Ping")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceRespondToServerRequestHandler := connect.NewUnaryHandler(
		BridgeServiceRespondToServerRequestProcedure,
		svc.RespondToServerRequest,
		connect.WithSchema(bridgeServiceMethods.ByName("RespondToServerRequest")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceStartTaskHandler := connect.NewUnaryHandler(
		BridgeServiceStartTaskProcedure,
		svc.StartTask,
		connect.WithSchema(bridgeServiceMethods.ByName("StartTask")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceGetTaskHandler := connect.NewUnaryHandler(
		BridgeServiceGetTaskProcedure,
		svc.GetTask,
		connect.WithSchema(bridgeServiceMethods.ByName("GetTask")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceWaitTaskHandler := connect.NewUnaryHandler(
		BridgeServiceWaitTaskProcedure,
		svc.WaitTask,
		connect.WithSchema(bridgeServiceMethods.ByName("WaitTask")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceWatchTaskHandler := connect.NewServerStreamHandler(
		BridgeServiceWatchTaskProcedure,
		svc.WatchTask,
		connect.WithSchema(bridgeServiceMethods.ByName("WatchTask")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceAnswerTaskHandler := connect.NewUnaryHandler(
		BridgeServiceAnswerTaskProcedure,
		svc.AnswerTask,
		connect.WithSchema(bridgeServiceMethods.ByName("AnswerTask")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceCancelTaskHandler := connect.NewUnaryHandler(
		BridgeServiceCancelTaskProcedure,
		svc.CancelTask,
		connect.WithSchema(bridgeServiceMethods.ByName("CancelTask")),
		connect.WithHandlerOptions(opts...),
	)
	bridgeServiceListTasksHandler := connect.NewUnaryHandler(
		BridgeServiceListTasksProcedure,
		svc.ListTasks,
		connect.WithSchema(bridgeServiceMethods.ByName("ListTasks")),
		connect.WithHandlerOptions(opts...),
	)
	return "/mcpbridge.v1.BridgeService/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case BridgeServiceGetServerProcedure:
			bridgeServiceGetServerHandler.ServeHTTP(w, r)
		case BridgeServiceListServersProcedure:
			bridgeServiceListServersHandler.ServeHTTP(w, r)
		case BridgeServiceListToolsProcedure:
			bridgeServiceListToolsHandler.ServeHTTP(w, r)
		case BridgeServiceListResourcesProcedure:
			bridgeServiceListResourcesHandler.ServeHTTP(w, r)
		case BridgeServiceListResourceTemplatesProcedure:
			bridgeServiceListResourceTemplatesHandler.ServeHTTP(w, r)
		case BridgeServiceListPromptsProcedure:
			bridgeServiceListPromptsHandler.ServeHTTP(w, r)
		case BridgeServiceCallToolProcedure:
			bridgeServiceCallToolHandler.ServeHTTP(w, r)
		case BridgeServiceReadResourceProcedure:
			bridgeServiceReadResourceHandler.ServeHTTP(w, r)
		case BridgeServiceGetPromptProcedure:
			bridgeServiceGetPromptHandler.ServeHTTP(w, r)
		case BridgeServiceCompleteProcedure:
			bridgeServiceCompleteHandler.ServeHTTP(w, r)
		case BridgeServiceCallToolStreamProcedure:
			bridgeServiceCallToolStreamHandler.ServeHTTP(w, r)
		case BridgeServiceSubscribeProcedure:
			bridgeServiceSubscribeHandler.ServeHTTP(w, r)
		case BridgeServiceCallProcedure:
			bridgeServiceCallHandler.ServeHTTP(w, r)
		case BridgeServiceCallStreamProcedure:
			bridgeServiceCallStreamHandler.ServeHTTP(w, r)
		case BridgeServiceConnectProcedure:
			bridgeServiceConnectHandler.ServeHTTP(w, r)
		case BridgeServicePingProcedure:
			bridgeServicePingHandler.ServeHTTP(w, r)
		case BridgeServiceRespondToServerRequestProcedure:
			bridgeServiceRespondToServerRequestHandler.ServeHTTP(w, r)
		case BridgeServiceStartTaskProcedure:
			bridgeServiceStartTaskHandler.ServeHTTP(w, r)
		case BridgeServiceGetTaskProcedure:
			bridgeServiceGetTaskHandler.ServeHTTP(w, r)
		case BridgeServiceWaitTaskProcedure:
			bridgeServiceWaitTaskHandler.ServeHTTP(w, r)
		case BridgeServiceWatchTaskProcedure:
			bridgeServiceWatchTaskHandler.ServeHTTP(w, r)
		case BridgeServiceAnswerTaskProcedure:
			bridgeServiceAnswerTaskHandler.ServeHTTP(w, r)
		case BridgeServiceCancelTaskProcedure:
			bridgeServiceCancelTaskHandler.ServeHTTP(w, r)
		case BridgeServiceListTasksProcedure:
			bridgeServiceListTasksHandler.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	})
}

// UnimplementedBridgeServiceHandler returns CodeUnimplemented from all methods.
type UnimplementedBridgeServiceHandler struct{}

func (UnimplementedBridgeServiceHandler) GetServer(context.Context, *connect.Request[v1.GetServerRequest]) (*connect.Response[v1.GetServerResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.GetServer is not implemented"))
}

func (UnimplementedBridgeServiceHandler) ListServers(context.Context, *connect.Request[v1.ListServersRequest]) (*connect.Response[v1.ListServersResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.ListServers is not implemented"))
}

func (UnimplementedBridgeServiceHandler) ListTools(context.Context, *connect.Request[v1.ListToolsRequest]) (*connect.Response[v1.ListToolsResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.ListTools is not implemented"))
}

func (UnimplementedBridgeServiceHandler) ListResources(context.Context, *connect.Request[v1.ListResourcesRequest]) (*connect.Response[v1.ListResourcesResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.ListResources is not implemented"))
}

func (UnimplementedBridgeServiceHandler) ListResourceTemplates(context.Context, *connect.Request[v1.ListResourceTemplatesRequest]) (*connect.Response[v1.ListResourceTemplatesResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.ListResourceTemplates is not implemented"))
}

func (UnimplementedBridgeServiceHandler) ListPrompts(context.Context, *connect.Request[v1.ListPromptsRequest]) (*connect.Response[v1.ListPromptsResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.ListPrompts is not implemented"))
}

func (UnimplementedBridgeServiceHandler) CallTool(context.Context, *connect.Request[v1.CallToolRequest]) (*connect.Response[v1.CallToolResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.CallTool is not implemented"))
}

func (UnimplementedBridgeServiceHandler) ReadResource(context.Context, *connect.Request[v1.ReadResourceRequest]) (*connect.Response[v1.ReadResourceResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.ReadResource is not implemented"))
}

func (UnimplementedBridgeServiceHandler) GetPrompt(context.Context, *connect.Request[v1.GetPromptRequest]) (*connect.Response[v1.GetPromptResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.GetPrompt is not implemented"))
}

func (UnimplementedBridgeServiceHandler) Complete(context.Context, *connect.Request[v1.CompleteRequest]) (*connect.Response[v1.CompleteResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.Complete is not implemented"))
}

func (UnimplementedBridgeServiceHandler) CallToolStream(context.Context, *connect.Request[v1.CallToolStreamRequest], *connect.ServerStream[v1.CallToolStreamResponse]) error {
	return connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.CallToolStream is not implemented"))
}

func (UnimplementedBridgeServiceHandler) Subscribe(context.Context, *connect.Request[v1.SubscribeRequest], *connect.ServerStream[v1.SubscribeResponse]) error {
	return connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.Subscribe is not implemented"))
}

func (UnimplementedBridgeServiceHandler) Call(context.Context, *connect.Request[v1.CallRequest]) (*connect.Response[v1.CallResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.Call is not implemented"))
}

func (UnimplementedBridgeServiceHandler) CallStream(context.Context, *connect.Request[v1.CallStreamRequest], *connect.ServerStream[v1.CallStreamResponse]) error {
	return connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.CallStream is not implemented"))
}

func (UnimplementedBridgeServiceHandler) Connect(context.Context, *connect.BidiStream[v1.ConnectRequest, v1.ConnectResponse]) error {
	return connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.Connect is not implemented"))
}

func (UnimplementedBridgeServiceHandler) Ping(context.Context, *connect.Request[v1.PingRequest]) (*connect.Response[v1.PingResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.Ping is not implemented"))
}

func (UnimplementedBridgeServiceHandler) RespondToServerRequest(context.Context, *connect.Request[v1.RespondToServerRequestRequest]) (*connect.Response[v1.RespondToServerRequestResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.RespondToServerRequest is not implemented"))
}

func (UnimplementedBridgeServiceHandler) StartTask(context.Context, *connect.Request[v1.StartTaskRequest]) (*connect.Response[v1.StartTaskResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.StartTask is not implemented"))
}

func (UnimplementedBridgeServiceHandler) GetTask(context.Context, *connect.Request[v1.GetTaskRequest]) (*connect.Response[v1.GetTaskResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.GetTask is not implemented"))
}

func (UnimplementedBridgeServiceHandler) WaitTask(context.Context, *connect.Request[v1.WaitTaskRequest]) (*connect.Response[v1.WaitTaskResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.WaitTask is not implemented"))
}

func (UnimplementedBridgeServiceHandler) WatchTask(context.Context, *connect.Request[v1.WatchTaskRequest], *connect.ServerStream[v1.WatchTaskResponse]) error {
	return connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.WatchTask is not implemented"))
}

func (UnimplementedBridgeServiceHandler) AnswerTask(context.Context, *connect.Request[v1.AnswerTaskRequest]) (*connect.Response[v1.AnswerTaskResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.AnswerTask is not implemented"))
}

func (UnimplementedBridgeServiceHandler) CancelTask(context.Context, *connect.Request[v1.CancelTaskRequest]) (*connect.Response[v1.CancelTaskResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.CancelTask is not implemented"))
}

func (UnimplementedBridgeServiceHandler) ListTasks(context.Context, *connect.Request[v1.ListTasksRequest]) (*connect.Response[v1.ListTasksResponse], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("mcpbridge.v1.BridgeService.ListTasks is not implemented"))
}
