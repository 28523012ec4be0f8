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

// Code generated by protoc-gen-go-grpc. DO NOT EDIT.
// versions:
// - protoc-gen-go-grpc v1.6.2
// - protoc             (unknown)
// source: mcpbridge/v1/bridge.proto

package mcpbridgev1

import (
	context "context"
	grpc "google.golang.org/grpc"
	codes "google.golang.org/grpc/codes"
	status "google.golang.org/grpc/status"
)

// This is a compile-time assertion to ensure that this generated file
// is compatible with the grpc package it is being compiled against.
// Requires gRPC-Go v1.64.0 or later.
const _ = grpc.SupportPackageIsVersion9

const (
	BridgeService_GetServer_FullMethodName              = "/mcpbridge.v1.BridgeService/GetServer"
	BridgeService_ListServers_FullMethodName            = "/mcpbridge.v1.BridgeService/ListServers"
	BridgeService_ListTools_FullMethodName              = "/mcpbridge.v1.BridgeService/ListTools"
	BridgeService_ListResources_FullMethodName          = "/mcpbridge.v1.BridgeService/ListResources"
	BridgeService_ListResourceTemplates_FullMethodName  = "/mcpbridge.v1.BridgeService/ListResourceTemplates"
	BridgeService_ListPrompts_FullMethodName            = "/mcpbridge.v1.BridgeService/ListPrompts"
	BridgeService_CallTool_FullMethodName               = "/mcpbridge.v1.BridgeService/CallTool"
	BridgeService_ReadResource_FullMethodName           = "/mcpbridge.v1.BridgeService/ReadResource"
	BridgeService_GetPrompt_FullMethodName              = "/mcpbridge.v1.BridgeService/GetPrompt"
	BridgeService_Complete_FullMethodName               = "/mcpbridge.v1.BridgeService/Complete"
	BridgeService_CallToolStream_FullMethodName         = "/mcpbridge.v1.BridgeService/CallToolStream"
	BridgeService_Subscribe_FullMethodName              = "/mcpbridge.v1.BridgeService/Subscribe"
	BridgeService_Call_FullMethodName                   = "/mcpbridge.v1.BridgeService/Call"
	BridgeService_CallStream_FullMethodName             = "/mcpbridge.v1.BridgeService/CallStream"
	BridgeService_Connect_FullMethodName                = "/mcpbridge.v1.BridgeService/Connect"
	BridgeService_Ping_FullMethodName                   = "/mcpbridge.v1.BridgeService/Ping"
	BridgeService_RespondToServerRequest_FullMethodName = "/mcpbridge.v1.BridgeService/RespondToServerRequest"
	BridgeService_StartTask_FullMethodName              = "/mcpbridge.v1.BridgeService/StartTask"
	BridgeService_GetTask_FullMethodName                = "/mcpbridge.v1.BridgeService/GetTask"
	BridgeService_WaitTask_FullMethodName               = "/mcpbridge.v1.BridgeService/WaitTask"
	BridgeService_WatchTask_FullMethodName              = "/mcpbridge.v1.BridgeService/WatchTask"
	BridgeService_AnswerTask_FullMethodName             = "/mcpbridge.v1.BridgeService/AnswerTask"
	BridgeService_CancelTask_FullMethodName             = "/mcpbridge.v1.BridgeService/CancelTask"
	BridgeService_ListTasks_FullMethodName              = "/mcpbridge.v1.BridgeService/ListTasks"
)

// BridgeServiceClient is the client API for BridgeService service.
//
// For semantics around ctx use and closing/ending streaming RPCs, please refer to https://pkg.go.dev/google.golang.org/grpc/?tab=doc#ClientConn.NewStream.
//
// BridgeService fronts one or more stdio MCP servers. The file comment of
// mcpbridge/v1/bridge.proto describes server selection, deadlines, the error
// mapping and the routing of requests from legacy children.
type BridgeServiceClient interface {
	// GetServer returns what the bridge negotiated with the child (protocol
	// version, server info, capabilities, instructions) and the child's state.
	// It is served from the bridge's cache and never waits: while the child
	// starts, restarts or is FAILED it answers at once with that state and
	// without the negotiated fields (use grpc.health.v1 Watch to wait for
	// SERVING).
	GetServer(ctx context.Context, in *GetServerRequest, opts ...grpc.CallOption) (*GetServerResponse, error)
	// ListServers returns every fronted server as GetServer describes it,
	// sorted by name, with each one's children. It never waits.
	ListServers(ctx context.Context, in *ListServersRequest, opts ...grpc.CallOption) (*ListServersResponse, error)
	// ListTools is `tools/list`: one page of the child's tools.
	ListTools(ctx context.Context, in *ListToolsRequest, opts ...grpc.CallOption) (*ListToolsResponse, error)
	// ListResources is `resources/list`: one page of the child's resources.
	ListResources(ctx context.Context, in *ListResourcesRequest, opts ...grpc.CallOption) (*ListResourcesResponse, error)
	// ListResourceTemplates is `resources/templates/list`: one page of the
	// child's resource templates.
	ListResourceTemplates(ctx context.Context, in *ListResourceTemplatesRequest, opts ...grpc.CallOption) (*ListResourceTemplatesResponse, error)
	// ListPrompts is `prompts/list`: one page of the child's prompts.
	ListPrompts(ctx context.Context, in *ListPromptsRequest, opts ...grpc.CallOption) (*ListPromptsResponse, error)
	// CallTool is `tools/call`. A tool that ran and failed (`isError`) is an
	// OK response with is_error set, never a gRPC error. A 2026 child may
	// answer with input_required (MRTR). No progress or logs are delivered;
	// use CallToolStream for those.
	CallTool(ctx context.Context, in *CallToolRequest, opts ...grpc.CallOption) (*CallToolResponse, error)
	// ReadResource is `resources/read`. A 2026 child may answer with
	// input_required (MRTR).
	ReadResource(ctx context.Context, in *ReadResourceRequest, opts ...grpc.CallOption) (*ReadResourceResponse, error)
	// GetPrompt is `prompts/get`. A 2026 child may answer with input_required
	// (MRTR).
	GetPrompt(ctx context.Context, in *GetPromptRequest, opts ...grpc.CallOption) (*GetPromptResponse, error)
	// Complete is `completion/complete`: suggestions for a prompt argument or
	// a resource template variable.
	Complete(ctx context.Context, in *CompleteRequest, opts ...grpc.CallOption) (*CompleteResponse, error)
	// CallToolStream is `tools/call` with a progress token: zero or more
	// progress, log and server_request messages, then exactly one result,
	// after which the stream ends with OK. Errors end the stream with a status
	// as for CallTool.
	CallToolStream(ctx context.Context, in *CallToolStreamRequest, opts ...grpc.CallOption) (grpc.ServerStreamingClient[CallToolStreamResponse], error)
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
	Subscribe(ctx context.Context, in *SubscribeRequest, opts ...grpc.CallOption) (grpc.ServerStreamingClient[SubscribeResponse], error)
	// Call sends any MCP request method with params as JSON text and returns
	// the result as JSON text, losslessly. JSON-RPC errors map to a status as
	// everywhere else.
	Call(ctx context.Context, in *CallRequest, opts ...grpc.CallOption) (*CallResponse, error)
	// CallStream is Call with a progress token: zero or more progress, log and
	// server_request messages, then exactly one result.
	CallStream(ctx context.Context, in *CallStreamRequest, opts ...grpc.CallOption) (grpc.ServerStreamingClient[CallStreamResponse], error)
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
	Connect(ctx context.Context, opts ...grpc.CallOption) (grpc.BidiStreamingClient[ConnectRequest, ConnectResponse], error)
	// Ping checks that the child answers: `ping` on a legacy child,
	// `server/discover` on a 2026 child (which has no ping). It returns the
	// round-trip time.
	Ping(ctx context.Context, in *PingRequest, opts ...grpc.CallOption) (*PingResponse, error)
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
	RespondToServerRequest(ctx context.Context, in *RespondToServerRequestRequest, opts ...grpc.CallOption) (*RespondToServerRequestResponse, error)
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
	StartTask(ctx context.Context, in *StartTaskRequest, opts ...grpc.CallOption) (*StartTaskResponse, error)
	// GetTask is `tasks/get`: the task's latest state, and its result or
	// error once it is done. An unknown, expired or another principal's task
	// is NOT_FOUND, with the same message for each.
	GetTask(ctx context.Context, in *GetTaskRequest, opts ...grpc.CallOption) (*GetTaskResponse, error)
	// WaitTask returns the task once it is done or has input requests to
	// answer, or when the timeout passes (then as it is), as
	// google.longrunning's WaitOperation does; the bridge polls the child at
	// the task's poll interval (at least every second).
	WaitTask(ctx context.Context, in *WaitTaskRequest, opts ...grpc.CallOption) (*WaitTaskResponse, error)
	// WatchTask streams the task: its state now, then every change of state,
	// status message (where the task's progress is reported) or input
	// requests, and last the done Task with its result or error, after which
	// the stream ends with OK. Closing the stream does not cancel the task.
	WatchTask(ctx context.Context, in *WatchTaskRequest, opts ...grpc.CallOption) (grpc.ServerStreamingClient[WatchTaskResponse], error)
	// AnswerTask answers the task's input_requests: the 2026 `tasks/update`,
	// or, on a 2025-11-25 child, the answers to the requests it asked. It
	// returns the task's state after the answers.
	AnswerTask(ctx context.Context, in *AnswerTaskRequest, opts ...grpc.CallOption) (*AnswerTaskResponse, error)
	// CancelTask is `tasks/cancel`: the work is stopped and the task ends
	// CANCELLED, unless it ended already (cancellation does not undo a
	// result). It returns the task's state after the cancellation.
	CancelTask(ctx context.Context, in *CancelTaskRequest, opts ...grpc.CallOption) (*CancelTaskResponse, error)
	// ListTasks lists the caller's tasks on one server, oldest first, as the
	// bridge saw them created (through any door), with their state now.
	// Tasks that expired or that the child no longer knows are left out.
	ListTasks(ctx context.Context, in *ListTasksRequest, opts ...grpc.CallOption) (*ListTasksResponse, error)
}

type bridgeServiceClient struct {
	cc grpc.ClientConnInterface
}

func NewBridgeServiceClient(cc grpc.ClientConnInterface) BridgeServiceClient {
	return &bridgeServiceClient{cc}
}

func (c *bridgeServiceClient) GetServer(ctx context.Context, in *GetServerRequest, opts ...grpc.CallOption) (*GetServerResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(GetServerResponse)
	err := c.cc.Invoke(ctx, BridgeService_GetServer_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) ListServers(ctx context.Context, in *ListServersRequest, opts ...grpc.CallOption) (*ListServersResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(ListServersResponse)
	err := c.cc.Invoke(ctx, BridgeService_ListServers_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) ListTools(ctx context.Context, in *ListToolsRequest, opts ...grpc.CallOption) (*ListToolsResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(ListToolsResponse)
	err := c.cc.Invoke(ctx, BridgeService_ListTools_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) ListResources(ctx context.Context, in *ListResourcesRequest, opts ...grpc.CallOption) (*ListResourcesResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(ListResourcesResponse)
	err := c.cc.Invoke(ctx, BridgeService_ListResources_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) ListResourceTemplates(ctx context.Context, in *ListResourceTemplatesRequest, opts ...grpc.CallOption) (*ListResourceTemplatesResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(ListResourceTemplatesResponse)
	err := c.cc.Invoke(ctx, BridgeService_ListResourceTemplates_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) ListPrompts(ctx context.Context, in *ListPromptsRequest, opts ...grpc.CallOption) (*ListPromptsResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(ListPromptsResponse)
	err := c.cc.Invoke(ctx, BridgeService_ListPrompts_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) CallTool(ctx context.Context, in *CallToolRequest, opts ...grpc.CallOption) (*CallToolResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(CallToolResponse)
	err := c.cc.Invoke(ctx, BridgeService_CallTool_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) ReadResource(ctx context.Context, in *ReadResourceRequest, opts ...grpc.CallOption) (*ReadResourceResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(ReadResourceResponse)
	err := c.cc.Invoke(ctx, BridgeService_ReadResource_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) GetPrompt(ctx context.Context, in *GetPromptRequest, opts ...grpc.CallOption) (*GetPromptResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(GetPromptResponse)
	err := c.cc.Invoke(ctx, BridgeService_GetPrompt_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) Complete(ctx context.Context, in *CompleteRequest, opts ...grpc.CallOption) (*CompleteResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(CompleteResponse)
	err := c.cc.Invoke(ctx, BridgeService_Complete_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) CallToolStream(ctx context.Context, in *CallToolStreamRequest, opts ...grpc.CallOption) (grpc.ServerStreamingClient[CallToolStreamResponse], error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	stream, err := c.cc.NewStream(ctx, &BridgeService_ServiceDesc.Streams[0], BridgeService_CallToolStream_FullMethodName, cOpts...)
	if err != nil {
		return nil, err
	}
	x := &grpc.GenericClientStream[CallToolStreamRequest, CallToolStreamResponse]{ClientStream: stream}
	if err := x.ClientStream.SendMsg(in); err != nil {
		return nil, err
	}
	if err := x.ClientStream.CloseSend(); err != nil {
		return nil, err
	}
	return x, nil
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type BridgeService_CallToolStreamClient = grpc.ServerStreamingClient[CallToolStreamResponse]

func (c *bridgeServiceClient) Subscribe(ctx context.Context, in *SubscribeRequest, opts ...grpc.CallOption) (grpc.ServerStreamingClient[SubscribeResponse], error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	stream, err := c.cc.NewStream(ctx, &BridgeService_ServiceDesc.Streams[1], BridgeService_Subscribe_FullMethodName, cOpts...)
	if err != nil {
		return nil, err
	}
	x := &grpc.GenericClientStream[SubscribeRequest, SubscribeResponse]{ClientStream: stream}
	if err := x.ClientStream.SendMsg(in); err != nil {
		return nil, err
	}
	if err := x.ClientStream.CloseSend(); err != nil {
		return nil, err
	}
	return x, nil
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type BridgeService_SubscribeClient = grpc.ServerStreamingClient[SubscribeResponse]

func (c *bridgeServiceClient) Call(ctx context.Context, in *CallRequest, opts ...grpc.CallOption) (*CallResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(CallResponse)
	err := c.cc.Invoke(ctx, BridgeService_Call_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) CallStream(ctx context.Context, in *CallStreamRequest, opts ...grpc.CallOption) (grpc.ServerStreamingClient[CallStreamResponse], error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	stream, err := c.cc.NewStream(ctx, &BridgeService_ServiceDesc.Streams[2], BridgeService_CallStream_FullMethodName, cOpts...)
	if err != nil {
		return nil, err
	}
	x := &grpc.GenericClientStream[CallStreamRequest, CallStreamResponse]{ClientStream: stream}
	if err := x.ClientStream.SendMsg(in); err != nil {
		return nil, err
	}
	if err := x.ClientStream.CloseSend(); err != nil {
		return nil, err
	}
	return x, nil
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type BridgeService_CallStreamClient = grpc.ServerStreamingClient[CallStreamResponse]

func (c *bridgeServiceClient) Connect(ctx context.Context, opts ...grpc.CallOption) (grpc.BidiStreamingClient[ConnectRequest, ConnectResponse], error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	stream, err := c.cc.NewStream(ctx, &BridgeService_ServiceDesc.Streams[3], BridgeService_Connect_FullMethodName, cOpts...)
	if err != nil {
		return nil, err
	}
	x := &grpc.GenericClientStream[ConnectRequest, ConnectResponse]{ClientStream: stream}
	return x, nil
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type BridgeService_ConnectClient = grpc.BidiStreamingClient[ConnectRequest, ConnectResponse]

func (c *bridgeServiceClient) Ping(ctx context.Context, in *PingRequest, opts ...grpc.CallOption) (*PingResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(PingResponse)
	err := c.cc.Invoke(ctx, BridgeService_Ping_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) RespondToServerRequest(ctx context.Context, in *RespondToServerRequestRequest, opts ...grpc.CallOption) (*RespondToServerRequestResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(RespondToServerRequestResponse)
	err := c.cc.Invoke(ctx, BridgeService_RespondToServerRequest_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) StartTask(ctx context.Context, in *StartTaskRequest, opts ...grpc.CallOption) (*StartTaskResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(StartTaskResponse)
	err := c.cc.Invoke(ctx, BridgeService_StartTask_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) GetTask(ctx context.Context, in *GetTaskRequest, opts ...grpc.CallOption) (*GetTaskResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(GetTaskResponse)
	err := c.cc.Invoke(ctx, BridgeService_GetTask_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) WaitTask(ctx context.Context, in *WaitTaskRequest, opts ...grpc.CallOption) (*WaitTaskResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(WaitTaskResponse)
	err := c.cc.Invoke(ctx, BridgeService_WaitTask_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) WatchTask(ctx context.Context, in *WatchTaskRequest, opts ...grpc.CallOption) (grpc.ServerStreamingClient[WatchTaskResponse], error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	stream, err := c.cc.NewStream(ctx, &BridgeService_ServiceDesc.Streams[4], BridgeService_WatchTask_FullMethodName, cOpts...)
	if err != nil {
		return nil, err
	}
	x := &grpc.GenericClientStream[WatchTaskRequest, WatchTaskResponse]{ClientStream: stream}
	if err := x.ClientStream.SendMsg(in); err != nil {
		return nil, err
	}
	if err := x.ClientStream.CloseSend(); err != nil {
		return nil, err
	}
	return x, nil
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type BridgeService_WatchTaskClient = grpc.ServerStreamingClient[WatchTaskResponse]

func (c *bridgeServiceClient) AnswerTask(ctx context.Context, in *AnswerTaskRequest, opts ...grpc.CallOption) (*AnswerTaskResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(AnswerTaskResponse)
	err := c.cc.Invoke(ctx, BridgeService_AnswerTask_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) CancelTask(ctx context.Context, in *CancelTaskRequest, opts ...grpc.CallOption) (*CancelTaskResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(CancelTaskResponse)
	err := c.cc.Invoke(ctx, BridgeService_CancelTask_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *bridgeServiceClient) ListTasks(ctx context.Context, in *ListTasksRequest, opts ...grpc.CallOption) (*ListTasksResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(ListTasksResponse)
	err := c.cc.Invoke(ctx, BridgeService_ListTasks_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BridgeServiceServer is the server API for BridgeService service.
// All implementations must embed UnimplementedBridgeServiceServer
// for forward compatibility.
//
// BridgeService fronts one or more stdio MCP servers. The file comment of
// mcpbridge/v1/bridge.proto describes server selection, deadlines, the error
// mapping and the routing of requests from legacy children.
type BridgeServiceServer interface {
	// GetServer returns what the bridge negotiated with the child (protocol
	// version, server info, capabilities, instructions) and the child's state.
	// It is served from the bridge's cache and never waits: while the child
	// starts, restarts or is FAILED it answers at once with that state and
	// without the negotiated fields (use grpc.health.v1 Watch to wait for
	// SERVING).
	GetServer(context.Context, *GetServerRequest) (*GetServerResponse, error)
	// ListServers returns every fronted server as GetServer describes it,
	// sorted by name, with each one's children. It never waits.
	ListServers(context.Context, *ListServersRequest) (*ListServersResponse, error)
	// ListTools is `tools/list`: one page of the child's tools.
	ListTools(context.Context, *ListToolsRequest) (*ListToolsResponse, error)
	// ListResources is `resources/list`: one page of the child's resources.
	ListResources(context.Context, *ListResourcesRequest) (*ListResourcesResponse, error)
	// ListResourceTemplates is `resources/templates/list`: one page of the
	// child's resource templates.
	ListResourceTemplates(context.Context, *ListResourceTemplatesRequest) (*ListResourceTemplatesResponse, error)
	// ListPrompts is `prompts/list`: one page of the child's prompts.
	ListPrompts(context.Context, *ListPromptsRequest) (*ListPromptsResponse, error)
	// CallTool is `tools/call`. A tool that ran and failed (`isError`) is an
	// OK response with is_error set, never a gRPC error. A 2026 child may
	// answer with input_required (MRTR). No progress or logs are delivered;
	// use CallToolStream for those.
	CallTool(context.Context, *CallToolRequest) (*CallToolResponse, error)
	// ReadResource is `resources/read`. A 2026 child may answer with
	// input_required (MRTR).
	ReadResource(context.Context, *ReadResourceRequest) (*ReadResourceResponse, error)
	// GetPrompt is `prompts/get`. A 2026 child may answer with input_required
	// (MRTR).
	GetPrompt(context.Context, *GetPromptRequest) (*GetPromptResponse, error)
	// Complete is `completion/complete`: suggestions for a prompt argument or
	// a resource template variable.
	Complete(context.Context, *CompleteRequest) (*CompleteResponse, error)
	// CallToolStream is `tools/call` with a progress token: zero or more
	// progress, log and server_request messages, then exactly one result,
	// after which the stream ends with OK. Errors end the stream with a status
	// as for CallTool.
	CallToolStream(*CallToolStreamRequest, grpc.ServerStreamingServer[CallToolStreamResponse]) error
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
	Subscribe(*SubscribeRequest, grpc.ServerStreamingServer[SubscribeResponse]) error
	// Call sends any MCP request method with params as JSON text and returns
	// the result as JSON text, losslessly. JSON-RPC errors map to a status as
	// everywhere else.
	Call(context.Context, *CallRequest) (*CallResponse, error)
	// CallStream is Call with a progress token: zero or more progress, log and
	// server_request messages, then exactly one result.
	CallStream(*CallStreamRequest, grpc.ServerStreamingServer[CallStreamResponse]) error
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
	Connect(grpc.BidiStreamingServer[ConnectRequest, ConnectResponse]) error
	// Ping checks that the child answers: `ping` on a legacy child,
	// `server/discover` on a 2026 child (which has no ping). It returns the
	// round-trip time.
	Ping(context.Context, *PingRequest) (*PingResponse, error)
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
	RespondToServerRequest(context.Context, *RespondToServerRequestRequest) (*RespondToServerRequestResponse, error)
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
	StartTask(context.Context, *StartTaskRequest) (*StartTaskResponse, error)
	// GetTask is `tasks/get`: the task's latest state, and its result or
	// error once it is done. An unknown, expired or another principal's task
	// is NOT_FOUND, with the same message for each.
	GetTask(context.Context, *GetTaskRequest) (*GetTaskResponse, error)
	// WaitTask returns the task once it is done or has input requests to
	// answer, or when the timeout passes (then as it is), as
	// google.longrunning's WaitOperation does; the bridge polls the child at
	// the task's poll interval (at least every second).
	WaitTask(context.Context, *WaitTaskRequest) (*WaitTaskResponse, error)
	// WatchTask streams the task: its state now, then every change of state,
	// status message (where the task's progress is reported) or input
	// requests, and last the done Task with its result or error, after which
	// the stream ends with OK. Closing the stream does not cancel the task.
	WatchTask(*WatchTaskRequest, grpc.ServerStreamingServer[WatchTaskResponse]) error
	// AnswerTask answers the task's input_requests: the 2026 `tasks/update`,
	// or, on a 2025-11-25 child, the answers to the requests it asked. It
	// returns the task's state after the answers.
	AnswerTask(context.Context, *AnswerTaskRequest) (*AnswerTaskResponse, error)
	// CancelTask is `tasks/cancel`: the work is stopped and the task ends
	// CANCELLED, unless it ended already (cancellation does not undo a
	// result). It returns the task's state after the cancellation.
	CancelTask(context.Context, *CancelTaskRequest) (*CancelTaskResponse, error)
	// ListTasks lists the caller's tasks on one server, oldest first, as the
	// bridge saw them created (through any door), with their state now.
	// Tasks that expired or that the child no longer knows are left out.
	ListTasks(context.Context, *ListTasksRequest) (*ListTasksResponse, error)
	mustEmbedUnimplementedBridgeServiceServer()
}

// UnimplementedBridgeServiceServer must be embedded to have
// forward compatible implementations.
//
// NOTE: this should be embedded by value instead of pointer to avoid a nil
// pointer dereference when methods are called.
type UnimplementedBridgeServiceServer struct{}

func (UnimplementedBridgeServiceServer) GetServer(context.Context, *GetServerRequest) (*GetServerResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method GetServer not implemented")
}
func (UnimplementedBridgeServiceServer) ListServers(context.Context, *ListServersRequest) (*ListServersResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method ListServers not implemented")
}
func (UnimplementedBridgeServiceServer) ListTools(context.Context, *ListToolsRequest) (*ListToolsResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method ListTools not implemented")
}
func (UnimplementedBridgeServiceServer) ListResources(context.Context, *ListResourcesRequest) (*ListResourcesResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method ListResources not implemented")
}
func (UnimplementedBridgeServiceServer) ListResourceTemplates(context.Context, *ListResourceTemplatesRequest) (*ListResourceTemplatesResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method ListResourceTemplates not implemented")
}
func (UnimplementedBridgeServiceServer) ListPrompts(context.Context, *ListPromptsRequest) (*ListPromptsResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method ListPrompts not implemented")
}
func (UnimplementedBridgeServiceServer) CallTool(context.Context, *CallToolRequest) (*CallToolResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method CallTool not implemented")
}
func (UnimplementedBridgeServiceServer) ReadResource(context.Context, *ReadResourceRequest) (*ReadResourceResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method ReadResource not implemented")
}
func (UnimplementedBridgeServiceServer) GetPrompt(context.Context, *GetPromptRequest) (*GetPromptResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method GetPrompt not implemented")
}
func (UnimplementedBridgeServiceServer) Complete(context.Context, *CompleteRequest) (*CompleteResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method Complete not implemented")
}
func (UnimplementedBridgeServiceServer) CallToolStream(*CallToolStreamRequest, grpc.ServerStreamingServer[CallToolStreamResponse]) error {
	return status.Error(codes.Unimplemented, "method CallToolStream not implemented")
}
func (UnimplementedBridgeServiceServer) Subscribe(*SubscribeRequest, grpc.ServerStreamingServer[SubscribeResponse]) error {
	return status.Error(codes.Unimplemented, "method Subscribe not implemented")
}
func (UnimplementedBridgeServiceServer) Call(context.Context, *CallRequest) (*CallResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method Call not implemented")
}
func (UnimplementedBridgeServiceServer) CallStream(*CallStreamRequest, grpc.ServerStreamingServer[CallStreamResponse]) error {
	return status.Error(codes.Unimplemented, "method CallStream not implemented")
}
func (UnimplementedBridgeServiceServer) Connect(grpc.BidiStreamingServer[ConnectRequest, ConnectResponse]) error {
	return status.Error(codes.Unimplemented, "method Connect not implemented")
}
func (UnimplementedBridgeServiceServer) Ping(context.Context, *PingRequest) (*PingResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method Ping not implemented")
}
func (UnimplementedBridgeServiceServer) RespondToServerRequest(context.Context, *RespondToServerRequestRequest) (*RespondToServerRequestResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method RespondToServerRequest not implemented")
}
func (UnimplementedBridgeServiceServer) StartTask(context.Context, *StartTaskRequest) (*StartTaskResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method StartTask not implemented")
}
func (UnimplementedBridgeServiceServer) GetTask(context.Context, *GetTaskRequest) (*GetTaskResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method GetTask not implemented")
}
func (UnimplementedBridgeServiceServer) WaitTask(context.Context, *WaitTaskRequest) (*WaitTaskResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method WaitTask not implemented")
}
func (UnimplementedBridgeServiceServer) WatchTask(*WatchTaskRequest, grpc.ServerStreamingServer[WatchTaskResponse]) error {
	return status.Error(codes.Unimplemented, "method WatchTask not implemented")
}
func (UnimplementedBridgeServiceServer) AnswerTask(context.Context, *AnswerTaskRequest) (*AnswerTaskResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method AnswerTask not implemented")
}
func (UnimplementedBridgeServiceServer) CancelTask(context.Context, *CancelTaskRequest) (*CancelTaskResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method CancelTask not implemented")
}
func (UnimplementedBridgeServiceServer) ListTasks(context.Context, *ListTasksRequest) (*ListTasksResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method ListTasks not implemented")
}
func (UnimplementedBridgeServiceServer) mustEmbedUnimplementedBridgeServiceServer() {}
func (UnimplementedBridgeServiceServer) testEmbeddedByValue()                       {}

// UnsafeBridgeServiceServer may be embedded to opt out of forward compatibility for this service.
// Use of this interface is not recommended, as added methods to BridgeServiceServer will
// result in compilation errors.
type UnsafeBridgeServiceServer interface {
	mustEmbedUnimplementedBridgeServiceServer()
}

func RegisterBridgeServiceServer(s grpc.ServiceRegistrar, srv BridgeServiceServer) {
	// If the following call panics, it indicates UnimplementedBridgeServiceServer was
	// embedded by pointer and is nil.  This will cause panics if an
	// unimplemented method is ever invoked, so we test this at initialization
	// time to prevent it from happening at runtime later due to I/O.
	if t, ok := srv.(interface{ testEmbeddedByValue() }); ok {
		t.testEmbeddedByValue()
	}
	s.RegisterService(&BridgeService_ServiceDesc, srv)
}

func _BridgeService_GetServer_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(GetServerRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).GetServer(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_GetServer_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).GetServer(ctx, req.(*GetServerRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_ListServers_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(ListServersRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).ListServers(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_ListServers_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).ListServers(ctx, req.(*ListServersRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_ListTools_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(ListToolsRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).ListTools(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_ListTools_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).ListTools(ctx, req.(*ListToolsRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_ListResources_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(ListResourcesRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).ListResources(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_ListResources_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).ListResources(ctx, req.(*ListResourcesRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_ListResourceTemplates_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(ListResourceTemplatesRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).ListResourceTemplates(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_ListResourceTemplates_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).ListResourceTemplates(ctx, req.(*ListResourceTemplatesRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_ListPrompts_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(ListPromptsRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).ListPrompts(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_ListPrompts_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).ListPrompts(ctx, req.(*ListPromptsRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_CallTool_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(CallToolRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).CallTool(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_CallTool_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).CallTool(ctx, req.(*CallToolRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_ReadResource_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(ReadResourceRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).ReadResource(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_ReadResource_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).ReadResource(ctx, req.(*ReadResourceRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_GetPrompt_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(GetPromptRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).GetPrompt(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_GetPrompt_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).GetPrompt(ctx, req.(*GetPromptRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_Complete_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(CompleteRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).Complete(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_Complete_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).Complete(ctx, req.(*CompleteRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_CallToolStream_Handler(srv interface{}, stream grpc.ServerStream) error {
	m := new(CallToolStreamRequest)
	if err := stream.RecvMsg(m); err != nil {
		return err
	}
	return srv.(BridgeServiceServer).CallToolStream(m, &grpc.GenericServerStream[CallToolStreamRequest, CallToolStreamResponse]{ServerStream: stream})
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type BridgeService_CallToolStreamServer = grpc.ServerStreamingServer[CallToolStreamResponse]

func _BridgeService_Subscribe_Handler(srv interface{}, stream grpc.ServerStream) error {
	m := new(SubscribeRequest)
	if err := stream.RecvMsg(m); err != nil {
		return err
	}
	return srv.(BridgeServiceServer).Subscribe(m, &grpc.GenericServerStream[SubscribeRequest, SubscribeResponse]{ServerStream: stream})
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type BridgeService_SubscribeServer = grpc.ServerStreamingServer[SubscribeResponse]

func _BridgeService_Call_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(CallRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).Call(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_Call_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).Call(ctx, req.(*CallRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_CallStream_Handler(srv interface{}, stream grpc.ServerStream) error {
	m := new(CallStreamRequest)
	if err := stream.RecvMsg(m); err != nil {
		return err
	}
	return srv.(BridgeServiceServer).CallStream(m, &grpc.GenericServerStream[CallStreamRequest, CallStreamResponse]{ServerStream: stream})
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type BridgeService_CallStreamServer = grpc.ServerStreamingServer[CallStreamResponse]

func _BridgeService_Connect_Handler(srv interface{}, stream grpc.ServerStream) error {
	return srv.(BridgeServiceServer).Connect(&grpc.GenericServerStream[ConnectRequest, ConnectResponse]{ServerStream: stream})
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type BridgeService_ConnectServer = grpc.BidiStreamingServer[ConnectRequest, ConnectResponse]

func _BridgeService_Ping_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(PingRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).Ping(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_Ping_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).Ping(ctx, req.(*PingRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_RespondToServerRequest_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(RespondToServerRequestRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).RespondToServerRequest(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_RespondToServerRequest_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).RespondToServerRequest(ctx, req.(*RespondToServerRequestRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_StartTask_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(StartTaskRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).StartTask(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_StartTask_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).StartTask(ctx, req.(*StartTaskRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_GetTask_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(GetTaskRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).GetTask(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_GetTask_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).GetTask(ctx, req.(*GetTaskRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_WaitTask_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(WaitTaskRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).WaitTask(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_WaitTask_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).WaitTask(ctx, req.(*WaitTaskRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_WatchTask_Handler(srv interface{}, stream grpc.ServerStream) error {
	m := new(WatchTaskRequest)
	if err := stream.RecvMsg(m); err != nil {
		return err
	}
	return srv.(BridgeServiceServer).WatchTask(m, &grpc.GenericServerStream[WatchTaskRequest, WatchTaskResponse]{ServerStream: stream})
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type BridgeService_WatchTaskServer = grpc.ServerStreamingServer[WatchTaskResponse]

func _BridgeService_AnswerTask_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(AnswerTaskRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).AnswerTask(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_AnswerTask_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).AnswerTask(ctx, req.(*AnswerTaskRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_CancelTask_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(CancelTaskRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).CancelTask(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_CancelTask_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).CancelTask(ctx, req.(*CancelTaskRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _BridgeService_ListTasks_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(ListTasksRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(BridgeServiceServer).ListTasks(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: BridgeService_ListTasks_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(BridgeServiceServer).ListTasks(ctx, req.(*ListTasksRequest))
	}
	return interceptor(ctx, in, info, handler)
}

// BridgeService_ServiceDesc is the grpc.ServiceDesc for BridgeService service.
// It's only intended for direct use with grpc.RegisterService,
// and not to be introspected or modified (even as a copy)
var BridgeService_ServiceDesc = grpc.ServiceDesc{
	ServiceName: "mcpbridge.v1.BridgeService",
	HandlerType: (*BridgeServiceServer)(nil),
	Methods: []grpc.MethodDesc{
		{
			MethodName: "GetServer",
			Handler:    _BridgeService_GetServer_Handler,
		},
		{
			MethodName: "ListServers",
			Handler:    _BridgeService_ListServers_Handler,
		},
		{
			MethodName: "ListTools",
			Handler:    _BridgeService_ListTools_Handler,
		},
		{
			MethodName: "ListResources",
			Handler:    _BridgeService_ListResources_Handler,
		},
		{
			MethodName: "ListResourceTemplates",
			Handler:    _BridgeService_ListResourceTemplates_Handler,
		},
		{
			MethodName: "ListPrompts",
			Handler:    _BridgeService_ListPrompts_Handler,
		},
		{
			MethodName: "CallTool",
			Handler:    _BridgeService_CallTool_Handler,
		},
		{
			MethodName: "ReadResource",
			Handler:    _BridgeService_ReadResource_Handler,
		},
		{
			MethodName: "GetPrompt",
			Handler:    _BridgeService_GetPrompt_Handler,
		},
		{
			MethodName: "Complete",
			Handler:    _BridgeService_Complete_Handler,
		},
		{
			MethodName: "Call",
			Handler:    _BridgeService_Call_Handler,
		},
		{
			MethodName: "Ping",
			Handler:    _BridgeService_Ping_Handler,
		},
		{
			MethodName: "RespondToServerRequest",
			Handler:    _BridgeService_RespondToServerRequest_Handler,
		},
		{
			MethodName: "StartTask",
			Handler:    _BridgeService_StartTask_Handler,
		},
		{
			MethodName: "GetTask",
			Handler:    _BridgeService_GetTask_Handler,
		},
		{
			MethodName: "WaitTask",
			Handler:    _BridgeService_WaitTask_Handler,
		},
		{
			MethodName: "AnswerTask",
			Handler:    _BridgeService_AnswerTask_Handler,
		},
		{
			MethodName: "CancelTask",
			Handler:    _BridgeService_CancelTask_Handler,
		},
		{
			MethodName: "ListTasks",
			Handler:    _BridgeService_ListTasks_Handler,
		},
	},
	Streams: []grpc.StreamDesc{
		{
			StreamName:    "CallToolStream",
			Handler:       _BridgeService_CallToolStream_Handler,
			ServerStreams: true,
		},
		{
			StreamName:    "Subscribe",
			Handler:       _BridgeService_Subscribe_Handler,
			ServerStreams: true,
		},
		{
			StreamName:    "CallStream",
			Handler:       _BridgeService_CallStream_Handler,
			ServerStreams: true,
		},
		{
			StreamName:    "Connect",
			Handler:       _BridgeService_Connect_Handler,
			ServerStreams: true,
			ClientStreams: true,
		},
		{
			StreamName:    "WatchTask",
			Handler:       _BridgeService_WatchTask_Handler,
			ServerStreams: true,
		},
	},
	Metadata: "mcpbridge/v1/bridge.proto",
}
