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

// Code generated by protoc-gen-go. DO NOT EDIT.
// versions:
// 	protoc-gen-go v1.36.12
// 	protoc        (unknown)
// source: mcpbridge/v1/bridge.proto

package mcpbridgev1

import (
	protoreflect "google.golang.org/protobuf/reflect/protoreflect"
	protoimpl "google.golang.org/protobuf/runtime/protoimpl"
	durationpb "google.golang.org/protobuf/types/known/durationpb"
	structpb "google.golang.org/protobuf/types/known/structpb"
	timestamppb "google.golang.org/protobuf/types/known/timestamppb"
	reflect "reflect"
	sync "sync"
	unsafe "unsafe"
)

const (
	// Verify that this generated code is sufficiently up-to-date.
	_ = protoimpl.EnforceVersion(20 - protoimpl.MinVersion)
	// Verify that runtime/protoimpl is sufficiently up-to-date.
	_ = protoimpl.EnforceVersion(protoimpl.MaxVersion - 20)
)

// ChildState is the life-cycle state of a managed child.
type ChildState int32

const (
	// Not set; never sent by the bridge.
	ChildState_CHILD_STATE_UNSPECIFIED ChildState = 0
	// The process is starting or negotiating its protocol revision.
	ChildState_CHILD_STATE_STARTING ChildState = 1
	// The child is negotiated and taking requests.
	ChildState_CHILD_STATE_READY ChildState = 2
	// The child exited and the supervisor waits its backoff before restarting
	// it; calls fail with UNAVAILABLE and RetryInfo meanwhile.
	ChildState_CHILD_STATE_RESTARTING ChildState = 3
	// The child is being stopped (the bridge is shutting down): stdin
	// closed, then SIGTERM and SIGKILL to its process group after the grace
	// period; calls fail with UNAVAILABLE without RetryInfo.
	ChildState_CHILD_STATE_STOPPING ChildState = 4
	// The child hit the crash-loop limit: the circuit is open. Calls fail at
	// once with UNAVAILABLE and RetryInfo for the next try; one start is
	// tried at every maximum backoff (30 s by default), and a child that
	// comes up serves again.
	ChildState_CHILD_STATE_FAILED ChildState = 5
)

// Enum value maps for ChildState.
var (
	ChildState_name = map[int32]string{
		0: "CHILD_STATE_UNSPECIFIED",
		1: "CHILD_STATE_STARTING",
		2: "CHILD_STATE_READY",
		3: "CHILD_STATE_RESTARTING",
		4: "CHILD_STATE_STOPPING",
		5: "CHILD_STATE_FAILED",
	}
	ChildState_value = map[string]int32{
		"CHILD_STATE_UNSPECIFIED": 0,
		"CHILD_STATE_STARTING":    1,
		"CHILD_STATE_READY":       2,
		"CHILD_STATE_RESTARTING":  3,
		"CHILD_STATE_STOPPING":    4,
		"CHILD_STATE_FAILED":      5,
	}
)

func (x ChildState) Enum() *ChildState {
	p := new(ChildState)
	*p = x
	return p
}

func (x ChildState) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (ChildState) Descriptor() protoreflect.EnumDescriptor {
	return file_mcpbridge_v1_bridge_proto_enumTypes[0].Descriptor()
}

func (ChildState) Type() protoreflect.EnumType {
	return &file_mcpbridge_v1_bridge_proto_enumTypes[0]
}

func (x ChildState) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use ChildState.Descriptor instead.
func (ChildState) EnumDescriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{0}
}

// ServerPolicy is how the bridge maps callers to children (see the file
// comment, "Children").
type ServerPolicy int32

const (
	// Not set; never sent by the bridge.
	ServerPolicy_SERVER_POLICY_UNSPECIFIED ServerPolicy = 0
	// One child multiplexed by all callers.
	ServerPolicy_SERVER_POLICY_SHARED ServerPolicy = 1
	// Several children, each call to the least loaded ready one.
	ServerPolicy_SERVER_POLICY_POOL ServerPolicy = 2
	// One child per client session, named by the `mcp-session` metadata.
	ServerPolicy_SERVER_POLICY_SESSION ServerPolicy = 3
	// No child of its own: an aggregated server, which merges the tools,
	// prompts and resources of its members (`members`) and sends each
	// request to the member it is about.
	ServerPolicy_SERVER_POLICY_AGGREGATE ServerPolicy = 4
)

// Enum value maps for ServerPolicy.
var (
	ServerPolicy_name = map[int32]string{
		0: "SERVER_POLICY_UNSPECIFIED",
		1: "SERVER_POLICY_SHARED",
		2: "SERVER_POLICY_POOL",
		3: "SERVER_POLICY_SESSION",
		4: "SERVER_POLICY_AGGREGATE",
	}
	ServerPolicy_value = map[string]int32{
		"SERVER_POLICY_UNSPECIFIED": 0,
		"SERVER_POLICY_SHARED":      1,
		"SERVER_POLICY_POOL":        2,
		"SERVER_POLICY_SESSION":     3,
		"SERVER_POLICY_AGGREGATE":   4,
	}
)

func (x ServerPolicy) Enum() *ServerPolicy {
	p := new(ServerPolicy)
	*p = x
	return p
}

func (x ServerPolicy) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (ServerPolicy) Descriptor() protoreflect.EnumDescriptor {
	return file_mcpbridge_v1_bridge_proto_enumTypes[1].Descriptor()
}

func (ServerPolicy) Type() protoreflect.EnumType {
	return &file_mcpbridge_v1_bridge_proto_enumTypes[1]
}

func (x ServerPolicy) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use ServerPolicy.Descriptor instead.
func (ServerPolicy) EnumDescriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{1}
}

// CacheScope says who may share a cached result.
type CacheScope int32

const (
	// The child gave no scope (every legacy child).
	CacheScope_CACHE_SCOPE_UNSPECIFIED CacheScope = 0
	// Any caller may be served the cached result.
	CacheScope_CACHE_SCOPE_PUBLIC CacheScope = 1
	// Only callers with the same credentials may be served the cached result.
	CacheScope_CACHE_SCOPE_PRIVATE CacheScope = 2
)

// Enum value maps for CacheScope.
var (
	CacheScope_name = map[int32]string{
		0: "CACHE_SCOPE_UNSPECIFIED",
		1: "CACHE_SCOPE_PUBLIC",
		2: "CACHE_SCOPE_PRIVATE",
	}
	CacheScope_value = map[string]int32{
		"CACHE_SCOPE_UNSPECIFIED": 0,
		"CACHE_SCOPE_PUBLIC":      1,
		"CACHE_SCOPE_PRIVATE":     2,
	}
)

func (x CacheScope) Enum() *CacheScope {
	p := new(CacheScope)
	*p = x
	return p
}

func (x CacheScope) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (CacheScope) Descriptor() protoreflect.EnumDescriptor {
	return file_mcpbridge_v1_bridge_proto_enumTypes[2].Descriptor()
}

func (CacheScope) Type() protoreflect.EnumType {
	return &file_mcpbridge_v1_bridge_proto_enumTypes[2]
}

func (x CacheScope) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use CacheScope.Descriptor instead.
func (CacheScope) EnumDescriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{2}
}

// Role is the speaker of a prompt message, or an annotation audience.
type Role int32

const (
	// Not set, or a role this API does not know.
	Role_ROLE_UNSPECIFIED Role = 0
	// The user.
	Role_ROLE_USER Role = 1
	// The assistant (the model).
	Role_ROLE_ASSISTANT Role = 2
)

// Enum value maps for Role.
var (
	Role_name = map[int32]string{
		0: "ROLE_UNSPECIFIED",
		1: "ROLE_USER",
		2: "ROLE_ASSISTANT",
	}
	Role_value = map[string]int32{
		"ROLE_UNSPECIFIED": 0,
		"ROLE_USER":        1,
		"ROLE_ASSISTANT":   2,
	}
)

func (x Role) Enum() *Role {
	p := new(Role)
	*p = x
	return p
}

func (x Role) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (Role) Descriptor() protoreflect.EnumDescriptor {
	return file_mcpbridge_v1_bridge_proto_enumTypes[3].Descriptor()
}

func (Role) Type() protoreflect.EnumType {
	return &file_mcpbridge_v1_bridge_proto_enumTypes[3]
}

func (x Role) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use Role.Descriptor instead.
func (Role) EnumDescriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{3}
}

// LoggingLevel is an MCP log severity (RFC 5424 order, lowest first).
type LoggingLevel int32

const (
	// No level: in a request, no logs; in a LogMessage, a level this API does
	// not know.
	LoggingLevel_LOGGING_LEVEL_UNSPECIFIED LoggingLevel = 0
	// "debug".
	LoggingLevel_LOGGING_LEVEL_DEBUG LoggingLevel = 1
	// "info".
	LoggingLevel_LOGGING_LEVEL_INFO LoggingLevel = 2
	// "notice".
	LoggingLevel_LOGGING_LEVEL_NOTICE LoggingLevel = 3
	// "warning".
	LoggingLevel_LOGGING_LEVEL_WARNING LoggingLevel = 4
	// "error".
	LoggingLevel_LOGGING_LEVEL_ERROR LoggingLevel = 5
	// "critical".
	LoggingLevel_LOGGING_LEVEL_CRITICAL LoggingLevel = 6
	// "alert".
	LoggingLevel_LOGGING_LEVEL_ALERT LoggingLevel = 7
	// "emergency".
	LoggingLevel_LOGGING_LEVEL_EMERGENCY LoggingLevel = 8
)

// Enum value maps for LoggingLevel.
var (
	LoggingLevel_name = map[int32]string{
		0: "LOGGING_LEVEL_UNSPECIFIED",
		1: "LOGGING_LEVEL_DEBUG",
		2: "LOGGING_LEVEL_INFO",
		3: "LOGGING_LEVEL_NOTICE",
		4: "LOGGING_LEVEL_WARNING",
		5: "LOGGING_LEVEL_ERROR",
		6: "LOGGING_LEVEL_CRITICAL",
		7: "LOGGING_LEVEL_ALERT",
		8: "LOGGING_LEVEL_EMERGENCY",
	}
	LoggingLevel_value = map[string]int32{
		"LOGGING_LEVEL_UNSPECIFIED": 0,
		"LOGGING_LEVEL_DEBUG":       1,
		"LOGGING_LEVEL_INFO":        2,
		"LOGGING_LEVEL_NOTICE":      3,
		"LOGGING_LEVEL_WARNING":     4,
		"LOGGING_LEVEL_ERROR":       5,
		"LOGGING_LEVEL_CRITICAL":    6,
		"LOGGING_LEVEL_ALERT":       7,
		"LOGGING_LEVEL_EMERGENCY":   8,
	}
)

func (x LoggingLevel) Enum() *LoggingLevel {
	p := new(LoggingLevel)
	*p = x
	return p
}

func (x LoggingLevel) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (LoggingLevel) Descriptor() protoreflect.EnumDescriptor {
	return file_mcpbridge_v1_bridge_proto_enumTypes[4].Descriptor()
}

func (LoggingLevel) Type() protoreflect.EnumType {
	return &file_mcpbridge_v1_bridge_proto_enumTypes[4]
}

func (x LoggingLevel) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use LoggingLevel.Descriptor instead.
func (LoggingLevel) EnumDescriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{4}
}

// TaskState is an MCP task's status. It moves only forward: WORKING and
// INPUT_REQUIRED to one of COMPLETED, FAILED or CANCELLED, which are final.
type TaskState int32

const (
	// Not set; never sent.
	TaskState_TASK_STATE_UNSPECIFIED TaskState = 0
	// The work runs (`working`).
	TaskState_TASK_STATE_WORKING TaskState = 1
	// The work waits for the caller's answers to input_requests
	// (`input_required`).
	TaskState_TASK_STATE_INPUT_REQUIRED TaskState = 2
	// The work ended with a result (`completed`); a tool error is a result
	// with is_error set.
	TaskState_TASK_STATE_COMPLETED TaskState = 3
	// The work ended with an error (`failed`), or its child exited.
	TaskState_TASK_STATE_FAILED TaskState = 4
	// The work was cancelled (`cancelled`).
	TaskState_TASK_STATE_CANCELLED TaskState = 5
)

// Enum value maps for TaskState.
var (
	TaskState_name = map[int32]string{
		0: "TASK_STATE_UNSPECIFIED",
		1: "TASK_STATE_WORKING",
		2: "TASK_STATE_INPUT_REQUIRED",
		3: "TASK_STATE_COMPLETED",
		4: "TASK_STATE_FAILED",
		5: "TASK_STATE_CANCELLED",
	}
	TaskState_value = map[string]int32{
		"TASK_STATE_UNSPECIFIED":    0,
		"TASK_STATE_WORKING":        1,
		"TASK_STATE_INPUT_REQUIRED": 2,
		"TASK_STATE_COMPLETED":      3,
		"TASK_STATE_FAILED":         4,
		"TASK_STATE_CANCELLED":      5,
	}
)

func (x TaskState) Enum() *TaskState {
	p := new(TaskState)
	*p = x
	return p
}

func (x TaskState) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (TaskState) Descriptor() protoreflect.EnumDescriptor {
	return file_mcpbridge_v1_bridge_proto_enumTypes[5].Descriptor()
}

func (TaskState) Type() protoreflect.EnumType {
	return &file_mcpbridge_v1_bridge_proto_enumTypes[5]
}

func (x TaskState) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use TaskState.Descriptor instead.
func (TaskState) EnumDescriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{5}
}

// GetServerRequest asks for the negotiated state of one fronted server.
type GetServerRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// Wait, within the RPC's deadline, while the child is STARTING, until it
	// is READY or its start fails, as a gRPC call with wait-for-ready waits
	// for a connecting channel; the wait is bounded by the server's
	// handshake timeout too. Default: false, answer at once with the state
	// as it is. Eras: all.
	WaitForReady  bool `protobuf:"varint,2,opt,name=wait_for_ready,json=waitForReady,proto3" json:"wait_for_ready,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *GetServerRequest) Reset() {
	*x = GetServerRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[0]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *GetServerRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*GetServerRequest) ProtoMessage() {}

func (x *GetServerRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[0]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use GetServerRequest.ProtoReflect.Descriptor instead.
func (*GetServerRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{0}
}

func (x *GetServerRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *GetServerRequest) GetWaitForReady() bool {
	if x != nil {
		return x.WaitForReady
	}
	return false
}

// GetServerResponse is what the bridge negotiated with the child. The
// negotiated fields (protocol_version, server_info, capabilities,
// instructions) are set while the child is READY and empty otherwise.
type GetServerResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The negotiated MCP revision, for example "2026-07-28", "2025-11-25" or
	// "2025-06-18". It tells which "Eras:" tags apply.
	// Default: empty unless the child is READY. Eras: all.
	ProtocolVersion string `protobuf:"bytes,1,opt,name=protocol_version,json=protocolVersion,proto3" json:"protocol_version,omitempty"`
	// The child's Implementation object: name, version and, when the child
	// sent them, title, description, websiteUrl and icons. From the
	// `initialize` result (legacy) or the `server/discover` result's
	// `_meta["io.modelcontextprotocol/serverInfo"]` (2026).
	// Default: unset if a 2026 child sent none. Eras: all.
	ServerInfo *structpb.Struct `protobuf:"bytes,2,opt,name=server_info,json=serverInfo,proto3" json:"server_info,omitempty"`
	// The child's ServerCapabilities object as it sent it, for example
	// {"tools":{"listChanged":true},"resources":{"subscribe":true}}.
	// Default: empty object while READY, unset otherwise. Eras: all.
	Capabilities *structpb.Struct `protobuf:"bytes,3,opt,name=capabilities,proto3" json:"capabilities,omitempty"`
	// The child's instructions for the model.
	// Default: empty when the child sent none. Eras: all.
	Instructions string `protobuf:"bytes,4,opt,name=instructions,proto3" json:"instructions,omitempty"`
	// The child whose negotiation this response describes: the shared child,
	// the first ready child of a pool, or, for the session policy, the child
	// of the session the request's `mcp-session` metadata names.
	// Default: set unless the server has the session policy and the request
	// names no running session. Eras: all.
	Child *Child `protobuf:"bytes,5,opt,name=child,proto3" json:"child,omitempty"`
	// The fronted server's name, resolved: useful when the request left
	// `server` empty.
	// Default: empty only for the one server of a bridge started without a
	// name for it (`mcpbridge serve` without --name or a config file). Eras:
	// all.
	Name string `protobuf:"bytes,6,opt,name=name,proto3" json:"name,omitempty"`
	// How the bridge maps callers to children for this server.
	// Default: never SERVER_POLICY_UNSPECIFIED. Eras: all.
	Policy ServerPolicy `protobuf:"varint,7,opt,name=policy,proto3,enum=mcpbridge.v1.ServerPolicy" json:"policy,omitempty"`
	// Every child the server runs now: one for the shared policy, the pool's
	// children, or one per open session, in the order they were started.
	// Default: empty for a session server with no session. Eras: all.
	Children []*Child `protobuf:"bytes,8,rep,name=children,proto3" json:"children,omitempty"`
	// An aggregated server's members, in priority order, each as GetServer
	// answers for it (SERVER_POLICY_AGGREGATE); a member the caller may not
	// use is left out.
	// Default: empty unless the server is an aggregate. Eras: all.
	Members       []*GetServerResponse `protobuf:"bytes,9,rep,name=members,proto3" json:"members,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *GetServerResponse) Reset() {
	*x = GetServerResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[1]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *GetServerResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*GetServerResponse) ProtoMessage() {}

func (x *GetServerResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[1]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use GetServerResponse.ProtoReflect.Descriptor instead.
func (*GetServerResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{1}
}

func (x *GetServerResponse) GetProtocolVersion() string {
	if x != nil {
		return x.ProtocolVersion
	}
	return ""
}

func (x *GetServerResponse) GetServerInfo() *structpb.Struct {
	if x != nil {
		return x.ServerInfo
	}
	return nil
}

func (x *GetServerResponse) GetCapabilities() *structpb.Struct {
	if x != nil {
		return x.Capabilities
	}
	return nil
}

func (x *GetServerResponse) GetInstructions() string {
	if x != nil {
		return x.Instructions
	}
	return ""
}

func (x *GetServerResponse) GetChild() *Child {
	if x != nil {
		return x.Child
	}
	return nil
}

func (x *GetServerResponse) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *GetServerResponse) GetPolicy() ServerPolicy {
	if x != nil {
		return x.Policy
	}
	return ServerPolicy_SERVER_POLICY_UNSPECIFIED
}

func (x *GetServerResponse) GetChildren() []*Child {
	if x != nil {
		return x.Children
	}
	return nil
}

func (x *GetServerResponse) GetMembers() []*GetServerResponse {
	if x != nil {
		return x.Members
	}
	return nil
}

// ListServersRequest asks for every fronted server.
type ListServersRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListServersRequest) Reset() {
	*x = ListServersRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[2]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListServersRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListServersRequest) ProtoMessage() {}

func (x *ListServersRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[2]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListServersRequest.ProtoReflect.Descriptor instead.
func (*ListServersRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{2}
}

// ListServersResponse describes every fronted server.
type ListServersResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// One entry per fronted server, sorted by name, as GetServer would
	// answer for it without `mcp-session` metadata.
	// Default: never empty. Eras: all.
	Servers       []*GetServerResponse `protobuf:"bytes,1,rep,name=servers,proto3" json:"servers,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListServersResponse) Reset() {
	*x = ListServersResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[3]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListServersResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListServersResponse) ProtoMessage() {}

func (x *ListServersResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[3]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListServersResponse.ProtoReflect.Descriptor instead.
func (*ListServersResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{3}
}

func (x *ListServersResponse) GetServers() []*GetServerResponse {
	if x != nil {
		return x.Servers
	}
	return nil
}

// Child describes one managed child process.
type Child struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The child's operating-system process id.
	// Default: 0 while no process is running. Eras: all.
	Pid int32 `protobuf:"varint,1,opt,name=pid,proto3" json:"pid,omitempty"`
	// Where the child is in its life cycle.
	// Default: never CHILD_STATE_UNSPECIFIED in a response. Eras: all.
	State ChildState `protobuf:"varint,2,opt,name=state,proto3,enum=mcpbridge.v1.ChildState" json:"state,omitempty"`
	// When the current process was started ("up since").
	// Default: unset while no process is running. Eras: all.
	StartedAt *timestamppb.Timestamp `protobuf:"bytes,3,opt,name=started_at,json=startedAt,proto3" json:"started_at,omitempty"`
	// How many times the supervisor restarted this child after it exited.
	// Default: 0. Eras: all.
	Restarts uint32 `protobuf:"varint,4,opt,name=restarts,proto3" json:"restarts,omitempty"`
	// How the previous process ended, for example "exit status 1" or
	// "signal: killed".
	// Default: empty before the first exit. Eras: all.
	LastExit string `protobuf:"bytes,5,opt,name=last_exit,json=lastExit,proto3" json:"last_exit,omitempty"`
	// The last lines (at most 20) the server's children wrote to stderr,
	// oldest first, across restarts: what a crash loop said about itself.
	// Stderr may hold paths, hosts or worse, so it is sent only when the
	// operator exposes it (`mcpbridge serve --expose-stderr`); the bridge's
	// log has it always.
	// Default: empty unless exposed. Eras: all.
	StderrTail []string `protobuf:"bytes,6,rep,name=stderr_tail,json=stderrTail,proto3" json:"stderr_tail,omitempty"`
	// For a session child, a short digest of its session's name (12 hex
	// digits of its HMAC-SHA256 under a random key of the bridge process, so
	// that a guessed name cannot be checked against it), never the name
	// itself: a session name reaches the session's child. The same session
	// has the same digest while the bridge runs, and another after a restart.
	// Default: empty for shared and pool children. Eras: all.
	Session string `protobuf:"bytes,7,opt,name=session,proto3" json:"session,omitempty"`
	// The requests in flight on the child and the streams attached to it:
	// what the pool policy balances.
	// Default: 0. Eras: all.
	Load          uint32 `protobuf:"varint,8,opt,name=load,proto3" json:"load,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Child) Reset() {
	*x = Child{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[4]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Child) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Child) ProtoMessage() {}

func (x *Child) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[4]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Child.ProtoReflect.Descriptor instead.
func (*Child) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{4}
}

func (x *Child) GetPid() int32 {
	if x != nil {
		return x.Pid
	}
	return 0
}

func (x *Child) GetState() ChildState {
	if x != nil {
		return x.State
	}
	return ChildState_CHILD_STATE_UNSPECIFIED
}

func (x *Child) GetStartedAt() *timestamppb.Timestamp {
	if x != nil {
		return x.StartedAt
	}
	return nil
}

func (x *Child) GetRestarts() uint32 {
	if x != nil {
		return x.Restarts
	}
	return 0
}

func (x *Child) GetLastExit() string {
	if x != nil {
		return x.LastExit
	}
	return ""
}

func (x *Child) GetStderrTail() []string {
	if x != nil {
		return x.StderrTail
	}
	return nil
}

func (x *Child) GetSession() string {
	if x != nil {
		return x.Session
	}
	return ""
}

func (x *Child) GetLoad() uint32 {
	if x != nil {
		return x.Load
	}
	return 0
}

// ListToolsRequest asks for one page of tools.
type ListToolsRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The next_cursor of the previous page, copied unchanged. Cursors are
	// opaque strings: never parse or build them, and never use one with
	// another server or method.
	// Default: empty, the first page. Eras: all.
	Cursor string `protobuf:"bytes,2,opt,name=cursor,proto3" json:"cursor,omitempty"`
	// Sent as the request's `params._meta`. Keys the bridge owns
	// (`progressToken`, `io.modelcontextprotocol/protocolVersion`) are
	// INVALID_ARGUMENT.
	// Default: unset, no caller `_meta`. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,3,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListToolsRequest) Reset() {
	*x = ListToolsRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[5]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListToolsRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListToolsRequest) ProtoMessage() {}

func (x *ListToolsRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[5]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListToolsRequest.ProtoReflect.Descriptor instead.
func (*ListToolsRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{5}
}

func (x *ListToolsRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *ListToolsRequest) GetCursor() string {
	if x != nil {
		return x.Cursor
	}
	return ""
}

func (x *ListToolsRequest) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// ListToolsResponse is one page of tools.
type ListToolsResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The tools on this page, in the child's order.
	// Default: empty. Eras: all.
	Tools []*Tool `protobuf:"bytes,1,rep,name=tools,proto3" json:"tools,omitempty"`
	// The cursor for the next page; pass it as ListToolsRequest.cursor.
	// Default: empty on the last page. Eras: all.
	NextCursor string `protobuf:"bytes,2,opt,name=next_cursor,json=nextCursor,proto3" json:"next_cursor,omitempty"`
	// The result's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta *structpb.Struct `protobuf:"bytes,3,opt,name=meta,proto3" json:"meta,omitempty"`
	// How long the child says this page may be cached (`ttlMs`).
	// Default: unset, which means do not cache. Eras: 2026.
	Ttl *durationpb.Duration `protobuf:"bytes,4,opt,name=ttl,proto3" json:"ttl,omitempty"`
	// Who may share the cached page (`cacheScope`).
	// Default: CACHE_SCOPE_UNSPECIFIED for legacy children. Eras: 2026.
	CacheScope    CacheScope `protobuf:"varint,5,opt,name=cache_scope,json=cacheScope,proto3,enum=mcpbridge.v1.CacheScope" json:"cache_scope,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListToolsResponse) Reset() {
	*x = ListToolsResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[6]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListToolsResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListToolsResponse) ProtoMessage() {}

func (x *ListToolsResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[6]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListToolsResponse.ProtoReflect.Descriptor instead.
func (*ListToolsResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{6}
}

func (x *ListToolsResponse) GetTools() []*Tool {
	if x != nil {
		return x.Tools
	}
	return nil
}

func (x *ListToolsResponse) GetNextCursor() string {
	if x != nil {
		return x.NextCursor
	}
	return ""
}

func (x *ListToolsResponse) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

func (x *ListToolsResponse) GetTtl() *durationpb.Duration {
	if x != nil {
		return x.Ttl
	}
	return nil
}

func (x *ListToolsResponse) GetCacheScope() CacheScope {
	if x != nil {
		return x.CacheScope
	}
	return CacheScope_CACHE_SCOPE_UNSPECIFIED
}

// ListResourcesRequest asks for one page of resources.
type ListResourcesRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The next_cursor of the previous page, copied unchanged; opaque.
	// Default: empty, the first page. Eras: all.
	Cursor string `protobuf:"bytes,2,opt,name=cursor,proto3" json:"cursor,omitempty"`
	// Sent as the request's `params._meta`; bridge-owned keys are
	// INVALID_ARGUMENT (see ListToolsRequest.meta).
	// Default: unset, no caller `_meta`. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,3,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListResourcesRequest) Reset() {
	*x = ListResourcesRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[7]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListResourcesRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListResourcesRequest) ProtoMessage() {}

func (x *ListResourcesRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[7]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListResourcesRequest.ProtoReflect.Descriptor instead.
func (*ListResourcesRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{7}
}

func (x *ListResourcesRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *ListResourcesRequest) GetCursor() string {
	if x != nil {
		return x.Cursor
	}
	return ""
}

func (x *ListResourcesRequest) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// ListResourcesResponse is one page of resources.
type ListResourcesResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The resources on this page, in the child's order.
	// Default: empty. Eras: all.
	Resources []*Resource `protobuf:"bytes,1,rep,name=resources,proto3" json:"resources,omitempty"`
	// The cursor for the next page; pass it as ListResourcesRequest.cursor.
	// Default: empty on the last page. Eras: all.
	NextCursor string `protobuf:"bytes,2,opt,name=next_cursor,json=nextCursor,proto3" json:"next_cursor,omitempty"`
	// The result's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta *structpb.Struct `protobuf:"bytes,3,opt,name=meta,proto3" json:"meta,omitempty"`
	// How long the child says this page may be cached (`ttlMs`).
	// Default: unset, which means do not cache. Eras: 2026.
	Ttl *durationpb.Duration `protobuf:"bytes,4,opt,name=ttl,proto3" json:"ttl,omitempty"`
	// Who may share the cached page (`cacheScope`).
	// Default: CACHE_SCOPE_UNSPECIFIED for legacy children. Eras: 2026.
	CacheScope    CacheScope `protobuf:"varint,5,opt,name=cache_scope,json=cacheScope,proto3,enum=mcpbridge.v1.CacheScope" json:"cache_scope,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListResourcesResponse) Reset() {
	*x = ListResourcesResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[8]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListResourcesResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListResourcesResponse) ProtoMessage() {}

func (x *ListResourcesResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[8]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListResourcesResponse.ProtoReflect.Descriptor instead.
func (*ListResourcesResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{8}
}

func (x *ListResourcesResponse) GetResources() []*Resource {
	if x != nil {
		return x.Resources
	}
	return nil
}

func (x *ListResourcesResponse) GetNextCursor() string {
	if x != nil {
		return x.NextCursor
	}
	return ""
}

func (x *ListResourcesResponse) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

func (x *ListResourcesResponse) GetTtl() *durationpb.Duration {
	if x != nil {
		return x.Ttl
	}
	return nil
}

func (x *ListResourcesResponse) GetCacheScope() CacheScope {
	if x != nil {
		return x.CacheScope
	}
	return CacheScope_CACHE_SCOPE_UNSPECIFIED
}

// ListResourceTemplatesRequest asks for one page of resource templates.
type ListResourceTemplatesRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The next_cursor of the previous page, copied unchanged; opaque.
	// Default: empty, the first page. Eras: all.
	Cursor string `protobuf:"bytes,2,opt,name=cursor,proto3" json:"cursor,omitempty"`
	// Sent as the request's `params._meta`; bridge-owned keys are
	// INVALID_ARGUMENT (see ListToolsRequest.meta).
	// Default: unset, no caller `_meta`. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,3,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListResourceTemplatesRequest) Reset() {
	*x = ListResourceTemplatesRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[9]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListResourceTemplatesRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListResourceTemplatesRequest) ProtoMessage() {}

func (x *ListResourceTemplatesRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[9]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListResourceTemplatesRequest.ProtoReflect.Descriptor instead.
func (*ListResourceTemplatesRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{9}
}

func (x *ListResourceTemplatesRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *ListResourceTemplatesRequest) GetCursor() string {
	if x != nil {
		return x.Cursor
	}
	return ""
}

func (x *ListResourceTemplatesRequest) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// ListResourceTemplatesResponse is one page of resource templates.
type ListResourceTemplatesResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The templates on this page, in the child's order.
	// Default: empty. Eras: all.
	ResourceTemplates []*ResourceTemplate `protobuf:"bytes,1,rep,name=resource_templates,json=resourceTemplates,proto3" json:"resource_templates,omitempty"`
	// The cursor for the next page; pass it as
	// ListResourceTemplatesRequest.cursor.
	// Default: empty on the last page. Eras: all.
	NextCursor string `protobuf:"bytes,2,opt,name=next_cursor,json=nextCursor,proto3" json:"next_cursor,omitempty"`
	// The result's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta *structpb.Struct `protobuf:"bytes,3,opt,name=meta,proto3" json:"meta,omitempty"`
	// How long the child says this page may be cached (`ttlMs`).
	// Default: unset, which means do not cache. Eras: 2026.
	Ttl *durationpb.Duration `protobuf:"bytes,4,opt,name=ttl,proto3" json:"ttl,omitempty"`
	// Who may share the cached page (`cacheScope`).
	// Default: CACHE_SCOPE_UNSPECIFIED for legacy children. Eras: 2026.
	CacheScope    CacheScope `protobuf:"varint,5,opt,name=cache_scope,json=cacheScope,proto3,enum=mcpbridge.v1.CacheScope" json:"cache_scope,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListResourceTemplatesResponse) Reset() {
	*x = ListResourceTemplatesResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[10]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListResourceTemplatesResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListResourceTemplatesResponse) ProtoMessage() {}

func (x *ListResourceTemplatesResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[10]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListResourceTemplatesResponse.ProtoReflect.Descriptor instead.
func (*ListResourceTemplatesResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{10}
}

func (x *ListResourceTemplatesResponse) GetResourceTemplates() []*ResourceTemplate {
	if x != nil {
		return x.ResourceTemplates
	}
	return nil
}

func (x *ListResourceTemplatesResponse) GetNextCursor() string {
	if x != nil {
		return x.NextCursor
	}
	return ""
}

func (x *ListResourceTemplatesResponse) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

func (x *ListResourceTemplatesResponse) GetTtl() *durationpb.Duration {
	if x != nil {
		return x.Ttl
	}
	return nil
}

func (x *ListResourceTemplatesResponse) GetCacheScope() CacheScope {
	if x != nil {
		return x.CacheScope
	}
	return CacheScope_CACHE_SCOPE_UNSPECIFIED
}

// ListPromptsRequest asks for one page of prompts.
type ListPromptsRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The next_cursor of the previous page, copied unchanged; opaque.
	// Default: empty, the first page. Eras: all.
	Cursor string `protobuf:"bytes,2,opt,name=cursor,proto3" json:"cursor,omitempty"`
	// Sent as the request's `params._meta`; bridge-owned keys are
	// INVALID_ARGUMENT (see ListToolsRequest.meta).
	// Default: unset, no caller `_meta`. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,3,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListPromptsRequest) Reset() {
	*x = ListPromptsRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[11]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListPromptsRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListPromptsRequest) ProtoMessage() {}

func (x *ListPromptsRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[11]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListPromptsRequest.ProtoReflect.Descriptor instead.
func (*ListPromptsRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{11}
}

func (x *ListPromptsRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *ListPromptsRequest) GetCursor() string {
	if x != nil {
		return x.Cursor
	}
	return ""
}

func (x *ListPromptsRequest) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// ListPromptsResponse is one page of prompts.
type ListPromptsResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The prompts on this page, in the child's order.
	// Default: empty. Eras: all.
	Prompts []*Prompt `protobuf:"bytes,1,rep,name=prompts,proto3" json:"prompts,omitempty"`
	// The cursor for the next page; pass it as ListPromptsRequest.cursor.
	// Default: empty on the last page. Eras: all.
	NextCursor string `protobuf:"bytes,2,opt,name=next_cursor,json=nextCursor,proto3" json:"next_cursor,omitempty"`
	// The result's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta *structpb.Struct `protobuf:"bytes,3,opt,name=meta,proto3" json:"meta,omitempty"`
	// How long the child says this page may be cached (`ttlMs`).
	// Default: unset, which means do not cache. Eras: 2026.
	Ttl *durationpb.Duration `protobuf:"bytes,4,opt,name=ttl,proto3" json:"ttl,omitempty"`
	// Who may share the cached page (`cacheScope`).
	// Default: CACHE_SCOPE_UNSPECIFIED for legacy children. Eras: 2026.
	CacheScope    CacheScope `protobuf:"varint,5,opt,name=cache_scope,json=cacheScope,proto3,enum=mcpbridge.v1.CacheScope" json:"cache_scope,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListPromptsResponse) Reset() {
	*x = ListPromptsResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[12]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListPromptsResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListPromptsResponse) ProtoMessage() {}

func (x *ListPromptsResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[12]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListPromptsResponse.ProtoReflect.Descriptor instead.
func (*ListPromptsResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{12}
}

func (x *ListPromptsResponse) GetPrompts() []*Prompt {
	if x != nil {
		return x.Prompts
	}
	return nil
}

func (x *ListPromptsResponse) GetNextCursor() string {
	if x != nil {
		return x.NextCursor
	}
	return ""
}

func (x *ListPromptsResponse) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

func (x *ListPromptsResponse) GetTtl() *durationpb.Duration {
	if x != nil {
		return x.Ttl
	}
	return nil
}

func (x *ListPromptsResponse) GetCacheScope() CacheScope {
	if x != nil {
		return x.CacheScope
	}
	return CacheScope_CACHE_SCOPE_UNSPECIFIED
}

// Tool is one tool the child offers.
type Tool struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The tool's name; pass it as CallToolRequest.name.
	// Default: never empty. Eras: all.
	Name string `protobuf:"bytes,1,opt,name=name,proto3" json:"name,omitempty"`
	// A human-readable name for display.
	// Default: empty when the child sent none. Eras: all.
	Title string `protobuf:"bytes,2,opt,name=title,proto3" json:"title,omitempty"`
	// What the tool does, for the model.
	// Default: empty when the child sent none. Eras: all.
	Description string `protobuf:"bytes,3,opt,name=description,proto3" json:"description,omitempty"`
	// The JSON Schema of the tool's arguments, an object schema with
	// `type: "object"`. Later revisions allow any JSON Schema 2020-12 keyword.
	// Default: always set. Eras: all.
	InputSchema *structpb.Struct `protobuf:"bytes,4,opt,name=input_schema,json=inputSchema,proto3" json:"input_schema,omitempty"`
	// The JSON Schema of structured_content in the tool's results.
	// Default: unset when the tool declares none. Eras: all.
	OutputSchema *structpb.Struct `protobuf:"bytes,5,opt,name=output_schema,json=outputSchema,proto3" json:"output_schema,omitempty"`
	// The ToolAnnotations object: title, readOnlyHint, destructiveHint,
	// idempotentHint, openWorldHint. These are hints; never trust them for
	// security.
	// Default: unset when the child sent none. Eras: all.
	Annotations *structpb.Struct `protobuf:"bytes,6,opt,name=annotations,proto3" json:"annotations,omitempty"`
	// Icons for display.
	// Default: empty. Eras: 2025-11-25 and 2026.
	Icons []*Icon `protobuf:"bytes,7,rep,name=icons,proto3" json:"icons,omitempty"`
	// The `execution` object, for example {"taskSupport":"optional"}.
	// Default: unset when the child sent none. Eras: legacy (2025-11-25 only).
	Execution *structpb.Struct `protobuf:"bytes,8,opt,name=execution,proto3" json:"execution,omitempty"`
	// The tool's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,9,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Tool) Reset() {
	*x = Tool{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[13]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Tool) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Tool) ProtoMessage() {}

func (x *Tool) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[13]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Tool.ProtoReflect.Descriptor instead.
func (*Tool) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{13}
}

func (x *Tool) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *Tool) GetTitle() string {
	if x != nil {
		return x.Title
	}
	return ""
}

func (x *Tool) GetDescription() string {
	if x != nil {
		return x.Description
	}
	return ""
}

func (x *Tool) GetInputSchema() *structpb.Struct {
	if x != nil {
		return x.InputSchema
	}
	return nil
}

func (x *Tool) GetOutputSchema() *structpb.Struct {
	if x != nil {
		return x.OutputSchema
	}
	return nil
}

func (x *Tool) GetAnnotations() *structpb.Struct {
	if x != nil {
		return x.Annotations
	}
	return nil
}

func (x *Tool) GetIcons() []*Icon {
	if x != nil {
		return x.Icons
	}
	return nil
}

func (x *Tool) GetExecution() *structpb.Struct {
	if x != nil {
		return x.Execution
	}
	return nil
}

func (x *Tool) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// Icon is an image a client may show for a tool, prompt, resource or server.
type Icon struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The image: an http(s) URL or a `data:` URI.
	// Default: never empty. Eras: 2025-11-25 and 2026.
	Src string `protobuf:"bytes,1,opt,name=src,proto3" json:"src,omitempty"`
	// The image's MIME type, for example "image/png".
	// Default: empty when the child sent none. Eras: 2025-11-25 and 2026.
	MimeType string `protobuf:"bytes,2,opt,name=mime_type,json=mimeType,proto3" json:"mime_type,omitempty"`
	// The sizes the image suits, for example "48x48" or "any".
	// Default: empty. Eras: 2025-11-25 and 2026.
	Sizes []string `protobuf:"bytes,3,rep,name=sizes,proto3" json:"sizes,omitempty"`
	// The colour theme the icon is for: "light" or "dark".
	// Default: empty, any theme. Eras: 2025-11-25 and 2026.
	Theme         string `protobuf:"bytes,4,opt,name=theme,proto3" json:"theme,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Icon) Reset() {
	*x = Icon{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[14]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Icon) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Icon) ProtoMessage() {}

func (x *Icon) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[14]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Icon.ProtoReflect.Descriptor instead.
func (*Icon) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{14}
}

func (x *Icon) GetSrc() string {
	if x != nil {
		return x.Src
	}
	return ""
}

func (x *Icon) GetMimeType() string {
	if x != nil {
		return x.MimeType
	}
	return ""
}

func (x *Icon) GetSizes() []string {
	if x != nil {
		return x.Sizes
	}
	return nil
}

func (x *Icon) GetTheme() string {
	if x != nil {
		return x.Theme
	}
	return ""
}

// Resource is one resource the child offers. It is also the body of a
// `resource_link` content block.
type Resource struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The resource's URI; pass it as ReadResourceRequest.uri.
	// Default: never empty. Eras: all.
	Uri string `protobuf:"bytes,1,opt,name=uri,proto3" json:"uri,omitempty"`
	// The resource's name.
	// Default: never empty. Eras: all.
	Name string `protobuf:"bytes,2,opt,name=name,proto3" json:"name,omitempty"`
	// A human-readable name for display.
	// Default: empty when the child sent none. Eras: all.
	Title string `protobuf:"bytes,3,opt,name=title,proto3" json:"title,omitempty"`
	// What the resource is, for the model.
	// Default: empty when the child sent none. Eras: all.
	Description string `protobuf:"bytes,4,opt,name=description,proto3" json:"description,omitempty"`
	// The resource's MIME type.
	// Default: empty when the child sent none. Eras: all.
	MimeType string `protobuf:"bytes,5,opt,name=mime_type,json=mimeType,proto3" json:"mime_type,omitempty"`
	// The resource's size in bytes, before any base64 encoding.
	// Default: unset when the child sent none. Eras: all.
	Size *int64 `protobuf:"varint,6,opt,name=size,proto3,oneof" json:"size,omitempty"`
	// The Annotations object: audience (["user","assistant"]), priority (0 to
	// 1) and lastModified (ISO 8601).
	// Default: unset when the child sent none. Eras: all.
	Annotations *structpb.Struct `protobuf:"bytes,7,opt,name=annotations,proto3" json:"annotations,omitempty"`
	// Icons for display.
	// Default: empty. Eras: 2025-11-25 and 2026.
	Icons []*Icon `protobuf:"bytes,8,rep,name=icons,proto3" json:"icons,omitempty"`
	// The resource's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,9,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Resource) Reset() {
	*x = Resource{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[15]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Resource) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Resource) ProtoMessage() {}

func (x *Resource) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[15]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Resource.ProtoReflect.Descriptor instead.
func (*Resource) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{15}
}

func (x *Resource) GetUri() string {
	if x != nil {
		return x.Uri
	}
	return ""
}

func (x *Resource) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *Resource) GetTitle() string {
	if x != nil {
		return x.Title
	}
	return ""
}

func (x *Resource) GetDescription() string {
	if x != nil {
		return x.Description
	}
	return ""
}

func (x *Resource) GetMimeType() string {
	if x != nil {
		return x.MimeType
	}
	return ""
}

func (x *Resource) GetSize() int64 {
	if x != nil && x.Size != nil {
		return *x.Size
	}
	return 0
}

func (x *Resource) GetAnnotations() *structpb.Struct {
	if x != nil {
		return x.Annotations
	}
	return nil
}

func (x *Resource) GetIcons() []*Icon {
	if x != nil {
		return x.Icons
	}
	return nil
}

func (x *Resource) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// ResourceTemplate is a parameterised family of resources.
type ResourceTemplate struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// An RFC 6570 URI template, for example "file:///{path}".
	// Default: never empty. Eras: all.
	UriTemplate string `protobuf:"bytes,1,opt,name=uri_template,json=uriTemplate,proto3" json:"uri_template,omitempty"`
	// The template's name.
	// Default: never empty. Eras: all.
	Name string `protobuf:"bytes,2,opt,name=name,proto3" json:"name,omitempty"`
	// A human-readable name for display.
	// Default: empty when the child sent none. Eras: all.
	Title string `protobuf:"bytes,3,opt,name=title,proto3" json:"title,omitempty"`
	// What the resources are, for the model.
	// Default: empty when the child sent none. Eras: all.
	Description string `protobuf:"bytes,4,opt,name=description,proto3" json:"description,omitempty"`
	// The MIME type of every matching resource, when they share one.
	// Default: empty when the child sent none. Eras: all.
	MimeType string `protobuf:"bytes,5,opt,name=mime_type,json=mimeType,proto3" json:"mime_type,omitempty"`
	// The Annotations object (audience, priority, lastModified).
	// Default: unset when the child sent none. Eras: all.
	Annotations *structpb.Struct `protobuf:"bytes,6,opt,name=annotations,proto3" json:"annotations,omitempty"`
	// Icons for display.
	// Default: empty. Eras: 2025-11-25 and 2026.
	Icons []*Icon `protobuf:"bytes,7,rep,name=icons,proto3" json:"icons,omitempty"`
	// The template's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,8,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ResourceTemplate) Reset() {
	*x = ResourceTemplate{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[16]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ResourceTemplate) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ResourceTemplate) ProtoMessage() {}

func (x *ResourceTemplate) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[16]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ResourceTemplate.ProtoReflect.Descriptor instead.
func (*ResourceTemplate) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{16}
}

func (x *ResourceTemplate) GetUriTemplate() string {
	if x != nil {
		return x.UriTemplate
	}
	return ""
}

func (x *ResourceTemplate) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *ResourceTemplate) GetTitle() string {
	if x != nil {
		return x.Title
	}
	return ""
}

func (x *ResourceTemplate) GetDescription() string {
	if x != nil {
		return x.Description
	}
	return ""
}

func (x *ResourceTemplate) GetMimeType() string {
	if x != nil {
		return x.MimeType
	}
	return ""
}

func (x *ResourceTemplate) GetAnnotations() *structpb.Struct {
	if x != nil {
		return x.Annotations
	}
	return nil
}

func (x *ResourceTemplate) GetIcons() []*Icon {
	if x != nil {
		return x.Icons
	}
	return nil
}

func (x *ResourceTemplate) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// Prompt is one prompt template the child offers.
type Prompt struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The prompt's name; pass it as GetPromptRequest.name.
	// Default: never empty. Eras: all.
	Name string `protobuf:"bytes,1,opt,name=name,proto3" json:"name,omitempty"`
	// A human-readable name for display.
	// Default: empty when the child sent none. Eras: all.
	Title string `protobuf:"bytes,2,opt,name=title,proto3" json:"title,omitempty"`
	// What the prompt is for.
	// Default: empty when the child sent none. Eras: all.
	Description string `protobuf:"bytes,3,opt,name=description,proto3" json:"description,omitempty"`
	// The arguments the prompt takes.
	// Default: empty, no arguments. Eras: all.
	Arguments []*PromptArgument `protobuf:"bytes,4,rep,name=arguments,proto3" json:"arguments,omitempty"`
	// Icons for display.
	// Default: empty. Eras: 2025-11-25 and 2026.
	Icons []*Icon `protobuf:"bytes,5,rep,name=icons,proto3" json:"icons,omitempty"`
	// The prompt's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,6,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Prompt) Reset() {
	*x = Prompt{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[17]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Prompt) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Prompt) ProtoMessage() {}

func (x *Prompt) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[17]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Prompt.ProtoReflect.Descriptor instead.
func (*Prompt) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{17}
}

func (x *Prompt) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *Prompt) GetTitle() string {
	if x != nil {
		return x.Title
	}
	return ""
}

func (x *Prompt) GetDescription() string {
	if x != nil {
		return x.Description
	}
	return ""
}

func (x *Prompt) GetArguments() []*PromptArgument {
	if x != nil {
		return x.Arguments
	}
	return nil
}

func (x *Prompt) GetIcons() []*Icon {
	if x != nil {
		return x.Icons
	}
	return nil
}

func (x *Prompt) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The argument's name, a key of GetPromptRequest.arguments.
	// Default: never empty. Eras: all.
	Name string `protobuf:"bytes,1,opt,name=name,proto3" json:"name,omitempty"`
	// A human-readable name for display.
	// Default: empty when the child sent none. Eras: all.
	Title string `protobuf:"bytes,2,opt,name=title,proto3" json:"title,omitempty"`
	// What the argument means.
	// Default: empty when the child sent none. Eras: all.
	Description string `protobuf:"bytes,3,opt,name=description,proto3" json:"description,omitempty"`
	// Whether GetPrompt needs this argument.
	// Default: false. Eras: all.
	Required      bool `protobuf:"varint,4,opt,name=required,proto3" json:"required,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *PromptArgument) Reset() {
	*x = PromptArgument{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[18]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *PromptArgument) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*PromptArgument) ProtoMessage() {}

func (x *PromptArgument) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[18]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use PromptArgument.ProtoReflect.Descriptor instead.
func (*PromptArgument) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{18}
}

func (x *PromptArgument) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *PromptArgument) GetTitle() string {
	if x != nil {
		return x.Title
	}
	return ""
}

func (x *PromptArgument) GetDescription() string {
	if x != nil {
		return x.Description
	}
	return ""
}

func (x *PromptArgument) GetRequired() bool {
	if x != nil {
		return x.Required
	}
	return false
}

// CallToolRequest calls one tool.
type CallToolRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The tool's name, as in Tool.name.
	// Default: none; required. Eras: all.
	Name string `protobuf:"bytes,2,opt,name=name,proto3" json:"name,omitempty"`
	// The tool's arguments, checked by the child against Tool.input_schema.
	// Default: unset, sent as no `arguments`. Eras: all.
	Arguments *structpb.Struct `protobuf:"bytes,3,opt,name=arguments,proto3" json:"arguments,omitempty"`
	// Sent as the request's `params._meta`. Keys the bridge owns
	// (`progressToken`, `io.modelcontextprotocol/protocolVersion`) are
	// INVALID_ARGUMENT. Other keys, including
	// `io.modelcontextprotocol/clientCapabilities` on a 2026 child, pass
	// through.
	// Default: unset, no caller `_meta`. Eras: all.
	Meta *structpb.Struct `protobuf:"bytes,4,opt,name=meta,proto3" json:"meta,omitempty"`
	// The answers to a previous response's input_required.input_requests:
	// for each key, the ElicitResult, CreateMessageResult or ListRootsResult
	// object. Sent as `inputResponses`.
	// Default: unset, a first attempt. Eras: 2026.
	InputResponses *structpb.Struct `protobuf:"bytes,5,opt,name=input_responses,json=inputResponses,proto3" json:"input_responses,omitempty"`
	// The previous response's input_required.request_state, copied byte for
	// byte; send it only when one was given. It is opaque: the bridge may wrap
	// the child's state, so never parse or build it.
	// Default: empty, a first attempt or a retry without state. Eras: 2026.
	RequestState string `protobuf:"bytes,6,opt,name=request_state,json=requestState,proto3" json:"request_state,omitempty"`
	// The client capabilities this caller declares for this request, as a
	// ClientCapabilities object, for example {"elicitation":{"form":{}}}. A
	// 2026 child embeds only input requests the caller declared. Shorthand
	// for `meta["io.modelcontextprotocol/clientCapabilities"]`; setting both
	// is INVALID_ARGUMENT.
	// Default: unset, the bridge's configured capabilities. Eras: 2026.
	ClientCapabilities *structpb.Struct `protobuf:"bytes,7,opt,name=client_capabilities,json=clientCapabilities,proto3" json:"client_capabilities,omitempty"`
	unknownFields      protoimpl.UnknownFields
	sizeCache          protoimpl.SizeCache
}

func (x *CallToolRequest) Reset() {
	*x = CallToolRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[19]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CallToolRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CallToolRequest) ProtoMessage() {}

func (x *CallToolRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[19]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CallToolRequest.ProtoReflect.Descriptor instead.
func (*CallToolRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{19}
}

func (x *CallToolRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *CallToolRequest) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *CallToolRequest) GetArguments() *structpb.Struct {
	if x != nil {
		return x.Arguments
	}
	return nil
}

func (x *CallToolRequest) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

func (x *CallToolRequest) GetInputResponses() *structpb.Struct {
	if x != nil {
		return x.InputResponses
	}
	return nil
}

func (x *CallToolRequest) GetRequestState() string {
	if x != nil {
		return x.RequestState
	}
	return ""
}

func (x *CallToolRequest) GetClientCapabilities() *structpb.Struct {
	if x != nil {
		return x.ClientCapabilities
	}
	return nil
}

// CallToolResponse is a tool's result: either a complete result (content
// and the rest) or, from a 2026 child, input_required.
type CallToolResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The result's content blocks, in order.
	// Default: empty; always empty with input_required. Eras: all.
	Content []*Content `protobuf:"bytes,1,rep,name=content,proto3" json:"content,omitempty"`
	// The tool's structured result, matching Tool.output_schema. A JSON
	// object from legacy children; any JSON value from 2026 children, which
	// is why this is a Value and not a Struct.
	// Default: unset when the tool returned none. Eras: all.
	StructuredContent *structpb.Value `protobuf:"bytes,2,opt,name=structured_content,json=structuredContent,proto3" json:"structured_content,omitempty"`
	// True when the tool ran and failed (`isError`); content describes the
	// failure for the model. Not a gRPC error.
	// Default: false. Eras: all.
	IsError bool `protobuf:"varint,3,opt,name=is_error,json=isError,proto3" json:"is_error,omitempty"`
	// The result's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta *structpb.Struct `protobuf:"bytes,4,opt,name=meta,proto3" json:"meta,omitempty"`
	// Set when the child needs input before it can answer (MRTR); retry with
	// CallToolRequest.input_responses and request_state.
	// Default: unset, a complete result. Eras: 2026.
	InputRequired *InputRequired `protobuf:"bytes,5,opt,name=input_required,json=inputRequired,proto3" json:"input_required,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CallToolResponse) Reset() {
	*x = CallToolResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[20]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CallToolResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CallToolResponse) ProtoMessage() {}

func (x *CallToolResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[20]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CallToolResponse.ProtoReflect.Descriptor instead.
func (*CallToolResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{20}
}

func (x *CallToolResponse) GetContent() []*Content {
	if x != nil {
		return x.Content
	}
	return nil
}

func (x *CallToolResponse) GetStructuredContent() *structpb.Value {
	if x != nil {
		return x.StructuredContent
	}
	return nil
}

func (x *CallToolResponse) GetIsError() bool {
	if x != nil {
		return x.IsError
	}
	return false
}

func (x *CallToolResponse) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

func (x *CallToolResponse) GetInputRequired() *InputRequired {
	if x != nil {
		return x.InputRequired
	}
	return nil
}

// InputRequired is a 2026 child's request for more input before it can
// answer (`resultType: "input_required"`). At least one field is set.
type InputRequired struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The questions for the caller, keyed by a child-chosen key: each value
	// is {"method": ..., "params": {...}} where method is
	// "elicitation/create", "sampling/createMessage" or "roots/list" with the
	// legacy params of that request. Answer each key in input_responses.
	// Default: unset when the child only sent request_state. Eras: 2026.
	InputRequests *structpb.Struct `protobuf:"bytes,1,opt,name=input_requests,json=inputRequests,proto3" json:"input_requests,omitempty"`
	// Opaque state to echo byte for byte in the retry's request_state.
	// Default: empty when the child sent none; then send none. Eras: 2026.
	RequestState string `protobuf:"bytes,2,opt,name=request_state,json=requestState,proto3" json:"request_state,omitempty"`
	// The interim result's `_meta`.
	// Default: unset when the child sent none. Eras: 2026.
	Meta          *structpb.Struct `protobuf:"bytes,3,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *InputRequired) Reset() {
	*x = InputRequired{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[21]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *InputRequired) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*InputRequired) ProtoMessage() {}

func (x *InputRequired) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[21]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use InputRequired.ProtoReflect.Descriptor instead.
func (*InputRequired) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{21}
}

func (x *InputRequired) GetInputRequests() *structpb.Struct {
	if x != nil {
		return x.InputRequests
	}
	return nil
}

func (x *InputRequired) GetRequestState() string {
	if x != nil {
		return x.RequestState
	}
	return ""
}

func (x *InputRequired) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// Content is one content block of a tool result or prompt message.
type Content struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The kind of block (MCP's `type`).
	//
	// Types that are valid to be assigned to Block:
	//
	//	*Content_Text
	//	*Content_Image
	//	*Content_Audio
	//	*Content_ResourceLink
	//	*Content_Resource
	//	*Content_OtherJson
	Block         isContent_Block `protobuf_oneof:"block"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Content) Reset() {
	*x = Content{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[22]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Content) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Content) ProtoMessage() {}

func (x *Content) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[22]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Content.ProtoReflect.Descriptor instead.
func (*Content) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{22}
}

func (x *Content) GetBlock() isContent_Block {
	if x != nil {
		return x.Block
	}
	return nil
}

func (x *Content) GetText() *TextContent {
	if x != nil {
		if x, ok := x.Block.(*Content_Text); ok {
			return x.Text
		}
	}
	return nil
}

func (x *Content) GetImage() *ImageContent {
	if x != nil {
		if x, ok := x.Block.(*Content_Image); ok {
			return x.Image
		}
	}
	return nil
}

func (x *Content) GetAudio() *AudioContent {
	if x != nil {
		if x, ok := x.Block.(*Content_Audio); ok {
			return x.Audio
		}
	}
	return nil
}

func (x *Content) GetResourceLink() *Resource {
	if x != nil {
		if x, ok := x.Block.(*Content_ResourceLink); ok {
			return x.ResourceLink
		}
	}
	return nil
}

func (x *Content) GetResource() *EmbeddedResource {
	if x != nil {
		if x, ok := x.Block.(*Content_Resource); ok {
			return x.Resource
		}
	}
	return nil
}

func (x *Content) GetOtherJson() string {
	if x != nil {
		if x, ok := x.Block.(*Content_OtherJson); ok {
			return x.OtherJson
		}
	}
	return ""
}

type isContent_Block interface {
	isContent_Block()
}

type Content_Text struct {
	// A `text` block.
	// Default: unset. Eras: all.
	Text *TextContent `protobuf:"bytes,1,opt,name=text,proto3,oneof"`
}

type Content_Image struct {
	// An `image` block.
	// Default: unset. Eras: all.
	Image *ImageContent `protobuf:"bytes,2,opt,name=image,proto3,oneof"`
}

type Content_Audio struct {
	// An `audio` block.
	// Default: unset. Eras: all.
	Audio *AudioContent `protobuf:"bytes,3,opt,name=audio,proto3,oneof"`
}

type Content_ResourceLink struct {
	// A `resource_link` block: a pointer to a resource, with the fields of
	// a Resource; read it with ReadResource.
	// Default: unset. Eras: all.
	ResourceLink *Resource `protobuf:"bytes,4,opt,name=resource_link,json=resourceLink,proto3,oneof"`
}

type Content_Resource struct {
	// A `resource` block: an embedded resource with its contents.
	// Default: unset. Eras: all.
	Resource *EmbeddedResource `protobuf:"bytes,5,opt,name=resource,proto3,oneof"`
}

type Content_OtherJson struct {
	// A block of a type this API does not model (for example a later
	// revision's), as its JSON text, so nothing is silently dropped.
	// Default: unset. Eras: all.
	OtherJson string `protobuf:"bytes,6,opt,name=other_json,json=otherJson,proto3,oneof"`
}

func (*Content_Text) isContent_Block() {}

func (*Content_Image) isContent_Block() {}

func (*Content_Audio) isContent_Block() {}

func (*Content_ResourceLink) isContent_Block() {}

func (*Content_Resource) isContent_Block() {}

func (*Content_OtherJson) isContent_Block() {}

// TextContent is a `text` content block.
type TextContent struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The text.
	// Default: empty. Eras: all.
	Text string `protobuf:"bytes,1,opt,name=text,proto3" json:"text,omitempty"`
	// The Annotations object (audience, priority, lastModified).
	// Default: unset when the child sent none. Eras: all.
	Annotations *structpb.Struct `protobuf:"bytes,2,opt,name=annotations,proto3" json:"annotations,omitempty"`
	// The block's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,3,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *TextContent) Reset() {
	*x = TextContent{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[23]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *TextContent) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*TextContent) ProtoMessage() {}

func (x *TextContent) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[23]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use TextContent.ProtoReflect.Descriptor instead.
func (*TextContent) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{23}
}

func (x *TextContent) GetText() string {
	if x != nil {
		return x.Text
	}
	return ""
}

func (x *TextContent) GetAnnotations() *structpb.Struct {
	if x != nil {
		return x.Annotations
	}
	return nil
}

func (x *TextContent) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// ImageContent is an `image` content block.
type ImageContent struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The image bytes, decoded from the child's base64.
	// Default: empty. Eras: all.
	Data []byte `protobuf:"bytes,1,opt,name=data,proto3" json:"data,omitempty"`
	// The image's MIME type, for example "image/png".
	// Default: never empty. Eras: all.
	MimeType string `protobuf:"bytes,2,opt,name=mime_type,json=mimeType,proto3" json:"mime_type,omitempty"`
	// The Annotations object (audience, priority, lastModified).
	// Default: unset when the child sent none. Eras: all.
	Annotations *structpb.Struct `protobuf:"bytes,3,opt,name=annotations,proto3" json:"annotations,omitempty"`
	// The block's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,4,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ImageContent) Reset() {
	*x = ImageContent{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[24]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ImageContent) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ImageContent) ProtoMessage() {}

func (x *ImageContent) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[24]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ImageContent.ProtoReflect.Descriptor instead.
func (*ImageContent) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{24}
}

func (x *ImageContent) GetData() []byte {
	if x != nil {
		return x.Data
	}
	return nil
}

func (x *ImageContent) GetMimeType() string {
	if x != nil {
		return x.MimeType
	}
	return ""
}

func (x *ImageContent) GetAnnotations() *structpb.Struct {
	if x != nil {
		return x.Annotations
	}
	return nil
}

func (x *ImageContent) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// AudioContent is an `audio` content block.
type AudioContent struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The audio bytes, decoded from the child's base64.
	// Default: empty. Eras: all.
	Data []byte `protobuf:"bytes,1,opt,name=data,proto3" json:"data,omitempty"`
	// The audio's MIME type, for example "audio/wav".
	// Default: never empty. Eras: all.
	MimeType string `protobuf:"bytes,2,opt,name=mime_type,json=mimeType,proto3" json:"mime_type,omitempty"`
	// The Annotations object (audience, priority, lastModified).
	// Default: unset when the child sent none. Eras: all.
	Annotations *structpb.Struct `protobuf:"bytes,3,opt,name=annotations,proto3" json:"annotations,omitempty"`
	// The block's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,4,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *AudioContent) Reset() {
	*x = AudioContent{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[25]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *AudioContent) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*AudioContent) ProtoMessage() {}

func (x *AudioContent) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[25]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use AudioContent.ProtoReflect.Descriptor instead.
func (*AudioContent) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{25}
}

func (x *AudioContent) GetData() []byte {
	if x != nil {
		return x.Data
	}
	return nil
}

func (x *AudioContent) GetMimeType() string {
	if x != nil {
		return x.MimeType
	}
	return ""
}

func (x *AudioContent) GetAnnotations() *structpb.Struct {
	if x != nil {
		return x.Annotations
	}
	return nil
}

func (x *AudioContent) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// EmbeddedResource is a `resource` content block.
type EmbeddedResource struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The embedded contents.
	// Default: always set. Eras: all.
	Resource *ResourceContents `protobuf:"bytes,1,opt,name=resource,proto3" json:"resource,omitempty"`
	// The Annotations object (audience, priority, lastModified).
	// Default: unset when the child sent none. Eras: all.
	Annotations *structpb.Struct `protobuf:"bytes,2,opt,name=annotations,proto3" json:"annotations,omitempty"`
	// The block's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,3,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *EmbeddedResource) Reset() {
	*x = EmbeddedResource{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[26]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *EmbeddedResource) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*EmbeddedResource) ProtoMessage() {}

func (x *EmbeddedResource) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[26]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use EmbeddedResource.ProtoReflect.Descriptor instead.
func (*EmbeddedResource) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{26}
}

func (x *EmbeddedResource) GetResource() *ResourceContents {
	if x != nil {
		return x.Resource
	}
	return nil
}

func (x *EmbeddedResource) GetAnnotations() *structpb.Struct {
	if x != nil {
		return x.Annotations
	}
	return nil
}

func (x *EmbeddedResource) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// ResourceContents is the contents of one resource: text or binary
// (TextResourceContents or BlobResourceContents in MCP).
type ResourceContents struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The URI of the resource these contents belong to.
	// Default: never empty. Eras: all.
	Uri string `protobuf:"bytes,1,opt,name=uri,proto3" json:"uri,omitempty"`
	// The contents' MIME type.
	// Default: empty when the child sent none. Eras: all.
	MimeType string `protobuf:"bytes,2,opt,name=mime_type,json=mimeType,proto3" json:"mime_type,omitempty"`
	// The contents: text, or binary data.
	//
	// Types that are valid to be assigned to Contents:
	//
	//	*ResourceContents_Text
	//	*ResourceContents_Blob
	Contents isResourceContents_Contents `protobuf_oneof:"contents"`
	// The contents' `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,5,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ResourceContents) Reset() {
	*x = ResourceContents{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[27]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ResourceContents) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ResourceContents) ProtoMessage() {}

func (x *ResourceContents) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[27]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ResourceContents.ProtoReflect.Descriptor instead.
func (*ResourceContents) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{27}
}

func (x *ResourceContents) GetUri() string {
	if x != nil {
		return x.Uri
	}
	return ""
}

func (x *ResourceContents) GetMimeType() string {
	if x != nil {
		return x.MimeType
	}
	return ""
}

func (x *ResourceContents) GetContents() isResourceContents_Contents {
	if x != nil {
		return x.Contents
	}
	return nil
}

func (x *ResourceContents) GetText() string {
	if x != nil {
		if x, ok := x.Contents.(*ResourceContents_Text); ok {
			return x.Text
		}
	}
	return ""
}

func (x *ResourceContents) GetBlob() []byte {
	if x != nil {
		if x, ok := x.Contents.(*ResourceContents_Blob); ok {
			return x.Blob
		}
	}
	return nil
}

func (x *ResourceContents) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

type isResourceContents_Contents interface {
	isResourceContents_Contents()
}

type ResourceContents_Text struct {
	// Text contents (`text`).
	// Default: unset. Eras: all.
	Text string `protobuf:"bytes,3,opt,name=text,proto3,oneof"`
}

type ResourceContents_Blob struct {
	// Binary contents (`blob`), decoded from the child's base64.
	// Default: unset. Eras: all.
	Blob []byte `protobuf:"bytes,4,opt,name=blob,proto3,oneof"`
}

func (*ResourceContents_Text) isResourceContents_Contents() {}

func (*ResourceContents_Blob) isResourceContents_Contents() {}

// ReadResourceRequest reads one resource.
type ReadResourceRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The resource's URI, from Resource.uri or a filled-in ResourceTemplate.
	// Default: none; required. Eras: all.
	Uri string `protobuf:"bytes,2,opt,name=uri,proto3" json:"uri,omitempty"`
	// Sent as the request's `params._meta`; bridge-owned keys are
	// INVALID_ARGUMENT (see CallToolRequest.meta).
	// Default: unset, no caller `_meta`. Eras: all.
	Meta *structpb.Struct `protobuf:"bytes,3,opt,name=meta,proto3" json:"meta,omitempty"`
	// Answers to a previous input_required, as in CallToolRequest.
	// Default: unset, a first attempt. Eras: 2026.
	InputResponses *structpb.Struct `protobuf:"bytes,4,opt,name=input_responses,json=inputResponses,proto3" json:"input_responses,omitempty"`
	// The previous input_required.request_state, copied byte for byte.
	// Default: empty. Eras: 2026.
	RequestState string `protobuf:"bytes,5,opt,name=request_state,json=requestState,proto3" json:"request_state,omitempty"`
	// Client capabilities for this request, as in CallToolRequest.
	// Default: unset, the bridge's configured capabilities. Eras: 2026.
	ClientCapabilities *structpb.Struct `protobuf:"bytes,6,opt,name=client_capabilities,json=clientCapabilities,proto3" json:"client_capabilities,omitempty"`
	unknownFields      protoimpl.UnknownFields
	sizeCache          protoimpl.SizeCache
}

func (x *ReadResourceRequest) Reset() {
	*x = ReadResourceRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[28]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ReadResourceRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ReadResourceRequest) ProtoMessage() {}

func (x *ReadResourceRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[28]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ReadResourceRequest.ProtoReflect.Descriptor instead.
func (*ReadResourceRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{28}
}

func (x *ReadResourceRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *ReadResourceRequest) GetUri() string {
	if x != nil {
		return x.Uri
	}
	return ""
}

func (x *ReadResourceRequest) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

func (x *ReadResourceRequest) GetInputResponses() *structpb.Struct {
	if x != nil {
		return x.InputResponses
	}
	return nil
}

func (x *ReadResourceRequest) GetRequestState() string {
	if x != nil {
		return x.RequestState
	}
	return ""
}

func (x *ReadResourceRequest) GetClientCapabilities() *structpb.Struct {
	if x != nil {
		return x.ClientCapabilities
	}
	return nil
}

// ReadResourceResponse is a resource's contents, or input_required.
type ReadResourceResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The contents; one read may return several entries (for example a
	// directory's files).
	// Default: empty only with input_required. Eras: all.
	Contents []*ResourceContents `protobuf:"bytes,1,rep,name=contents,proto3" json:"contents,omitempty"`
	// The result's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta *structpb.Struct `protobuf:"bytes,2,opt,name=meta,proto3" json:"meta,omitempty"`
	// Set when the child needs input before it can answer (MRTR).
	// Default: unset, a complete result. Eras: 2026.
	InputRequired *InputRequired `protobuf:"bytes,3,opt,name=input_required,json=inputRequired,proto3" json:"input_required,omitempty"`
	// How long the child says this result may be cached (`ttlMs`).
	// Default: unset, which means do not cache. Eras: 2026.
	Ttl *durationpb.Duration `protobuf:"bytes,4,opt,name=ttl,proto3" json:"ttl,omitempty"`
	// Who may share the cached result (`cacheScope`).
	// Default: CACHE_SCOPE_UNSPECIFIED for legacy children. Eras: 2026.
	CacheScope    CacheScope `protobuf:"varint,5,opt,name=cache_scope,json=cacheScope,proto3,enum=mcpbridge.v1.CacheScope" json:"cache_scope,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ReadResourceResponse) Reset() {
	*x = ReadResourceResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[29]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ReadResourceResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ReadResourceResponse) ProtoMessage() {}

func (x *ReadResourceResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[29]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ReadResourceResponse.ProtoReflect.Descriptor instead.
func (*ReadResourceResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{29}
}

func (x *ReadResourceResponse) GetContents() []*ResourceContents {
	if x != nil {
		return x.Contents
	}
	return nil
}

func (x *ReadResourceResponse) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

func (x *ReadResourceResponse) GetInputRequired() *InputRequired {
	if x != nil {
		return x.InputRequired
	}
	return nil
}

func (x *ReadResourceResponse) GetTtl() *durationpb.Duration {
	if x != nil {
		return x.Ttl
	}
	return nil
}

func (x *ReadResourceResponse) GetCacheScope() CacheScope {
	if x != nil {
		return x.CacheScope
	}
	return CacheScope_CACHE_SCOPE_UNSPECIFIED
}

// GetPromptRequest renders one prompt.
type GetPromptRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The prompt's name, as in Prompt.name.
	// Default: none; required. Eras: all.
	Name string `protobuf:"bytes,2,opt,name=name,proto3" json:"name,omitempty"`
	// The prompt's arguments, by PromptArgument.name.
	// Default: empty, sent as no `arguments`. Eras: all.
	Arguments map[string]string `protobuf:"bytes,3,rep,name=arguments,proto3" json:"arguments,omitempty" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Sent as the request's `params._meta`; bridge-owned keys are
	// INVALID_ARGUMENT (see CallToolRequest.meta).
	// Default: unset, no caller `_meta`. Eras: all.
	Meta *structpb.Struct `protobuf:"bytes,4,opt,name=meta,proto3" json:"meta,omitempty"`
	// Answers to a previous input_required, as in CallToolRequest.
	// Default: unset, a first attempt. Eras: 2026.
	InputResponses *structpb.Struct `protobuf:"bytes,5,opt,name=input_responses,json=inputResponses,proto3" json:"input_responses,omitempty"`
	// The previous input_required.request_state, copied byte for byte.
	// Default: empty. Eras: 2026.
	RequestState string `protobuf:"bytes,6,opt,name=request_state,json=requestState,proto3" json:"request_state,omitempty"`
	// Client capabilities for this request, as in CallToolRequest.
	// Default: unset, the bridge's configured capabilities. Eras: 2026.
	ClientCapabilities *structpb.Struct `protobuf:"bytes,7,opt,name=client_capabilities,json=clientCapabilities,proto3" json:"client_capabilities,omitempty"`
	unknownFields      protoimpl.UnknownFields
	sizeCache          protoimpl.SizeCache
}

func (x *GetPromptRequest) Reset() {
	*x = GetPromptRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[30]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *GetPromptRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*GetPromptRequest) ProtoMessage() {}

func (x *GetPromptRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[30]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use GetPromptRequest.ProtoReflect.Descriptor instead.
func (*GetPromptRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{30}
}

func (x *GetPromptRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *GetPromptRequest) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *GetPromptRequest) GetArguments() map[string]string {
	if x != nil {
		return x.Arguments
	}
	return nil
}

func (x *GetPromptRequest) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

func (x *GetPromptRequest) GetInputResponses() *structpb.Struct {
	if x != nil {
		return x.InputResponses
	}
	return nil
}

func (x *GetPromptRequest) GetRequestState() string {
	if x != nil {
		return x.RequestState
	}
	return ""
}

func (x *GetPromptRequest) GetClientCapabilities() *structpb.Struct {
	if x != nil {
		return x.ClientCapabilities
	}
	return nil
}

// GetPromptResponse is a rendered prompt, or input_required.
type GetPromptResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// A description of the rendered prompt.
	// Default: empty when the child sent none. Eras: all.
	Description string `protobuf:"bytes,1,opt,name=description,proto3" json:"description,omitempty"`
	// The prompt's messages, in order.
	// Default: empty only with input_required. Eras: all.
	Messages []*PromptMessage `protobuf:"bytes,2,rep,name=messages,proto3" json:"messages,omitempty"`
	// The result's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta *structpb.Struct `protobuf:"bytes,3,opt,name=meta,proto3" json:"meta,omitempty"`
	// Set when the child needs input before it can answer (MRTR).
	// Default: unset, a complete result. Eras: 2026.
	InputRequired *InputRequired `protobuf:"bytes,4,opt,name=input_required,json=inputRequired,proto3" json:"input_required,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *GetPromptResponse) Reset() {
	*x = GetPromptResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[31]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *GetPromptResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*GetPromptResponse) ProtoMessage() {}

func (x *GetPromptResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[31]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use GetPromptResponse.ProtoReflect.Descriptor instead.
func (*GetPromptResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{31}
}

func (x *GetPromptResponse) GetDescription() string {
	if x != nil {
		return x.Description
	}
	return ""
}

func (x *GetPromptResponse) GetMessages() []*PromptMessage {
	if x != nil {
		return x.Messages
	}
	return nil
}

func (x *GetPromptResponse) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

func (x *GetPromptResponse) GetInputRequired() *InputRequired {
	if x != nil {
		return x.InputRequired
	}
	return nil
}

// PromptMessage is one message of a rendered prompt.
type PromptMessage struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Who speaks the message.
	// Default: never ROLE_UNSPECIFIED for a known role. Eras: all.
	Role Role `protobuf:"varint,1,opt,name=role,proto3,enum=mcpbridge.v1.Role" json:"role,omitempty"`
	// The message's single content block.
	// Default: always set. Eras: all.
	Content       *Content `protobuf:"bytes,2,opt,name=content,proto3" json:"content,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *PromptMessage) Reset() {
	*x = PromptMessage{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[32]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *PromptMessage) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*PromptMessage) ProtoMessage() {}

func (x *PromptMessage) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[32]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use PromptMessage.ProtoReflect.Descriptor instead.
func (*PromptMessage) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{32}
}

func (x *PromptMessage) GetRole() Role {
	if x != nil {
		return x.Role
	}
	return Role_ROLE_UNSPECIFIED
}

func (x *PromptMessage) GetContent() *Content {
	if x != nil {
		return x.Content
	}
	return nil
}

// CompleteRequest asks for completions of one argument value.
type CompleteRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// What the argument belongs to (MCP's `ref`); exactly one is required.
	//
	// Types that are valid to be assigned to Ref:
	//
	//	*CompleteRequest_PromptName
	//	*CompleteRequest_ResourceTemplateUri
	Ref isCompleteRequest_Ref `protobuf_oneof:"ref"`
	// The name of the argument (or template variable) to complete.
	// Default: none; required. Eras: all.
	ArgumentName string `protobuf:"bytes,4,opt,name=argument_name,json=argumentName,proto3" json:"argument_name,omitempty"`
	// What the user typed so far.
	// Default: empty. Eras: all.
	ArgumentValue string `protobuf:"bytes,5,opt,name=argument_value,json=argumentValue,proto3" json:"argument_value,omitempty"`
	// Values of the other arguments already filled in (`context.arguments`).
	// Default: empty, sent as no `context`. Eras: all.
	ContextArguments map[string]string `protobuf:"bytes,6,rep,name=context_arguments,json=contextArguments,proto3" json:"context_arguments,omitempty" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Sent as the request's `params._meta`; bridge-owned keys are
	// INVALID_ARGUMENT (see ListToolsRequest.meta).
	// Default: unset, no caller `_meta`. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,7,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CompleteRequest) Reset() {
	*x = CompleteRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[33]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CompleteRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CompleteRequest) ProtoMessage() {}

func (x *CompleteRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[33]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CompleteRequest.ProtoReflect.Descriptor instead.
func (*CompleteRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{33}
}

func (x *CompleteRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *CompleteRequest) GetRef() isCompleteRequest_Ref {
	if x != nil {
		return x.Ref
	}
	return nil
}

func (x *CompleteRequest) GetPromptName() string {
	if x != nil {
		if x, ok := x.Ref.(*CompleteRequest_PromptName); ok {
			return x.PromptName
		}
	}
	return ""
}

func (x *CompleteRequest) GetResourceTemplateUri() string {
	if x != nil {
		if x, ok := x.Ref.(*CompleteRequest_ResourceTemplateUri); ok {
			return x.ResourceTemplateUri
		}
	}
	return ""
}

func (x *CompleteRequest) GetArgumentName() string {
	if x != nil {
		return x.ArgumentName
	}
	return ""
}

func (x *CompleteRequest) GetArgumentValue() string {
	if x != nil {
		return x.ArgumentValue
	}
	return ""
}

func (x *CompleteRequest) GetContextArguments() map[string]string {
	if x != nil {
		return x.ContextArguments
	}
	return nil
}

func (x *CompleteRequest) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

type isCompleteRequest_Ref interface {
	isCompleteRequest_Ref()
}

type CompleteRequest_PromptName struct {
	// A prompt's name (`ref/prompt`).
	// Default: unset. Eras: all.
	PromptName string `protobuf:"bytes,2,opt,name=prompt_name,json=promptName,proto3,oneof"`
}

type CompleteRequest_ResourceTemplateUri struct {
	// A resource template's URI template (`ref/resource`).
	// Default: unset. Eras: all.
	ResourceTemplateUri string `protobuf:"bytes,3,opt,name=resource_template_uri,json=resourceTemplateUri,proto3,oneof"`
}

func (*CompleteRequest_PromptName) isCompleteRequest_Ref() {}

func (*CompleteRequest_ResourceTemplateUri) isCompleteRequest_Ref() {}

// CompleteResponse is the child's completion result.
type CompleteResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The suggested values, at most 100, best first.
	// Default: empty. Eras: all.
	Values []string `protobuf:"bytes,1,rep,name=values,proto3" json:"values,omitempty"`
	// How many suggestions exist in all, which may exceed len(values).
	// Default: unset when the child does not know. Eras: all.
	Total *uint32 `protobuf:"varint,2,opt,name=total,proto3,oneof" json:"total,omitempty"`
	// Whether more suggestions exist than were returned.
	// Default: false. Eras: all.
	HasMore bool `protobuf:"varint,3,opt,name=has_more,json=hasMore,proto3" json:"has_more,omitempty"`
	// The result's `_meta`.
	// Default: unset when the child sent none. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,4,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CompleteResponse) Reset() {
	*x = CompleteResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[34]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CompleteResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CompleteResponse) ProtoMessage() {}

func (x *CompleteResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[34]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CompleteResponse.ProtoReflect.Descriptor instead.
func (*CompleteResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{34}
}

func (x *CompleteResponse) GetValues() []string {
	if x != nil {
		return x.Values
	}
	return nil
}

func (x *CompleteResponse) GetTotal() uint32 {
	if x != nil && x.Total != nil {
		return *x.Total
	}
	return 0
}

func (x *CompleteResponse) GetHasMore() bool {
	if x != nil {
		return x.HasMore
	}
	return false
}

func (x *CompleteResponse) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// CallToolStreamRequest calls one tool and streams its progress.
type CallToolStreamRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The tool's name, as in Tool.name.
	// Default: none; required. Eras: all.
	Name string `protobuf:"bytes,2,opt,name=name,proto3" json:"name,omitempty"`
	// The tool's arguments, as in CallToolRequest.
	// Default: unset, sent as no `arguments`. Eras: all.
	Arguments *structpb.Struct `protobuf:"bytes,3,opt,name=arguments,proto3" json:"arguments,omitempty"`
	// Sent as the request's `params._meta`; bridge-owned keys (the bridge
	// mints this call's `progressToken`) are INVALID_ARGUMENT.
	// Default: unset, no caller `_meta`. Eras: all.
	Meta *structpb.Struct `protobuf:"bytes,4,opt,name=meta,proto3" json:"meta,omitempty"`
	// Answers to a previous input_required, as in CallToolRequest.
	// Default: unset, a first attempt. Eras: 2026.
	InputResponses *structpb.Struct `protobuf:"bytes,5,opt,name=input_responses,json=inputResponses,proto3" json:"input_responses,omitempty"`
	// The previous input_required.request_state, copied byte for byte.
	// Default: empty. Eras: 2026.
	RequestState string `protobuf:"bytes,6,opt,name=request_state,json=requestState,proto3" json:"request_state,omitempty"`
	// Client capabilities for this request, as in CallToolRequest.
	// Default: unset, the bridge's configured capabilities. Eras: 2026.
	ClientCapabilities *structpb.Struct `protobuf:"bytes,7,opt,name=client_capabilities,json=clientCapabilities,proto3" json:"client_capabilities,omitempty"`
	// The lowest log level to deliver as `log` messages. A 2026 child gets it
	// as `_meta["io.modelcontextprotocol/logLevel"]` (so setting that key in
	// meta as well is INVALID_ARGUMENT) and sends logs for this call only. A
	// legacy child logs for its whole session: while this stream reads, the
	// bridge holds the child's level (logging/setLevel) at least this
	// verbose, and filters the child's logs to this level; it
	// delivers them here only while this is the only call in flight on the
	// child (otherwise they go to Subscribe streams that asked for logs).
	// Default: LOGGING_LEVEL_UNSPECIFIED, no logs. Eras: all.
	LogLevel LoggingLevel `protobuf:"varint,8,opt,name=log_level,json=logLevel,proto3,enum=mcpbridge.v1.LoggingLevel" json:"log_level,omitempty"`
	// Offer this stream requests from a legacy child (sampling, elicitation,
	// roots) as server_request messages, to be answered with
	// RespondToServerRequest; see the file comment for the routing.
	// Default: false, none are offered here. Eras: legacy.
	ServerRequests bool `protobuf:"varint,9,opt,name=server_requests,json=serverRequests,proto3" json:"server_requests,omitempty"`
	unknownFields  protoimpl.UnknownFields
	sizeCache      protoimpl.SizeCache
}

func (x *CallToolStreamRequest) Reset() {
	*x = CallToolStreamRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[35]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CallToolStreamRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CallToolStreamRequest) ProtoMessage() {}

func (x *CallToolStreamRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[35]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CallToolStreamRequest.ProtoReflect.Descriptor instead.
func (*CallToolStreamRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{35}
}

func (x *CallToolStreamRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *CallToolStreamRequest) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *CallToolStreamRequest) GetArguments() *structpb.Struct {
	if x != nil {
		return x.Arguments
	}
	return nil
}

func (x *CallToolStreamRequest) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

func (x *CallToolStreamRequest) GetInputResponses() *structpb.Struct {
	if x != nil {
		return x.InputResponses
	}
	return nil
}

func (x *CallToolStreamRequest) GetRequestState() string {
	if x != nil {
		return x.RequestState
	}
	return ""
}

func (x *CallToolStreamRequest) GetClientCapabilities() *structpb.Struct {
	if x != nil {
		return x.ClientCapabilities
	}
	return nil
}

func (x *CallToolStreamRequest) GetLogLevel() LoggingLevel {
	if x != nil {
		return x.LogLevel
	}
	return LoggingLevel_LOGGING_LEVEL_UNSPECIFIED
}

func (x *CallToolStreamRequest) GetServerRequests() bool {
	if x != nil {
		return x.ServerRequests
	}
	return false
}

// CallToolStreamResponse is one message of a CallToolStream stream: zero or
// more progress, log and server_request messages, then exactly one result.
type CallToolStreamResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// What this message carries.
	//
	// Types that are valid to be assigned to Event:
	//
	//	*CallToolStreamResponse_Progress
	//	*CallToolStreamResponse_Log
	//	*CallToolStreamResponse_ServerRequest
	//	*CallToolStreamResponse_Result
	Event         isCallToolStreamResponse_Event `protobuf_oneof:"event"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CallToolStreamResponse) Reset() {
	*x = CallToolStreamResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[36]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CallToolStreamResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CallToolStreamResponse) ProtoMessage() {}

func (x *CallToolStreamResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[36]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CallToolStreamResponse.ProtoReflect.Descriptor instead.
func (*CallToolStreamResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{36}
}

func (x *CallToolStreamResponse) GetEvent() isCallToolStreamResponse_Event {
	if x != nil {
		return x.Event
	}
	return nil
}

func (x *CallToolStreamResponse) GetProgress() *Progress {
	if x != nil {
		if x, ok := x.Event.(*CallToolStreamResponse_Progress); ok {
			return x.Progress
		}
	}
	return nil
}

func (x *CallToolStreamResponse) GetLog() *LogMessage {
	if x != nil {
		if x, ok := x.Event.(*CallToolStreamResponse_Log); ok {
			return x.Log
		}
	}
	return nil
}

func (x *CallToolStreamResponse) GetServerRequest() *ServerRequest {
	if x != nil {
		if x, ok := x.Event.(*CallToolStreamResponse_ServerRequest); ok {
			return x.ServerRequest
		}
	}
	return nil
}

func (x *CallToolStreamResponse) GetResult() *CallToolResponse {
	if x != nil {
		if x, ok := x.Event.(*CallToolStreamResponse_Result); ok {
			return x.Result
		}
	}
	return nil
}

type isCallToolStreamResponse_Event interface {
	isCallToolStreamResponse_Event()
}

type CallToolStreamResponse_Progress struct {
	// A `notifications/progress` for this call.
	// Default: unset. Eras: all.
	Progress *Progress `protobuf:"bytes,1,opt,name=progress,proto3,oneof"`
}

type CallToolStreamResponse_Log struct {
	// A `notifications/message` (log) attributed to this call.
	// Default: unset. Eras: all.
	Log *LogMessage `protobuf:"bytes,2,opt,name=log,proto3,oneof"`
}

type CallToolStreamResponse_ServerRequest struct {
	// A request from a legacy child, if this stream set server_requests.
	// Default: unset. Eras: legacy.
	ServerRequest *ServerRequest `protobuf:"bytes,3,opt,name=server_request,json=serverRequest,proto3,oneof"`
}

type CallToolStreamResponse_Result struct {
	// The tool's result, always the last message; it may be input_required
	// (2026).
	// Default: unset. Eras: all.
	Result *CallToolResponse `protobuf:"bytes,4,opt,name=result,proto3,oneof"`
}

func (*CallToolStreamResponse_Progress) isCallToolStreamResponse_Event() {}

func (*CallToolStreamResponse_Log) isCallToolStreamResponse_Event() {}

func (*CallToolStreamResponse_ServerRequest) isCallToolStreamResponse_Event() {}

func (*CallToolStreamResponse_Result) isCallToolStreamResponse_Event() {}

// Progress is a `notifications/progress` for the call of the stream it is
// on. MCP requires progress to increase with every message.
type Progress struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// How far the work is; it increases with every message, even when total
	// is unknown, and may be fractional.
	// Default: 0. Eras: all.
	Progress float64 `protobuf:"fixed64,1,opt,name=progress,proto3" json:"progress,omitempty"`
	// The value progress reaches when the work is done.
	// Default: unset when the child does not know. Eras: all.
	Total *float64 `protobuf:"fixed64,2,opt,name=total,proto3,oneof" json:"total,omitempty"`
	// A human-readable description of the current step.
	// Default: empty when the child sent none. Eras: all.
	Message       string `protobuf:"bytes,3,opt,name=message,proto3" json:"message,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Progress) Reset() {
	*x = Progress{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[37]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Progress) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Progress) ProtoMessage() {}

func (x *Progress) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[37]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Progress.ProtoReflect.Descriptor instead.
func (*Progress) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{37}
}

func (x *Progress) GetProgress() float64 {
	if x != nil {
		return x.Progress
	}
	return 0
}

func (x *Progress) GetTotal() float64 {
	if x != nil && x.Total != nil {
		return *x.Total
	}
	return 0
}

func (x *Progress) GetMessage() string {
	if x != nil {
		return x.Message
	}
	return ""
}

// LogMessage is a `notifications/message` from the child.
type LogMessage struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The message's severity.
	// Default: LOGGING_LEVEL_UNSPECIFIED for a level this API does not know.
	// Eras: all.
	Level LoggingLevel `protobuf:"varint,1,opt,name=level,proto3,enum=mcpbridge.v1.LoggingLevel" json:"level,omitempty"`
	// The name of the child's logger.
	// Default: empty when the child sent none. Eras: all.
	Logger string `protobuf:"bytes,2,opt,name=logger,proto3" json:"logger,omitempty"`
	// The log payload: any JSON value, often a string or an object.
	// Default: unset when the child sent none. Eras: all.
	Data          *structpb.Value `protobuf:"bytes,3,opt,name=data,proto3" json:"data,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *LogMessage) Reset() {
	*x = LogMessage{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[38]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *LogMessage) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*LogMessage) ProtoMessage() {}

func (x *LogMessage) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[38]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use LogMessage.ProtoReflect.Descriptor instead.
func (*LogMessage) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{38}
}

func (x *LogMessage) GetLevel() LoggingLevel {
	if x != nil {
		return x.Level
	}
	return LoggingLevel_LOGGING_LEVEL_UNSPECIFIED
}

func (x *LogMessage) GetLogger() string {
	if x != nil {
		return x.Logger
	}
	return ""
}

func (x *LogMessage) GetData() *structpb.Value {
	if x != nil {
		return x.Data
	}
	return nil
}

// ServerRequest is a request from a legacy child to the client
// (`sampling/createMessage`, `elicitation/create`, `roots/list`) that the
// bridge offers on a stream. Answer it with RespondToServerRequest before
// expire_time.
type ServerRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The bridge-minted id of this request: a prefix that names the bridge
	// process and 128 random bits, so that it is unique and cannot be guessed
	// from other ids. It is an opaque string, not JSON: pass it unchanged as
	// RespondToServerRequestRequest.id.
	// Default: never empty. Eras: legacy.
	Id string `protobuf:"bytes,1,opt,name=id,proto3" json:"id,omitempty"`
	// The JSON-RPC method, for example "sampling/createMessage".
	// Default: never empty. Eras: legacy.
	Method string `protobuf:"bytes,2,opt,name=method,proto3" json:"method,omitempty"`
	// The request's params as JSON text, exactly as the child sent them.
	// Default: empty when the child sent no params. Eras: legacy.
	ParamsJson string `protobuf:"bytes,3,opt,name=params_json,json=paramsJson,proto3" json:"params_json,omitempty"`
	// The name of the fronted server whose child sent the request.
	// Default: never empty. Eras: legacy.
	Server string `protobuf:"bytes,4,opt,name=server,proto3" json:"server,omitempty"`
	// The child's own JSON-RPC id as JSON text (for example `0` or
	// `"srv-1"`), for logs and correlation only; it is not unique across
	// children.
	// Default: never empty. Eras: legacy.
	ChildRequestIdJson string `protobuf:"bytes,5,opt,name=child_request_id_json,json=childRequestIdJson,proto3" json:"child_request_id_json,omitempty"`
	// When the bridge stops waiting and answers the child with a JSON-RPC
	// error.
	// Default: always set. Eras: legacy.
	ExpireTime *timestamppb.Timestamp `protobuf:"bytes,6,opt,name=expire_time,json=expireTime,proto3" json:"expire_time,omitempty"`
	// The `mcp-session` metadata of the stream this request was offered on.
	// Send RespondToServerRequest with this value as its `mcp-session`
	// metadata: the bridge takes an answer only with the routing key of a
	// stream the request was offered on, and behind a balancer that hashes on
	// `mcp-session` (several bridge replicas; docs/scaling.md) the answer so
	// reaches the replica whose child asked. A stream that may be offered
	// requests should therefore carry `mcp-session` there, also to a server
	// whose policy is not `session` (where it only routes).
	// Default: empty when the stream had none. Eras: legacy.
	RoutingKey    string `protobuf:"bytes,7,opt,name=routing_key,json=routingKey,proto3" json:"routing_key,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ServerRequest) Reset() {
	*x = ServerRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[39]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ServerRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ServerRequest) ProtoMessage() {}

func (x *ServerRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[39]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ServerRequest.ProtoReflect.Descriptor instead.
func (*ServerRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{39}
}

func (x *ServerRequest) GetId() string {
	if x != nil {
		return x.Id
	}
	return ""
}

func (x *ServerRequest) GetMethod() string {
	if x != nil {
		return x.Method
	}
	return ""
}

func (x *ServerRequest) GetParamsJson() string {
	if x != nil {
		return x.ParamsJson
	}
	return ""
}

func (x *ServerRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *ServerRequest) GetChildRequestIdJson() string {
	if x != nil {
		return x.ChildRequestIdJson
	}
	return ""
}

func (x *ServerRequest) GetExpireTime() *timestamppb.Timestamp {
	if x != nil {
		return x.ExpireTime
	}
	return nil
}

func (x *ServerRequest) GetRoutingKey() string {
	if x != nil {
		return x.RoutingKey
	}
	return ""
}

// SubscribeRequest opens a stream of list changes and resource updates. On
// a 2026 child the stream shares an open `subscriptions/listen` whose
// request covers this one (every list change asked for here, and for each
// URI the same URI or a parent), or opens one; on a legacy child the bridge
// subscribes each URI once. Either way the bridge fans the child's events
// out, each stream getting only what its own request asks for.
type SubscribeRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// Deliver `notifications/tools/list_changed` as tools_list_changed.
	// Default: false. Eras: all.
	ToolsListChanged bool `protobuf:"varint,2,opt,name=tools_list_changed,json=toolsListChanged,proto3" json:"tools_list_changed,omitempty"`
	// Deliver `notifications/prompts/list_changed` as prompts_list_changed.
	// Default: false. Eras: all.
	PromptsListChanged bool `protobuf:"varint,3,opt,name=prompts_list_changed,json=promptsListChanged,proto3" json:"prompts_list_changed,omitempty"`
	// Deliver `notifications/resources/list_changed` as
	// resources_list_changed.
	// Default: false. Eras: all.
	ResourcesListChanged bool `protobuf:"varint,4,opt,name=resources_list_changed,json=resourcesListChanged,proto3" json:"resources_list_changed,omitempty"`
	// Resource URIs whose `notifications/resources/updated` to deliver as
	// resource_updated.
	// Default: empty. Eras: all.
	ResourceSubscriptions []string `protobuf:"bytes,5,rep,name=resource_subscriptions,json=resourceSubscriptions,proto3" json:"resource_subscriptions,omitempty"`
	// Offer this stream requests from a legacy child (sampling, elicitation,
	// roots) as server_request messages, to be answered with
	// RespondToServerRequest. A Subscribe stream with only this set is a
	// long-lived handler for them.
	// Default: false, none are offered here. Eras: legacy.
	ServerRequests bool `protobuf:"varint,6,opt,name=server_requests,json=serverRequests,proto3" json:"server_requests,omitempty"`
	// Deliver the child's logs that are not attributed to one call, at this
	// level or above, as log messages. While the stream is open the bridge
	// holds the child's own level (logging/setLevel) at least this verbose:
	// the most verbose level any reader needs, or `--child-log-level` when
	// none does. 2026 children log only per request, never here.
	// Default: LOGGING_LEVEL_UNSPECIFIED, no logs. Eras: legacy.
	LogLevel      LoggingLevel `protobuf:"varint,7,opt,name=log_level,json=logLevel,proto3,enum=mcpbridge.v1.LoggingLevel" json:"log_level,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *SubscribeRequest) Reset() {
	*x = SubscribeRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[40]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *SubscribeRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*SubscribeRequest) ProtoMessage() {}

func (x *SubscribeRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[40]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use SubscribeRequest.ProtoReflect.Descriptor instead.
func (*SubscribeRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{40}
}

func (x *SubscribeRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *SubscribeRequest) GetToolsListChanged() bool {
	if x != nil {
		return x.ToolsListChanged
	}
	return false
}

func (x *SubscribeRequest) GetPromptsListChanged() bool {
	if x != nil {
		return x.PromptsListChanged
	}
	return false
}

func (x *SubscribeRequest) GetResourcesListChanged() bool {
	if x != nil {
		return x.ResourcesListChanged
	}
	return false
}

func (x *SubscribeRequest) GetResourceSubscriptions() []string {
	if x != nil {
		return x.ResourceSubscriptions
	}
	return nil
}

func (x *SubscribeRequest) GetServerRequests() bool {
	if x != nil {
		return x.ServerRequests
	}
	return false
}

func (x *SubscribeRequest) GetLogLevel() LoggingLevel {
	if x != nil {
		return x.LogLevel
	}
	return LoggingLevel_LOGGING_LEVEL_UNSPECIFIED
}

// SubscribeResponse is one message of a Subscribe stream. The first is
// always acknowledged.
type SubscribeResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// What this message carries.
	//
	// Types that are valid to be assigned to Event:
	//
	//	*SubscribeResponse_Acknowledged
	//	*SubscribeResponse_ResourceUpdated
	//	*SubscribeResponse_ToolsListChanged
	//	*SubscribeResponse_PromptsListChanged
	//	*SubscribeResponse_ResourcesListChanged
	//	*SubscribeResponse_ServerRequest
	//	*SubscribeResponse_Log
	Event isSubscribeResponse_Event `protobuf_oneof:"event"`
	// How many events the bridge discarded just before this one because this
	// stream fell behind its bounded buffer or, on a 2026 child, because the
	// listen this stream shares fell behind its own (those drops count on
	// every stream of the listen: nobody can tell whom they concerned). When
	// it is not 0, re-read whatever you cache from this server.
	// Default: 0. Eras: all.
	Dropped       uint32 `protobuf:"varint,8,opt,name=dropped,proto3" json:"dropped,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *SubscribeResponse) Reset() {
	*x = SubscribeResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[41]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *SubscribeResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*SubscribeResponse) ProtoMessage() {}

func (x *SubscribeResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[41]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use SubscribeResponse.ProtoReflect.Descriptor instead.
func (*SubscribeResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{41}
}

func (x *SubscribeResponse) GetEvent() isSubscribeResponse_Event {
	if x != nil {
		return x.Event
	}
	return nil
}

func (x *SubscribeResponse) GetAcknowledged() *SubscriptionAcknowledged {
	if x != nil {
		if x, ok := x.Event.(*SubscribeResponse_Acknowledged); ok {
			return x.Acknowledged
		}
	}
	return nil
}

func (x *SubscribeResponse) GetResourceUpdated() *ResourceUpdated {
	if x != nil {
		if x, ok := x.Event.(*SubscribeResponse_ResourceUpdated); ok {
			return x.ResourceUpdated
		}
	}
	return nil
}

func (x *SubscribeResponse) GetToolsListChanged() *ListChanged {
	if x != nil {
		if x, ok := x.Event.(*SubscribeResponse_ToolsListChanged); ok {
			return x.ToolsListChanged
		}
	}
	return nil
}

func (x *SubscribeResponse) GetPromptsListChanged() *ListChanged {
	if x != nil {
		if x, ok := x.Event.(*SubscribeResponse_PromptsListChanged); ok {
			return x.PromptsListChanged
		}
	}
	return nil
}

func (x *SubscribeResponse) GetResourcesListChanged() *ListChanged {
	if x != nil {
		if x, ok := x.Event.(*SubscribeResponse_ResourcesListChanged); ok {
			return x.ResourcesListChanged
		}
	}
	return nil
}

func (x *SubscribeResponse) GetServerRequest() *ServerRequest {
	if x != nil {
		if x, ok := x.Event.(*SubscribeResponse_ServerRequest); ok {
			return x.ServerRequest
		}
	}
	return nil
}

func (x *SubscribeResponse) GetLog() *LogMessage {
	if x != nil {
		if x, ok := x.Event.(*SubscribeResponse_Log); ok {
			return x.Log
		}
	}
	return nil
}

func (x *SubscribeResponse) GetDropped() uint32 {
	if x != nil {
		return x.Dropped
	}
	return 0
}

type isSubscribeResponse_Event interface {
	isSubscribeResponse_Event()
}

type SubscribeResponse_Acknowledged struct {
	// What the child honours of the request; the first message. Compare it
	// with what you asked for.
	// Default: unset. Eras: all.
	Acknowledged *SubscriptionAcknowledged `protobuf:"bytes,1,opt,name=acknowledged,proto3,oneof"`
}

type SubscribeResponse_ResourceUpdated struct {
	// A subscribed resource changed; read it again with ReadResource.
	// Default: unset. Eras: all.
	ResourceUpdated *ResourceUpdated `protobuf:"bytes,2,opt,name=resource_updated,json=resourceUpdated,proto3,oneof"`
}

type SubscribeResponse_ToolsListChanged struct {
	// The tool list changed; call ListTools again.
	// Default: unset. Eras: all.
	ToolsListChanged *ListChanged `protobuf:"bytes,3,opt,name=tools_list_changed,json=toolsListChanged,proto3,oneof"`
}

type SubscribeResponse_PromptsListChanged struct {
	// The prompt list changed; call ListPrompts again.
	// Default: unset. Eras: all.
	PromptsListChanged *ListChanged `protobuf:"bytes,4,opt,name=prompts_list_changed,json=promptsListChanged,proto3,oneof"`
}

type SubscribeResponse_ResourcesListChanged struct {
	// The resource list changed; call ListResources again.
	// Default: unset. Eras: all.
	ResourcesListChanged *ListChanged `protobuf:"bytes,5,opt,name=resources_list_changed,json=resourcesListChanged,proto3,oneof"`
}

type SubscribeResponse_ServerRequest struct {
	// A request from a legacy child, if this stream set server_requests.
	// Default: unset. Eras: legacy.
	ServerRequest *ServerRequest `protobuf:"bytes,6,opt,name=server_request,json=serverRequest,proto3,oneof"`
}

type SubscribeResponse_Log struct {
	// A log of the child not attributed to one call, if this stream set
	// log_level.
	// Default: unset. Eras: legacy.
	Log *LogMessage `protobuf:"bytes,7,opt,name=log,proto3,oneof"`
}

func (*SubscribeResponse_Acknowledged) isSubscribeResponse_Event() {}

func (*SubscribeResponse_ResourceUpdated) isSubscribeResponse_Event() {}

func (*SubscribeResponse_ToolsListChanged) isSubscribeResponse_Event() {}

func (*SubscribeResponse_PromptsListChanged) isSubscribeResponse_Event() {}

func (*SubscribeResponse_ResourcesListChanged) isSubscribeResponse_Event() {}

func (*SubscribeResponse_ServerRequest) isSubscribeResponse_Event() {}

func (*SubscribeResponse_Log) isSubscribeResponse_Event() {}

// SubscriptionAcknowledged is the subset of a SubscribeRequest the child
// honours: what the child's capabilities support (legacy), or the request
// narrowed by the `notifications/subscriptions/acknowledged` of the listen
// it shares (2026; a URI stays when an acknowledged one covers it).
type SubscriptionAcknowledged struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Tool list changes will be delivered.
	// Default: false. Eras: all.
	ToolsListChanged bool `protobuf:"varint,1,opt,name=tools_list_changed,json=toolsListChanged,proto3" json:"tools_list_changed,omitempty"`
	// Prompt list changes will be delivered.
	// Default: false. Eras: all.
	PromptsListChanged bool `protobuf:"varint,2,opt,name=prompts_list_changed,json=promptsListChanged,proto3" json:"prompts_list_changed,omitempty"`
	// Resource list changes will be delivered.
	// Default: false. Eras: all.
	ResourcesListChanged bool `protobuf:"varint,3,opt,name=resources_list_changed,json=resourcesListChanged,proto3" json:"resources_list_changed,omitempty"`
	// The resource URIs whose updates will be delivered.
	// Default: empty. Eras: all.
	ResourceSubscriptions []string `protobuf:"bytes,4,rep,name=resource_subscriptions,json=resourceSubscriptions,proto3" json:"resource_subscriptions,omitempty"`
	unknownFields         protoimpl.UnknownFields
	sizeCache             protoimpl.SizeCache
}

func (x *SubscriptionAcknowledged) Reset() {
	*x = SubscriptionAcknowledged{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[42]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *SubscriptionAcknowledged) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*SubscriptionAcknowledged) ProtoMessage() {}

func (x *SubscriptionAcknowledged) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[42]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use SubscriptionAcknowledged.ProtoReflect.Descriptor instead.
func (*SubscriptionAcknowledged) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{42}
}

func (x *SubscriptionAcknowledged) GetToolsListChanged() bool {
	if x != nil {
		return x.ToolsListChanged
	}
	return false
}

func (x *SubscriptionAcknowledged) GetPromptsListChanged() bool {
	if x != nil {
		return x.PromptsListChanged
	}
	return false
}

func (x *SubscriptionAcknowledged) GetResourcesListChanged() bool {
	if x != nil {
		return x.ResourcesListChanged
	}
	return false
}

func (x *SubscriptionAcknowledged) GetResourceSubscriptions() []string {
	if x != nil {
		return x.ResourceSubscriptions
	}
	return nil
}

// ResourceUpdated is a `notifications/resources/updated`.
type ResourceUpdated struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The URI of the resource that changed; it may be a sub-resource of a
	// subscribed URI.
	// Default: never empty. Eras: all.
	Uri string `protobuf:"bytes,1,opt,name=uri,proto3" json:"uri,omitempty"`
	// The notification's `_meta`, without the bridge-owned subscription id.
	// Default: unset when the child sent none. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,2,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ResourceUpdated) Reset() {
	*x = ResourceUpdated{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[43]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ResourceUpdated) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ResourceUpdated) ProtoMessage() {}

func (x *ResourceUpdated) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[43]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ResourceUpdated.ProtoReflect.Descriptor instead.
func (*ResourceUpdated) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{43}
}

func (x *ResourceUpdated) GetUri() string {
	if x != nil {
		return x.Uri
	}
	return ""
}

func (x *ResourceUpdated) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// ListChanged is a `notifications/{tools,prompts,resources}/list_changed`.
type ListChanged struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The notification's `_meta`, without the bridge-owned subscription id.
	// Default: unset when the child sent none. Eras: all.
	Meta          *structpb.Struct `protobuf:"bytes,1,opt,name=meta,proto3" json:"meta,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListChanged) Reset() {
	*x = ListChanged{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[44]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListChanged) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListChanged) ProtoMessage() {}

func (x *ListChanged) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[44]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListChanged.ProtoReflect.Descriptor instead.
func (*ListChanged) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{44}
}

func (x *ListChanged) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

// CallRequest sends any MCP request method, losslessly.
type CallRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The JSON-RPC method, for example "tools/call". Methods the bridge owns
	// are INVALID_ARGUMENT: `initialize`, `notifications/*` (use Connect),
	// `subscriptions/listen`, `resources/subscribe` and
	// `resources/unsubscribe` (use Subscribe), and `logging/setLevel`.
	// Methods outside the child's era are UNIMPLEMENTED.
	// Default: none; required. Eras: all.
	Method string `protobuf:"bytes,2,opt,name=method,proto3" json:"method,omitempty"`
	// The params as JSON text: a JSON object, or empty for none. The bridge
	// adds the `_meta` keys it owns (the 2026 protocol keys) and keeps
	// everything else byte for byte.
	// Default: empty, sent as `{}` (2026) or no params (legacy). Eras: all.
	ParamsJson    string `protobuf:"bytes,3,opt,name=params_json,json=paramsJson,proto3" json:"params_json,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CallRequest) Reset() {
	*x = CallRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[45]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CallRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CallRequest) ProtoMessage() {}

func (x *CallRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[45]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CallRequest.ProtoReflect.Descriptor instead.
func (*CallRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{45}
}

func (x *CallRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *CallRequest) GetMethod() string {
	if x != nil {
		return x.Method
	}
	return ""
}

func (x *CallRequest) GetParamsJson() string {
	if x != nil {
		return x.ParamsJson
	}
	return ""
}

// CallResponse is the child's JSON-RPC result, losslessly.
type CallResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The result as JSON text, exactly as the child sent it (compacted):
	// nothing is added, not even `resultType` for a legacy child.
	// Default: never empty. Eras: all.
	ResultJson    string `protobuf:"bytes,1,opt,name=result_json,json=resultJson,proto3" json:"result_json,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CallResponse) Reset() {
	*x = CallResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[46]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CallResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CallResponse) ProtoMessage() {}

func (x *CallResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[46]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CallResponse.ProtoReflect.Descriptor instead.
func (*CallResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{46}
}

func (x *CallResponse) GetResultJson() string {
	if x != nil {
		return x.ResultJson
	}
	return ""
}

// CallStreamRequest sends any MCP request method with a progress token.
type CallStreamRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The JSON-RPC method; the same rules as CallRequest.method.
	// Default: none; required. Eras: all.
	Method string `protobuf:"bytes,2,opt,name=method,proto3" json:"method,omitempty"`
	// The params as JSON text, as in CallRequest; the bridge mints the
	// `progressToken`, so one in `_meta` is INVALID_ARGUMENT.
	// Default: empty. Eras: all.
	ParamsJson string `protobuf:"bytes,3,opt,name=params_json,json=paramsJson,proto3" json:"params_json,omitempty"`
	// The lowest log level to deliver as `log` messages; the same rules as
	// CallToolStreamRequest.log_level.
	// Default: LOGGING_LEVEL_UNSPECIFIED, no logs. Eras: all.
	LogLevel LoggingLevel `protobuf:"varint,4,opt,name=log_level,json=logLevel,proto3,enum=mcpbridge.v1.LoggingLevel" json:"log_level,omitempty"`
	// Offer this stream requests from a legacy child as server_request
	// messages; the same rules as CallToolStreamRequest.server_requests.
	// Default: false. Eras: legacy.
	ServerRequests bool `protobuf:"varint,5,opt,name=server_requests,json=serverRequests,proto3" json:"server_requests,omitempty"`
	unknownFields  protoimpl.UnknownFields
	sizeCache      protoimpl.SizeCache
}

func (x *CallStreamRequest) Reset() {
	*x = CallStreamRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[47]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CallStreamRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CallStreamRequest) ProtoMessage() {}

func (x *CallStreamRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[47]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CallStreamRequest.ProtoReflect.Descriptor instead.
func (*CallStreamRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{47}
}

func (x *CallStreamRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *CallStreamRequest) GetMethod() string {
	if x != nil {
		return x.Method
	}
	return ""
}

func (x *CallStreamRequest) GetParamsJson() string {
	if x != nil {
		return x.ParamsJson
	}
	return ""
}

func (x *CallStreamRequest) GetLogLevel() LoggingLevel {
	if x != nil {
		return x.LogLevel
	}
	return LoggingLevel_LOGGING_LEVEL_UNSPECIFIED
}

func (x *CallStreamRequest) GetServerRequests() bool {
	if x != nil {
		return x.ServerRequests
	}
	return false
}

// CallStreamResponse is one message of a CallStream stream: zero or more
// progress, log and server_request messages, then exactly one result.
type CallStreamResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// What this message carries.
	//
	// Types that are valid to be assigned to Event:
	//
	//	*CallStreamResponse_Progress
	//	*CallStreamResponse_Log
	//	*CallStreamResponse_ServerRequest
	//	*CallStreamResponse_Result
	Event         isCallStreamResponse_Event `protobuf_oneof:"event"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CallStreamResponse) Reset() {
	*x = CallStreamResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[48]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CallStreamResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CallStreamResponse) ProtoMessage() {}

func (x *CallStreamResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[48]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CallStreamResponse.ProtoReflect.Descriptor instead.
func (*CallStreamResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{48}
}

func (x *CallStreamResponse) GetEvent() isCallStreamResponse_Event {
	if x != nil {
		return x.Event
	}
	return nil
}

func (x *CallStreamResponse) GetProgress() *Progress {
	if x != nil {
		if x, ok := x.Event.(*CallStreamResponse_Progress); ok {
			return x.Progress
		}
	}
	return nil
}

func (x *CallStreamResponse) GetLog() *LogMessage {
	if x != nil {
		if x, ok := x.Event.(*CallStreamResponse_Log); ok {
			return x.Log
		}
	}
	return nil
}

func (x *CallStreamResponse) GetServerRequest() *ServerRequest {
	if x != nil {
		if x, ok := x.Event.(*CallStreamResponse_ServerRequest); ok {
			return x.ServerRequest
		}
	}
	return nil
}

func (x *CallStreamResponse) GetResult() *CallResponse {
	if x != nil {
		if x, ok := x.Event.(*CallStreamResponse_Result); ok {
			return x.Result
		}
	}
	return nil
}

type isCallStreamResponse_Event interface {
	isCallStreamResponse_Event()
}

type CallStreamResponse_Progress struct {
	// A `notifications/progress` for this call.
	// Default: unset. Eras: all.
	Progress *Progress `protobuf:"bytes,1,opt,name=progress,proto3,oneof"`
}

type CallStreamResponse_Log struct {
	// A `notifications/message` (log) attributed to this call.
	// Default: unset. Eras: all.
	Log *LogMessage `protobuf:"bytes,2,opt,name=log,proto3,oneof"`
}

type CallStreamResponse_ServerRequest struct {
	// A request from a legacy child, if this stream set server_requests.
	// Default: unset. Eras: legacy.
	ServerRequest *ServerRequest `protobuf:"bytes,3,opt,name=server_request,json=serverRequest,proto3,oneof"`
}

type CallStreamResponse_Result struct {
	// The result, always the last message.
	// Default: unset. Eras: all.
	Result *CallResponse `protobuf:"bytes,4,opt,name=result,proto3,oneof"`
}

func (*CallStreamResponse_Progress) isCallStreamResponse_Event() {}

func (*CallStreamResponse_Log) isCallStreamResponse_Event() {}

func (*CallStreamResponse_ServerRequest) isCallStreamResponse_Event() {}

func (*CallStreamResponse_Result) isCallStreamResponse_Event() {}

// ConnectRequest is one message from the client into the tunnel.
type ConnectRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name. Only the first message of the stream may set
	// it (or set it on every message to the same value); the `mcp-server`
	// metadata key is the easier choice for a stream.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// One JSON-RPC message as JSON text: a request, a notification, or the
	// response to a request the bridge forwarded into the tunnel.
	// Default: none; required. Eras: all.
	MessageJson   string `protobuf:"bytes,2,opt,name=message_json,json=messageJson,proto3" json:"message_json,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ConnectRequest) Reset() {
	*x = ConnectRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[49]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ConnectRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ConnectRequest) ProtoMessage() {}

func (x *ConnectRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[49]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ConnectRequest.ProtoReflect.Descriptor instead.
func (*ConnectRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{49}
}

func (x *ConnectRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *ConnectRequest) GetMessageJson() string {
	if x != nil {
		return x.MessageJson
	}
	return ""
}

// ConnectResponse is one message from the tunnel to the client.
type ConnectResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// One JSON-RPC message as JSON text: a response to the tunnel's request, a
	// notification (progress, logs, listen events, list changes) or a request
	// from the child.
	// Default: never empty. Eras: all.
	MessageJson   string `protobuf:"bytes,1,opt,name=message_json,json=messageJson,proto3" json:"message_json,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ConnectResponse) Reset() {
	*x = ConnectResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[50]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ConnectResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ConnectResponse) ProtoMessage() {}

func (x *ConnectResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[50]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ConnectResponse.ProtoReflect.Descriptor instead.
func (*ConnectResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{50}
}

func (x *ConnectResponse) GetMessageJson() string {
	if x != nil {
		return x.MessageJson
	}
	return ""
}

// PingRequest checks that a fronted server's child answers.
type PingRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server        string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *PingRequest) Reset() {
	*x = PingRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[51]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *PingRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*PingRequest) ProtoMessage() {}

func (x *PingRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[51]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use PingRequest.ProtoReflect.Descriptor instead.
func (*PingRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{51}
}

func (x *PingRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

// PingResponse reports a successful ping.
type PingResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The time from writing the request to the child until its answer was
	// read.
	// Default: always set. Eras: all.
	RoundTrip *durationpb.Duration `protobuf:"bytes,1,opt,name=round_trip,json=roundTrip,proto3" json:"round_trip,omitempty"`
	// The method used: "ping" (legacy) or "server/discover" (2026).
	// Default: never empty. Eras: all.
	Method string `protobuf:"bytes,2,opt,name=method,proto3" json:"method,omitempty"`
	// The child that answered.
	// Default: always set. Eras: all.
	Child         *Child `protobuf:"bytes,3,opt,name=child,proto3" json:"child,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *PingResponse) Reset() {
	*x = PingResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[52]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *PingResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*PingResponse) ProtoMessage() {}

func (x *PingResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[52]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use PingResponse.ProtoReflect.Descriptor instead.
func (*PingResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{52}
}

func (x *PingResponse) GetRoundTrip() *durationpb.Duration {
	if x != nil {
		return x.RoundTrip
	}
	return nil
}

func (x *PingResponse) GetMethod() string {
	if x != nil {
		return x.Method
	}
	return ""
}

func (x *PingResponse) GetChild() *Child {
	if x != nil {
		return x.Child
	}
	return nil
}

// RespondToServerRequestRequest answers a ServerRequest: with a result or
// with a JSON-RPC error.
type RespondToServerRequestRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name; it must be empty or ServerRequest.server.
	// Default: empty. Eras: legacy.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// ServerRequest.id, unchanged.
	// Default: none; required. Eras: legacy.
	Id string `protobuf:"bytes,2,opt,name=id,proto3" json:"id,omitempty"`
	// The answer; exactly one is required.
	//
	// Types that are valid to be assigned to Outcome:
	//
	//	*RespondToServerRequestRequest_ResultJson
	//	*RespondToServerRequestRequest_Error
	Outcome       isRespondToServerRequestRequest_Outcome `protobuf_oneof:"outcome"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *RespondToServerRequestRequest) Reset() {
	*x = RespondToServerRequestRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[53]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *RespondToServerRequestRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*RespondToServerRequestRequest) ProtoMessage() {}

func (x *RespondToServerRequestRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[53]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use RespondToServerRequestRequest.ProtoReflect.Descriptor instead.
func (*RespondToServerRequestRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{53}
}

func (x *RespondToServerRequestRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *RespondToServerRequestRequest) GetId() string {
	if x != nil {
		return x.Id
	}
	return ""
}

func (x *RespondToServerRequestRequest) GetOutcome() isRespondToServerRequestRequest_Outcome {
	if x != nil {
		return x.Outcome
	}
	return nil
}

func (x *RespondToServerRequestRequest) GetResultJson() string {
	if x != nil {
		if x, ok := x.Outcome.(*RespondToServerRequestRequest_ResultJson); ok {
			return x.ResultJson
		}
	}
	return ""
}

func (x *RespondToServerRequestRequest) GetError() *JsonRpcError {
	if x != nil {
		if x, ok := x.Outcome.(*RespondToServerRequestRequest_Error); ok {
			return x.Error
		}
	}
	return nil
}

type isRespondToServerRequestRequest_Outcome interface {
	isRespondToServerRequestRequest_Outcome()
}

type RespondToServerRequestRequest_ResultJson struct {
	// The result as JSON text, a JSON object, for example a
	// CreateMessageResult, an ElicitResult or a ListRootsResult. The child
	// gets it byte for byte (compacted).
	// Default: unset. Eras: legacy.
	ResultJson string `protobuf:"bytes,3,opt,name=result_json,json=resultJson,proto3,oneof"`
}

type RespondToServerRequestRequest_Error struct {
	// A JSON-RPC error for the child instead, for example when the user
	// refuses a sampling request.
	// Default: unset. Eras: legacy.
	Error *JsonRpcError `protobuf:"bytes,4,opt,name=error,proto3,oneof"`
}

func (*RespondToServerRequestRequest_ResultJson) isRespondToServerRequestRequest_Outcome() {}

func (*RespondToServerRequestRequest_Error) isRespondToServerRequestRequest_Outcome() {}

// RespondToServerRequestResponse is empty: the answer was handed to the
// child.
type RespondToServerRequestResponse struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *RespondToServerRequestResponse) Reset() {
	*x = RespondToServerRequestResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[54]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *RespondToServerRequestResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*RespondToServerRequestResponse) ProtoMessage() {}

func (x *RespondToServerRequestResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[54]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use RespondToServerRequestResponse.ProtoReflect.Descriptor instead.
func (*RespondToServerRequestResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{54}
}

// JsonRpcError is a JSON-RPC error object. The bridge puts one in the
// details of every error status it returns (see the file comment), and a
// caller sends one in RespondToServerRequestRequest.error.
type JsonRpcError struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The JSON-RPC error code, for example -32602.
	//
	// An int32, deliberately: JSON-RPC and MCP codes are small integers (the
	// reserved range is -32768 to -32000), and an int32 is a plain number in
	// every language and in the JSON mapping, where an int64 would be a
	// bigint in TypeScript and a string in JSON and grpcurl. It was int64
	// before the first release; the wire encoding of every code in range is
	// the same. A child's code outside the int32 range (none is known) is sent
	// here as -32603, with the exact code in ErrorInfo's "code" metadata.
	// Default: 0, which is not a valid code to send. Eras: all.
	Code int32 `protobuf:"varint,1,opt,name=code,proto3" json:"code,omitempty"`
	// The error message.
	// Default: empty. Eras: all.
	Message string `protobuf:"bytes,2,opt,name=message,proto3" json:"message,omitempty"`
	// The error's `data` as JSON text, byte for byte.
	// Default: empty when the error had no data. Eras: all.
	DataJson      string `protobuf:"bytes,3,opt,name=data_json,json=dataJson,proto3" json:"data_json,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *JsonRpcError) Reset() {
	*x = JsonRpcError{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[55]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *JsonRpcError) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*JsonRpcError) ProtoMessage() {}

func (x *JsonRpcError) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[55]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use JsonRpcError.ProtoReflect.Descriptor instead.
func (*JsonRpcError) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{55}
}

func (x *JsonRpcError) GetCode() int32 {
	if x != nil {
		return x.Code
	}
	return 0
}

func (x *JsonRpcError) GetMessage() string {
	if x != nil {
		return x.Message
	}
	return ""
}

func (x *JsonRpcError) GetDataJson() string {
	if x != nil {
		return x.DataJson
	}
	return ""
}

// StartTaskRequest starts a tool call as a task.
type StartTaskRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The tool's name, as in Tool.name.
	// Default: none; required. Eras: all.
	Name string `protobuf:"bytes,2,opt,name=name,proto3" json:"name,omitempty"`
	// The tool's arguments, checked by the child against Tool.input_schema.
	// Default: unset, sent as no `arguments`. Eras: all.
	Arguments *structpb.Struct `protobuf:"bytes,3,opt,name=arguments,proto3" json:"arguments,omitempty"`
	// Sent as the request's `params._meta`, as CallToolRequest.meta.
	// Default: unset, no caller `_meta`. Eras: all.
	Meta *structpb.Struct `protobuf:"bytes,4,opt,name=meta,proto3" json:"meta,omitempty"`
	// How long the child should keep the task and its result after it is
	// created (the 2025-11-25 `task.ttl`); the child may keep it less.
	// Default: unset, the child's own TTL. Eras: 2025-11-25.
	Ttl *durationpb.Duration `protobuf:"bytes,5,opt,name=ttl,proto3" json:"ttl,omitempty"`
	// The client capabilities this caller declares for the task, as
	// CallToolRequest.client_capabilities; the bridge adds the tasks
	// extension to them. A 2026 child asks only for input the caller
	// declared (for example {"elicitation":{"form":{}}}).
	// Default: unset, the bridge's configured capabilities. Eras: 2026.
	ClientCapabilities *structpb.Struct `protobuf:"bytes,6,opt,name=client_capabilities,json=clientCapabilities,proto3" json:"client_capabilities,omitempty"`
	unknownFields      protoimpl.UnknownFields
	sizeCache          protoimpl.SizeCache
}

func (x *StartTaskRequest) Reset() {
	*x = StartTaskRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[56]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *StartTaskRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*StartTaskRequest) ProtoMessage() {}

func (x *StartTaskRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[56]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use StartTaskRequest.ProtoReflect.Descriptor instead.
func (*StartTaskRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{56}
}

func (x *StartTaskRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *StartTaskRequest) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *StartTaskRequest) GetArguments() *structpb.Struct {
	if x != nil {
		return x.Arguments
	}
	return nil
}

func (x *StartTaskRequest) GetMeta() *structpb.Struct {
	if x != nil {
		return x.Meta
	}
	return nil
}

func (x *StartTaskRequest) GetTtl() *durationpb.Duration {
	if x != nil {
		return x.Ttl
	}
	return nil
}

func (x *StartTaskRequest) GetClientCapabilities() *structpb.Struct {
	if x != nil {
		return x.ClientCapabilities
	}
	return nil
}

// GetTaskRequest names one task.
type GetTaskRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name, the one StartTask named.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The task's id, Task.task_id.
	// Default: none; required. Eras: all.
	TaskId        string `protobuf:"bytes,2,opt,name=task_id,json=taskId,proto3" json:"task_id,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *GetTaskRequest) Reset() {
	*x = GetTaskRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[57]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *GetTaskRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*GetTaskRequest) ProtoMessage() {}

func (x *GetTaskRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[57]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use GetTaskRequest.ProtoReflect.Descriptor instead.
func (*GetTaskRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{57}
}

func (x *GetTaskRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *GetTaskRequest) GetTaskId() string {
	if x != nil {
		return x.TaskId
	}
	return ""
}

// WaitTaskRequest waits for one task.
type WaitTaskRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name, the one StartTask named.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The task's id, Task.task_id.
	// Default: none; required. Eras: all.
	TaskId string `protobuf:"bytes,2,opt,name=task_id,json=taskId,proto3" json:"task_id,omitempty"`
	// The longest to wait; the RPC's deadline bounds it too.
	// Default: unset, until the RPC's deadline (or the bridge's default
	// deadline when it has none). Eras: all.
	Timeout       *durationpb.Duration `protobuf:"bytes,3,opt,name=timeout,proto3" json:"timeout,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *WaitTaskRequest) Reset() {
	*x = WaitTaskRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[58]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *WaitTaskRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*WaitTaskRequest) ProtoMessage() {}

func (x *WaitTaskRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[58]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use WaitTaskRequest.ProtoReflect.Descriptor instead.
func (*WaitTaskRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{58}
}

func (x *WaitTaskRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *WaitTaskRequest) GetTaskId() string {
	if x != nil {
		return x.TaskId
	}
	return ""
}

func (x *WaitTaskRequest) GetTimeout() *durationpb.Duration {
	if x != nil {
		return x.Timeout
	}
	return nil
}

// WatchTaskRequest names the task to watch.
type WatchTaskRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name, the one StartTask named.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The task's id, Task.task_id.
	// Default: none; required. Eras: all.
	TaskId        string `protobuf:"bytes,2,opt,name=task_id,json=taskId,proto3" json:"task_id,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *WatchTaskRequest) Reset() {
	*x = WatchTaskRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[59]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *WatchTaskRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*WatchTaskRequest) ProtoMessage() {}

func (x *WatchTaskRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[59]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use WatchTaskRequest.ProtoReflect.Descriptor instead.
func (*WatchTaskRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{59}
}

func (x *WatchTaskRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *WatchTaskRequest) GetTaskId() string {
	if x != nil {
		return x.TaskId
	}
	return ""
}

// AnswerTaskRequest answers a task's input requests.
type AnswerTaskRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name, the one StartTask named.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The task's id, Task.task_id.
	// Default: none; required. Eras: all.
	TaskId string `protobuf:"bytes,2,opt,name=task_id,json=taskId,proto3" json:"task_id,omitempty"`
	// For each key of Task.input_requests, the ElicitResult,
	// CreateMessageResult or ListRootsResult object; sent as
	// `inputResponses` (2026), or as the answers to the child's requests
	// (2025-11-25).
	// Default: none; required. Eras: 2025-11-25 and 2026.
	InputResponses *structpb.Struct `protobuf:"bytes,3,opt,name=input_responses,json=inputResponses,proto3" json:"input_responses,omitempty"`
	unknownFields  protoimpl.UnknownFields
	sizeCache      protoimpl.SizeCache
}

func (x *AnswerTaskRequest) Reset() {
	*x = AnswerTaskRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[60]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *AnswerTaskRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*AnswerTaskRequest) ProtoMessage() {}

func (x *AnswerTaskRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[60]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use AnswerTaskRequest.ProtoReflect.Descriptor instead.
func (*AnswerTaskRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{60}
}

func (x *AnswerTaskRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *AnswerTaskRequest) GetTaskId() string {
	if x != nil {
		return x.TaskId
	}
	return ""
}

func (x *AnswerTaskRequest) GetInputResponses() *structpb.Struct {
	if x != nil {
		return x.InputResponses
	}
	return nil
}

// CancelTaskRequest names the task to cancel.
type CancelTaskRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name, the one StartTask named.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The task's id, Task.task_id.
	// Default: none; required. Eras: all.
	TaskId        string `protobuf:"bytes,2,opt,name=task_id,json=taskId,proto3" json:"task_id,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CancelTaskRequest) Reset() {
	*x = CancelTaskRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[61]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CancelTaskRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CancelTaskRequest) ProtoMessage() {}

func (x *CancelTaskRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[61]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CancelTaskRequest.ProtoReflect.Descriptor instead.
func (*CancelTaskRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{61}
}

func (x *CancelTaskRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *CancelTaskRequest) GetTaskId() string {
	if x != nil {
		return x.TaskId
	}
	return ""
}

// ListTasksRequest asks for one page of the caller's tasks.
type ListTasksRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The fronted server's name.
	// Default: empty, which names the only fronted server. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The most tasks to return, at most 100.
	// Default: 0, which means 50. Eras: all.
	PageSize int32 `protobuf:"varint,2,opt,name=page_size,json=pageSize,proto3" json:"page_size,omitempty"`
	// The previous response's next_page_token, as it was.
	// Default: empty, the first page. Eras: all.
	PageToken     string `protobuf:"bytes,3,opt,name=page_token,json=pageToken,proto3" json:"page_token,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListTasksRequest) Reset() {
	*x = ListTasksRequest{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[62]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListTasksRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListTasksRequest) ProtoMessage() {}

func (x *ListTasksRequest) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[62]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListTasksRequest.ProtoReflect.Descriptor instead.
func (*ListTasksRequest) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{62}
}

func (x *ListTasksRequest) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *ListTasksRequest) GetPageSize() int32 {
	if x != nil {
		return x.PageSize
	}
	return 0
}

func (x *ListTasksRequest) GetPageToken() string {
	if x != nil {
		return x.PageToken
	}
	return ""
}

// ListTasksResponse is one page of the caller's tasks.
type ListTasksResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The tasks, oldest first.
	// Default: empty when the caller has none. Eras: all.
	Tasks []*Task `protobuf:"bytes,1,rep,name=tasks,proto3" json:"tasks,omitempty"`
	// The token of the next page.
	// Default: empty on the last page. Eras: all.
	NextPageToken string `protobuf:"bytes,2,opt,name=next_page_token,json=nextPageToken,proto3" json:"next_page_token,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListTasksResponse) Reset() {
	*x = ListTasksResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[63]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListTasksResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListTasksResponse) ProtoMessage() {}

func (x *ListTasksResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[63]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListTasksResponse.ProtoReflect.Descriptor instead.
func (*ListTasksResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{63}
}

func (x *ListTasksResponse) GetTasks() []*Task {
	if x != nil {
		return x.Tasks
	}
	return nil
}

func (x *ListTasksResponse) GetNextPageToken() string {
	if x != nil {
		return x.NextPageToken
	}
	return ""
}

// StartTaskResponse is the task as it was created, or done when the tool ran to its end in the RPC.
type StartTaskResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The task.
	// Default: always set. Eras: all.
	Task          *Task `protobuf:"bytes,1,opt,name=task,proto3" json:"task,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *StartTaskResponse) Reset() {
	*x = StartTaskResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[64]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *StartTaskResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*StartTaskResponse) ProtoMessage() {}

func (x *StartTaskResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[64]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use StartTaskResponse.ProtoReflect.Descriptor instead.
func (*StartTaskResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{64}
}

func (x *StartTaskResponse) GetTask() *Task {
	if x != nil {
		return x.Task
	}
	return nil
}

// GetTaskResponse is the task now.
type GetTaskResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The task.
	// Default: always set. Eras: all.
	Task          *Task `protobuf:"bytes,1,opt,name=task,proto3" json:"task,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *GetTaskResponse) Reset() {
	*x = GetTaskResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[65]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *GetTaskResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*GetTaskResponse) ProtoMessage() {}

func (x *GetTaskResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[65]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use GetTaskResponse.ProtoReflect.Descriptor instead.
func (*GetTaskResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{65}
}

func (x *GetTaskResponse) GetTask() *Task {
	if x != nil {
		return x.Task
	}
	return nil
}

// WaitTaskResponse is the task when the wait ended.
type WaitTaskResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The task.
	// Default: always set. Eras: all.
	Task          *Task `protobuf:"bytes,1,opt,name=task,proto3" json:"task,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *WaitTaskResponse) Reset() {
	*x = WaitTaskResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[66]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *WaitTaskResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*WaitTaskResponse) ProtoMessage() {}

func (x *WaitTaskResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[66]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use WaitTaskResponse.ProtoReflect.Descriptor instead.
func (*WaitTaskResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{66}
}

func (x *WaitTaskResponse) GetTask() *Task {
	if x != nil {
		return x.Task
	}
	return nil
}

// AnswerTaskResponse is the task after the answers.
type AnswerTaskResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The task.
	// Default: always set. Eras: all.
	Task          *Task `protobuf:"bytes,1,opt,name=task,proto3" json:"task,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *AnswerTaskResponse) Reset() {
	*x = AnswerTaskResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[67]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *AnswerTaskResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*AnswerTaskResponse) ProtoMessage() {}

func (x *AnswerTaskResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[67]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use AnswerTaskResponse.ProtoReflect.Descriptor instead.
func (*AnswerTaskResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{67}
}

func (x *AnswerTaskResponse) GetTask() *Task {
	if x != nil {
		return x.Task
	}
	return nil
}

// CancelTaskResponse is the task after the cancellation.
type CancelTaskResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The task.
	// Default: always set. Eras: all.
	Task          *Task `protobuf:"bytes,1,opt,name=task,proto3" json:"task,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *CancelTaskResponse) Reset() {
	*x = CancelTaskResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[68]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *CancelTaskResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*CancelTaskResponse) ProtoMessage() {}

func (x *CancelTaskResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[68]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use CancelTaskResponse.ProtoReflect.Descriptor instead.
func (*CancelTaskResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{68}
}

func (x *CancelTaskResponse) GetTask() *Task {
	if x != nil {
		return x.Task
	}
	return nil
}

// WatchTaskResponse is one state of the task: the first is its state when the watch began, the last is done.
type WatchTaskResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The task.
	// Default: always set. Eras: all.
	Task          *Task `protobuf:"bytes,1,opt,name=task,proto3" json:"task,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *WatchTaskResponse) Reset() {
	*x = WatchTaskResponse{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[69]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *WatchTaskResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*WatchTaskResponse) ProtoMessage() {}

func (x *WatchTaskResponse) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[69]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use WatchTaskResponse.ProtoReflect.Descriptor instead.
func (*WatchTaskResponse) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{69}
}

func (x *WatchTaskResponse) GetTask() *Task {
	if x != nil {
		return x.Task
	}
	return nil
}

// Task is an MCP task as a long-running operation, in the shape of
// google.longrunning.Operation (the file comment, "Tasks"): an id, done, and
// once done either the response or the error, with the task's own fields
// typed instead of packed in an Any.
type Task struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The server the task runs on, resolved.
	// Default: never empty. Eras: all.
	Server string `protobuf:"bytes,1,opt,name=server,proto3" json:"server,omitempty"`
	// The task's id, chosen by the child; name it in the other task RPCs.
	// Default: empty only when the tool ran to its end in StartTask. Eras:
	// all.
	TaskId string `protobuf:"bytes,2,opt,name=task_id,json=taskId,proto3" json:"task_id,omitempty"`
	// The task's status.
	// Default: never TASK_STATE_UNSPECIFIED. Eras: all.
	State TaskState `protobuf:"varint,3,opt,name=state,proto3,enum=mcpbridge.v1.TaskState" json:"state,omitempty"`
	// What the work is doing, in the child's words: its status message, and
	// its progress where it reports progress.
	// Default: empty when the child says nothing. Eras: all.
	StatusMessage string `protobuf:"bytes,4,opt,name=status_message,json=statusMessage,proto3" json:"status_message,omitempty"`
	// True once the state is final (COMPLETED, FAILED or CANCELLED).
	// Default: false. Eras: all.
	Done bool `protobuf:"varint,5,opt,name=done,proto3" json:"done,omitempty"`
	// When the child created the task.
	// Default: unset when the child did not say. Eras: all.
	CreateTime *timestamppb.Timestamp `protobuf:"bytes,6,opt,name=create_time,json=createTime,proto3" json:"create_time,omitempty"`
	// When the task's status last changed.
	// Default: unset when the child did not say. Eras: all.
	UpdateTime *timestamppb.Timestamp `protobuf:"bytes,7,opt,name=update_time,json=updateTime,proto3" json:"update_time,omitempty"`
	// How long the child keeps the task after its creation.
	// Default: unset when the child keeps it without a limit. Eras: all.
	Ttl *durationpb.Duration `protobuf:"bytes,8,opt,name=ttl,proto3" json:"ttl,omitempty"`
	// How often the child suggests polling.
	// Default: unset when the child suggests nothing. Eras: all.
	PollInterval *durationpb.Duration `protobuf:"bytes,9,opt,name=poll_interval,json=pollInterval,proto3" json:"poll_interval,omitempty"`
	// While INPUT_REQUIRED, the questions for the caller, as
	// InputRequired.input_requests: keyed by the child's keys (2026) or by
	// the bridge's input-1, input-2, ... for the requests a 2025-11-25 child
	// asked about a task StartTask created. Answer them with AnswerTask.
	// Default: unset unless INPUT_REQUIRED with a question open. Eras:
	// 2025-11-25 and 2026.
	InputRequests *structpb.Struct `protobuf:"bytes,10,opt,name=input_requests,json=inputRequests,proto3" json:"input_requests,omitempty"`
	// The outcome, once done.
	//
	// Types that are valid to be assigned to Result:
	//
	//	*Task_Response
	//	*Task_Error
	Result        isTask_Result `protobuf_oneof:"result"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Task) Reset() {
	*x = Task{}
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[70]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Task) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Task) ProtoMessage() {}

func (x *Task) ProtoReflect() protoreflect.Message {
	mi := &file_mcpbridge_v1_bridge_proto_msgTypes[70]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Task.ProtoReflect.Descriptor instead.
func (*Task) Descriptor() ([]byte, []int) {
	return file_mcpbridge_v1_bridge_proto_rawDescGZIP(), []int{70}
}

func (x *Task) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *Task) GetTaskId() string {
	if x != nil {
		return x.TaskId
	}
	return ""
}

func (x *Task) GetState() TaskState {
	if x != nil {
		return x.State
	}
	return TaskState_TASK_STATE_UNSPECIFIED
}

func (x *Task) GetStatusMessage() string {
	if x != nil {
		return x.StatusMessage
	}
	return ""
}

func (x *Task) GetDone() bool {
	if x != nil {
		return x.Done
	}
	return false
}

func (x *Task) GetCreateTime() *timestamppb.Timestamp {
	if x != nil {
		return x.CreateTime
	}
	return nil
}

func (x *Task) GetUpdateTime() *timestamppb.Timestamp {
	if x != nil {
		return x.UpdateTime
	}
	return nil
}

func (x *Task) GetTtl() *durationpb.Duration {
	if x != nil {
		return x.Ttl
	}
	return nil
}

func (x *Task) GetPollInterval() *durationpb.Duration {
	if x != nil {
		return x.PollInterval
	}
	return nil
}

func (x *Task) GetInputRequests() *structpb.Struct {
	if x != nil {
		return x.InputRequests
	}
	return nil
}

func (x *Task) GetResult() isTask_Result {
	if x != nil {
		return x.Result
	}
	return nil
}

func (x *Task) GetResponse() *CallToolResponse {
	if x != nil {
		if x, ok := x.Result.(*Task_Response); ok {
			return x.Response
		}
	}
	return nil
}

func (x *Task) GetError() *JsonRpcError {
	if x != nil {
		if x, ok := x.Result.(*Task_Error); ok {
			return x.Error
		}
	}
	return nil
}

type isTask_Result interface {
	isTask_Result()
}

type Task_Response struct {
	// The tool's result, when COMPLETED (and on a 2025-11-25 child when a
	// tool error made the task FAILED: is_error is then set).
	// Default: unset until done. Eras: all.
	Response *CallToolResponse `protobuf:"bytes,11,opt,name=response,proto3,oneof"`
}

type Task_Error struct {
	// The JSON-RPC error the task ended with, when FAILED; when its child
	// exited, -32000 with a message that says so.
	// Default: unset unless FAILED. Eras: all.
	Error *JsonRpcError `protobuf:"bytes,12,opt,name=error,proto3,oneof"`
}

func (*Task_Response) isTask_Result() {}

func (*Task_Error) isTask_Result() {}

var File_mcpbridge_v1_bridge_proto protoreflect.FileDescriptor

const file_mcpbridge_v1_bridge_proto_rawDesc = "" +
	"\n" +
	"\x19mcpbridge/v1/bridge.proto\x12\fmcpbridge.v1\x1a\x1egoogle/protobuf/duration.proto\x1a\x1cgoogle/protobuf/struct.proto\x1a\x1fgoogle/protobuf/timestamp.proto\"P\n" +
	"\x10GetServerRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12$\n" +
	"\x0ewait_for_ready\x18\x02 \x01(\bR\fwaitForReady\"\xb8\x03\n" +
	"\x11GetServerResponse\x12)\n" +
	"\x10protocol_version\x18\x01 \x01(\tR\x0fprotocolVersion\x128\n" +
	"\vserver_info\x18\x02 \x01(\v2\x17.google.protobuf.StructR\n" +
	"serverInfo\x12;\n" +
	"\fcapabilities\x18\x03 \x01(\v2\x17.google.protobuf.StructR\fcapabilities\x12\"\n" +
	"\finstructions\x18\x04 \x01(\tR\finstructions\x12)\n" +
	"\x05child\x18\x05 \x01(\v2\x13.mcpbridge.v1.ChildR\x05child\x12\x12\n" +
	"\x04name\x18\x06 \x01(\tR\x04name\x122\n" +
	"\x06policy\x18\a \x01(\x0e2\x1a.mcpbridge.v1.ServerPolicyR\x06policy\x12/\n" +
	"\bchildren\x18\b \x03(\v2\x13.mcpbridge.v1.ChildR\bchildren\x129\n" +
	"\amembers\x18\t \x03(\v2\x1f.mcpbridge.v1.GetServerResponseR\amembers\"\x14\n" +
	"\x12ListServersRequest\"P\n" +
	"\x13ListServersResponse\x129\n" +
	"\aservers\x18\x01 \x03(\v2\x1f.mcpbridge.v1.GetServerResponseR\aservers\"\x8c\x02\n" +
	"\x05Child\x12\x10\n" +
	"\x03pid\x18\x01 \x01(\x05R\x03pid\x12.\n" +
	"\x05state\x18\x02 \x01(\x0e2\x18.mcpbridge.v1.ChildStateR\x05state\x129\n" +
	"\n" +
	"started_at\x18\x03 \x01(\v2\x1a.google.protobuf.TimestampR\tstartedAt\x12\x1a\n" +
	"\brestarts\x18\x04 \x01(\rR\brestarts\x12\x1b\n" +
	"\tlast_exit\x18\x05 \x01(\tR\blastExit\x12\x1f\n" +
	"\vstderr_tail\x18\x06 \x03(\tR\n" +
	"stderrTail\x12\x18\n" +
	"\asession\x18\a \x01(\tR\asession\x12\x12\n" +
	"\x04load\x18\b \x01(\rR\x04load\"o\n" +
	"\x10ListToolsRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x16\n" +
	"\x06cursor\x18\x02 \x01(\tR\x06cursor\x12+\n" +
	"\x04meta\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x04meta\"\xf3\x01\n" +
	"\x11ListToolsResponse\x12(\n" +
	"\x05tools\x18\x01 \x03(\v2\x12.mcpbridge.v1.ToolR\x05tools\x12\x1f\n" +
	"\vnext_cursor\x18\x02 \x01(\tR\n" +
	"nextCursor\x12+\n" +
	"\x04meta\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x04meta\x12+\n" +
	"\x03ttl\x18\x04 \x01(\v2\x19.google.protobuf.DurationR\x03ttl\x129\n" +
	"\vcache_scope\x18\x05 \x01(\x0e2\x18.mcpbridge.v1.CacheScopeR\n" +
	"cacheScope\"s\n" +
	"\x14ListResourcesRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x16\n" +
	"\x06cursor\x18\x02 \x01(\tR\x06cursor\x12+\n" +
	"\x04meta\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x04meta\"\x83\x02\n" +
	"\x15ListResourcesResponse\x124\n" +
	"\tresources\x18\x01 \x03(\v2\x16.mcpbridge.v1.ResourceR\tresources\x12\x1f\n" +
	"\vnext_cursor\x18\x02 \x01(\tR\n" +
	"nextCursor\x12+\n" +
	"\x04meta\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x04meta\x12+\n" +
	"\x03ttl\x18\x04 \x01(\v2\x19.google.protobuf.DurationR\x03ttl\x129\n" +
	"\vcache_scope\x18\x05 \x01(\x0e2\x18.mcpbridge.v1.CacheScopeR\n" +
	"cacheScope\"{\n" +
	"\x1cListResourceTemplatesRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x16\n" +
	"\x06cursor\x18\x02 \x01(\tR\x06cursor\x12+\n" +
	"\x04meta\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x04meta\"\xa4\x02\n" +
	"\x1dListResourceTemplatesResponse\x12M\n" +
	"\x12resource_templates\x18\x01 \x03(\v2\x1e.mcpbridge.v1.ResourceTemplateR\x11resourceTemplates\x12\x1f\n" +
	"\vnext_cursor\x18\x02 \x01(\tR\n" +
	"nextCursor\x12+\n" +
	"\x04meta\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x04meta\x12+\n" +
	"\x03ttl\x18\x04 \x01(\v2\x19.google.protobuf.DurationR\x03ttl\x129\n" +
	"\vcache_scope\x18\x05 \x01(\x0e2\x18.mcpbridge.v1.CacheScopeR\n" +
	"cacheScope\"q\n" +
	"\x12ListPromptsRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x16\n" +
	"\x06cursor\x18\x02 \x01(\tR\x06cursor\x12+\n" +
	"\x04meta\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x04meta\"\xfb\x01\n" +
	"\x13ListPromptsResponse\x12.\n" +
	"\aprompts\x18\x01 \x03(\v2\x14.mcpbridge.v1.PromptR\aprompts\x12\x1f\n" +
	"\vnext_cursor\x18\x02 \x01(\tR\n" +
	"nextCursor\x12+\n" +
	"\x04meta\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x04meta\x12+\n" +
	"\x03ttl\x18\x04 \x01(\v2\x19.google.protobuf.DurationR\x03ttl\x129\n" +
	"\vcache_scope\x18\x05 \x01(\x0e2\x18.mcpbridge.v1.CacheScopeR\n" +
	"cacheScope\"\x95\x03\n" +
	"\x04Tool\x12\x12\n" +
	"\x04name\x18\x01 \x01(\tR\x04name\x12\x14\n" +
	"\x05title\x18\x02 \x01(\tR\x05title\x12 \n" +
	"\vdescription\x18\x03 \x01(\tR\vdescription\x12:\n" +
	"\finput_schema\x18\x04 \x01(\v2\x17.google.protobuf.StructR\vinputSchema\x12<\n" +
	"\routput_schema\x18\x05 \x01(\v2\x17.google.protobuf.StructR\foutputSchema\x129\n" +
	"\vannotations\x18\x06 \x01(\v2\x17.google.protobuf.StructR\vannotations\x12(\n" +
	"\x05icons\x18\a \x03(\v2\x12.mcpbridge.v1.IconR\x05icons\x125\n" +
	"\texecution\x18\b \x01(\v2\x17.google.protobuf.StructR\texecution\x12+\n" +
	"\x04meta\x18\t \x01(\v2\x17.google.protobuf.StructR\x04meta\"a\n" +
	"\x04Icon\x12\x10\n" +
	"\x03src\x18\x01 \x01(\tR\x03src\x12\x1b\n" +
	"\tmime_type\x18\x02 \x01(\tR\bmimeType\x12\x14\n" +
	"\x05sizes\x18\x03 \x03(\tR\x05sizes\x12\x14\n" +
	"\x05theme\x18\x04 \x01(\tR\x05theme\"\xb9\x02\n" +
	"\bResource\x12\x10\n" +
	"\x03uri\x18\x01 \x01(\tR\x03uri\x12\x12\n" +
	"\x04name\x18\x02 \x01(\tR\x04name\x12\x14\n" +
	"\x05title\x18\x03 \x01(\tR\x05title\x12 \n" +
	"\vdescription\x18\x04 \x01(\tR\vdescription\x12\x1b\n" +
	"\tmime_type\x18\x05 \x01(\tR\bmimeType\x12\x17\n" +
	"\x04size\x18\x06 \x01(\x03H\x00R\x04size\x88\x01\x01\x129\n" +
	"\vannotations\x18\a \x01(\v2\x17.google.protobuf.StructR\vannotations\x12(\n" +
	"\x05icons\x18\b \x03(\v2\x12.mcpbridge.v1.IconR\x05icons\x12+\n" +
	"\x04meta\x18\t \x01(\v2\x17.google.protobuf.StructR\x04metaB\a\n" +
	"\x05_size\"\xb0\x02\n" +
	"\x10ResourceTemplate\x12!\n" +
	"\furi_template\x18\x01 \x01(\tR\vuriTemplate\x12\x12\n" +
	"\x04name\x18\x02 \x01(\tR\x04name\x12\x14\n" +
	"\x05title\x18\x03 \x01(\tR\x05title\x12 \n" +
	"\vdescription\x18\x04 \x01(\tR\vdescription\x12\x1b\n" +
	"\tmime_type\x18\x05 \x01(\tR\bmimeType\x129\n" +
	"\vannotations\x18\x06 \x01(\v2\x17.google.protobuf.StructR\vannotations\x12(\n" +
	"\x05icons\x18\a \x03(\v2\x12.mcpbridge.v1.IconR\x05icons\x12+\n" +
	"\x04meta\x18\b \x01(\v2\x17.google.protobuf.StructR\x04meta\"\xe7\x01\n" +
	"\x06Prompt\x12\x12\n" +
	"\x04name\x18\x01 \x01(\tR\x04name\x12\x14\n" +
	"\x05title\x18\x02 \x01(\tR\x05title\x12 \n" +
	"\vdescription\x18\x03 \x01(\tR\vdescription\x12:\n" +
	"\targuments\x18\x04 \x03(\v2\x1c.mcpbridge.v1.PromptArgumentR\targuments\x12(\n" +
	"\x05icons\x18\x05 \x03(\v2\x12.mcpbridge.v1.IconR\x05icons\x12+\n" +
	"\x04meta\x18\x06 \x01(\v2\x17.google.protobuf.StructR\x04meta\"x\n" +
	"\x0ePromptArgument\x12\x12\n" +
	"\x04name\x18\x01 \x01(\tR\x04name\x12\x14\n" +
	"\x05title\x18\x02 \x01(\tR\x05title\x12 \n" +
	"\vdescription\x18\x03 \x01(\tR\vdescription\x12\x1a\n" +
	"\brequired\x18\x04 \x01(\bR\brequired\"\xd2\x02\n" +
	"\x0fCallToolRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x12\n" +
	"\x04name\x18\x02 \x01(\tR\x04name\x125\n" +
	"\targuments\x18\x03 \x01(\v2\x17.google.protobuf.StructR\targuments\x12+\n" +
	"\x04meta\x18\x04 \x01(\v2\x17.google.protobuf.StructR\x04meta\x12@\n" +
	"\x0finput_responses\x18\x05 \x01(\v2\x17.google.protobuf.StructR\x0einputResponses\x12#\n" +
	"\rrequest_state\x18\x06 \x01(\tR\frequestState\x12H\n" +
	"\x13client_capabilities\x18\a \x01(\v2\x17.google.protobuf.StructR\x12clientCapabilities\"\x96\x02\n" +
	"\x10CallToolResponse\x12/\n" +
	"\acontent\x18\x01 \x03(\v2\x15.mcpbridge.v1.ContentR\acontent\x12E\n" +
	"\x12structured_content\x18\x02 \x01(\v2\x16.google.protobuf.ValueR\x11structuredContent\x12\x19\n" +
	"\bis_error\x18\x03 \x01(\bR\aisError\x12+\n" +
	"\x04meta\x18\x04 \x01(\v2\x17.google.protobuf.StructR\x04meta\x12B\n" +
	"\x0einput_required\x18\x05 \x01(\v2\x1b.mcpbridge.v1.InputRequiredR\rinputRequired\"\xa1\x01\n" +
	"\rInputRequired\x12>\n" +
	"\x0einput_requests\x18\x01 \x01(\v2\x17.google.protobuf.StructR\rinputRequests\x12#\n" +
	"\rrequest_state\x18\x02 \x01(\tR\frequestState\x12+\n" +
	"\x04meta\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x04meta\"\xc9\x02\n" +
	"\aContent\x12/\n" +
	"\x04text\x18\x01 \x01(\v2\x19.mcpbridge.v1.TextContentH\x00R\x04text\x122\n" +
	"\x05image\x18\x02 \x01(\v2\x1a.mcpbridge.v1.ImageContentH\x00R\x05image\x122\n" +
	"\x05audio\x18\x03 \x01(\v2\x1a.mcpbridge.v1.AudioContentH\x00R\x05audio\x12=\n" +
	"\rresource_link\x18\x04 \x01(\v2\x16.mcpbridge.v1.ResourceH\x00R\fresourceLink\x12<\n" +
	"\bresource\x18\x05 \x01(\v2\x1e.mcpbridge.v1.EmbeddedResourceH\x00R\bresource\x12\x1f\n" +
	"\n" +
	"other_json\x18\x06 \x01(\tH\x00R\totherJsonB\a\n" +
	"\x05block\"\x89\x01\n" +
	"\vTextContent\x12\x12\n" +
	"\x04text\x18\x01 \x01(\tR\x04text\x129\n" +
	"\vannotations\x18\x02 \x01(\v2\x17.google.protobuf.StructR\vannotations\x12+\n" +
	"\x04meta\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x04meta\"\xa7\x01\n" +
	"\fImageContent\x12\x12\n" +
	"\x04data\x18\x01 \x01(\fR\x04data\x12\x1b\n" +
	"\tmime_type\x18\x02 \x01(\tR\bmimeType\x129\n" +
	"\vannotations\x18\x03 \x01(\v2\x17.google.protobuf.StructR\vannotations\x12+\n" +
	"\x04meta\x18\x04 \x01(\v2\x17.google.protobuf.StructR\x04meta\"\xa7\x01\n" +
	"\fAudioContent\x12\x12\n" +
	"\x04data\x18\x01 \x01(\fR\x04data\x12\x1b\n" +
	"\tmime_type\x18\x02 \x01(\tR\bmimeType\x129\n" +
	"\vannotations\x18\x03 \x01(\v2\x17.google.protobuf.StructR\vannotations\x12+\n" +
	"\x04meta\x18\x04 \x01(\v2\x17.google.protobuf.StructR\x04meta\"\xb6\x01\n" +
	"\x10EmbeddedResource\x12:\n" +
	"\bresource\x18\x01 \x01(\v2\x1e.mcpbridge.v1.ResourceContentsR\bresource\x129\n" +
	"\vannotations\x18\x02 \x01(\v2\x17.google.protobuf.StructR\vannotations\x12+\n" +
	"\x04meta\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x04meta\"\xa6\x01\n" +
	"\x10ResourceContents\x12\x10\n" +
	"\x03uri\x18\x01 \x01(\tR\x03uri\x12\x1b\n" +
	"\tmime_type\x18\x02 \x01(\tR\bmimeType\x12\x14\n" +
	"\x04text\x18\x03 \x01(\tH\x00R\x04text\x12\x14\n" +
	"\x04blob\x18\x04 \x01(\fH\x00R\x04blob\x12+\n" +
	"\x04meta\x18\x05 \x01(\v2\x17.google.protobuf.StructR\x04metaB\n" +
	"\n" +
	"\bcontents\"\x9d\x02\n" +
	"\x13ReadResourceRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x10\n" +
	"\x03uri\x18\x02 \x01(\tR\x03uri\x12+\n" +
	"\x04meta\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x04meta\x12@\n" +
	"\x0finput_responses\x18\x04 \x01(\v2\x17.google.protobuf.StructR\x0einputResponses\x12#\n" +
	"\rrequest_state\x18\x05 \x01(\tR\frequestState\x12H\n" +
	"\x13client_capabilities\x18\x06 \x01(\v2\x17.google.protobuf.StructR\x12clientCapabilities\"\xab\x02\n" +
	"\x14ReadResourceResponse\x12:\n" +
	"\bcontents\x18\x01 \x03(\v2\x1e.mcpbridge.v1.ResourceContentsR\bcontents\x12+\n" +
	"\x04meta\x18\x02 \x01(\v2\x17.google.protobuf.StructR\x04meta\x12B\n" +
	"\x0einput_required\x18\x03 \x01(\v2\x1b.mcpbridge.v1.InputRequiredR\rinputRequired\x12+\n" +
	"\x03ttl\x18\x04 \x01(\v2\x19.google.protobuf.DurationR\x03ttl\x129\n" +
	"\vcache_scope\x18\x05 \x01(\x0e2\x18.mcpbridge.v1.CacheScopeR\n" +
	"cacheScope\"\xa7\x03\n" +
	"\x10GetPromptRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x12\n" +
	"\x04name\x18\x02 \x01(\tR\x04name\x12K\n" +
	"\targuments\x18\x03 \x03(\v2-.mcpbridge.v1.GetPromptRequest.ArgumentsEntryR\targuments\x12+\n" +
	"\x04meta\x18\x04 \x01(\v2\x17.google.protobuf.StructR\x04meta\x12@\n" +
	"\x0finput_responses\x18\x05 \x01(\v2\x17.google.protobuf.StructR\x0einputResponses\x12#\n" +
	"\rrequest_state\x18\x06 \x01(\tR\frequestState\x12H\n" +
	"\x13client_capabilities\x18\a \x01(\v2\x17.google.protobuf.StructR\x12clientCapabilities\x1a<\n" +
	"\x0eArgumentsEntry\x12\x10\n" +
	"\x03key\x18\x01 \x01(\tR\x03key\x12\x14\n" +
	"\x05value\x18\x02 \x01(\tR\x05value:\x028\x01\"\xdf\x01\n" +
	"\x11GetPromptResponse\x12 \n" +
	"\vdescription\x18\x01 \x01(\tR\vdescription\x127\n" +
	"\bmessages\x18\x02 \x03(\v2\x1b.mcpbridge.v1.PromptMessageR\bmessages\x12+\n" +
	"\x04meta\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x04meta\x12B\n" +
	"\x0einput_required\x18\x04 \x01(\v2\x1b.mcpbridge.v1.InputRequiredR\rinputRequired\"h\n" +
	"\rPromptMessage\x12&\n" +
	"\x04role\x18\x01 \x01(\x0e2\x12.mcpbridge.v1.RoleR\x04role\x12/\n" +
	"\acontent\x18\x02 \x01(\v2\x15.mcpbridge.v1.ContentR\acontent\"\xa9\x03\n" +
	"\x0fCompleteRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12!\n" +
	"\vprompt_name\x18\x02 \x01(\tH\x00R\n" +
	"promptName\x124\n" +
	"\x15resource_template_uri\x18\x03 \x01(\tH\x00R\x13resourceTemplateUri\x12#\n" +
	"\rargument_name\x18\x04 \x01(\tR\fargumentName\x12%\n" +
	"\x0eargument_value\x18\x05 \x01(\tR\rargumentValue\x12`\n" +
	"\x11context_arguments\x18\x06 \x03(\v23.mcpbridge.v1.CompleteRequest.ContextArgumentsEntryR\x10contextArguments\x12+\n" +
	"\x04meta\x18\a \x01(\v2\x17.google.protobuf.StructR\x04meta\x1aC\n" +
	"\x15ContextArgumentsEntry\x12\x10\n" +
	"\x03key\x18\x01 \x01(\tR\x03key\x12\x14\n" +
	"\x05value\x18\x02 \x01(\tR\x05value:\x028\x01B\x05\n" +
	"\x03ref\"\x97\x01\n" +
	"\x10CompleteResponse\x12\x16\n" +
	"\x06values\x18\x01 \x03(\tR\x06values\x12\x19\n" +
	"\x05total\x18\x02 \x01(\rH\x00R\x05total\x88\x01\x01\x12\x19\n" +
	"\bhas_more\x18\x03 \x01(\bR\ahasMore\x12+\n" +
	"\x04meta\x18\x04 \x01(\v2\x17.google.protobuf.StructR\x04metaB\b\n" +
	"\x06_total\"\xba\x03\n" +
	"\x15CallToolStreamRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x12\n" +
	"\x04name\x18\x02 \x01(\tR\x04name\x125\n" +
	"\targuments\x18\x03 \x01(\v2\x17.google.protobuf.StructR\targuments\x12+\n" +
	"\x04meta\x18\x04 \x01(\v2\x17.google.protobuf.StructR\x04meta\x12@\n" +
	"\x0finput_responses\x18\x05 \x01(\v2\x17.google.protobuf.StructR\x0einputResponses\x12#\n" +
	"\rrequest_state\x18\x06 \x01(\tR\frequestState\x12H\n" +
	"\x13client_capabilities\x18\a \x01(\v2\x17.google.protobuf.StructR\x12clientCapabilities\x127\n" +
	"\tlog_level\x18\b \x01(\x0e2\x1a.mcpbridge.v1.LoggingLevelR\blogLevel\x12'\n" +
	"\x0fserver_requests\x18\t \x01(\bR\x0eserverRequests\"\x85\x02\n" +
	"\x16CallToolStreamResponse\x124\n" +
	"\bprogress\x18\x01 \x01(\v2\x16.mcpbridge.v1.ProgressH\x00R\bprogress\x12,\n" +
	"\x03log\x18\x02 \x01(\v2\x18.mcpbridge.v1.LogMessageH\x00R\x03log\x12D\n" +
	"\x0eserver_request\x18\x03 \x01(\v2\x1b.mcpbridge.v1.ServerRequestH\x00R\rserverRequest\x128\n" +
	"\x06result\x18\x04 \x01(\v2\x1e.mcpbridge.v1.CallToolResponseH\x00R\x06resultB\a\n" +
	"\x05event\"e\n" +
	"\bProgress\x12\x1a\n" +
	"\bprogress\x18\x01 \x01(\x01R\bprogress\x12\x19\n" +
	"\x05total\x18\x02 \x01(\x01H\x00R\x05total\x88\x01\x01\x12\x18\n" +
	"\amessage\x18\x03 \x01(\tR\amessageB\b\n" +
	"\x06_total\"\x82\x01\n" +
	"\n" +
	"LogMessage\x120\n" +
	"\x05level\x18\x01 \x01(\x0e2\x1a.mcpbridge.v1.LoggingLevelR\x05level\x12\x16\n" +
	"\x06logger\x18\x02 \x01(\tR\x06logger\x12*\n" +
	"\x04data\x18\x03 \x01(\v2\x16.google.protobuf.ValueR\x04data\"\x81\x02\n" +
	"\rServerRequest\x12\x0e\n" +
	"\x02id\x18\x01 \x01(\tR\x02id\x12\x16\n" +
	"\x06method\x18\x02 \x01(\tR\x06method\x12\x1f\n" +
	"\vparams_json\x18\x03 \x01(\tR\n" +
	"paramsJson\x12\x16\n" +
	"\x06server\x18\x04 \x01(\tR\x06server\x121\n" +
	"\x15child_request_id_json\x18\x05 \x01(\tR\x12childRequestIdJson\x12;\n" +
	"\vexpire_time\x18\x06 \x01(\v2\x1a.google.protobuf.TimestampR\n" +
	"expireTime\x12\x1f\n" +
	"\vrouting_key\x18\a \x01(\tR\n" +
	"routingKey\"\xd9\x02\n" +
	"\x10SubscribeRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12,\n" +
	"\x12tools_list_changed\x18\x02 \x01(\bR\x10toolsListChanged\x120\n" +
	"\x14prompts_list_changed\x18\x03 \x01(\bR\x12promptsListChanged\x124\n" +
	"\x16resources_list_changed\x18\x04 \x01(\bR\x14resourcesListChanged\x125\n" +
	"\x16resource_subscriptions\x18\x05 \x03(\tR\x15resourceSubscriptions\x12'\n" +
	"\x0fserver_requests\x18\x06 \x01(\bR\x0eserverRequests\x127\n" +
	"\tlog_level\x18\a \x01(\x0e2\x1a.mcpbridge.v1.LoggingLevelR\blogLevel\"\xb1\x04\n" +
	"\x11SubscribeResponse\x12L\n" +
	"\facknowledged\x18\x01 \x01(\v2&.mcpbridge.v1.SubscriptionAcknowledgedH\x00R\facknowledged\x12J\n" +
	"\x10resource_updated\x18\x02 \x01(\v2\x1d.mcpbridge.v1.ResourceUpdatedH\x00R\x0fresourceUpdated\x12I\n" +
	"\x12tools_list_changed\x18\x03 \x01(\v2\x19.mcpbridge.v1.ListChangedH\x00R\x10toolsListChanged\x12M\n" +
	"\x14prompts_list_changed\x18\x04 \x01(\v2\x19.mcpbridge.v1.ListChangedH\x00R\x12promptsListChanged\x12Q\n" +
	"\x16resources_list_changed\x18\x05 \x01(\v2\x19.mcpbridge.v1.ListChangedH\x00R\x14resourcesListChanged\x12D\n" +
	"\x0eserver_request\x18\x06 \x01(\v2\x1b.mcpbridge.v1.ServerRequestH\x00R\rserverRequest\x12,\n" +
	"\x03log\x18\a \x01(\v2\x18.mcpbridge.v1.LogMessageH\x00R\x03log\x12\x18\n" +
	"\adropped\x18\b \x01(\rR\adroppedB\a\n" +
	"\x05event\"\xe7\x01\n" +
	"\x18SubscriptionAcknowledged\x12,\n" +
	"\x12tools_list_changed\x18\x01 \x01(\bR\x10toolsListChanged\x120\n" +
	"\x14prompts_list_changed\x18\x02 \x01(\bR\x12promptsListChanged\x124\n" +
	"\x16resources_list_changed\x18\x03 \x01(\bR\x14resourcesListChanged\x125\n" +
	"\x16resource_subscriptions\x18\x04 \x03(\tR\x15resourceSubscriptions\"P\n" +
	"\x0fResourceUpdated\x12\x10\n" +
	"\x03uri\x18\x01 \x01(\tR\x03uri\x12+\n" +
	"\x04meta\x18\x02 \x01(\v2\x17.google.protobuf.StructR\x04meta\":\n" +
	"\vListChanged\x12+\n" +
	"\x04meta\x18\x01 \x01(\v2\x17.google.protobuf.StructR\x04meta\"^\n" +
	"\vCallRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x16\n" +
	"\x06method\x18\x02 \x01(\tR\x06method\x12\x1f\n" +
	"\vparams_json\x18\x03 \x01(\tR\n" +
	"paramsJson\"/\n" +
	"\fCallResponse\x12\x1f\n" +
	"\vresult_json\x18\x01 \x01(\tR\n" +
	"resultJson\"\xc6\x01\n" +
	"\x11CallStreamRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x16\n" +
	"\x06method\x18\x02 \x01(\tR\x06method\x12\x1f\n" +
	"\vparams_json\x18\x03 \x01(\tR\n" +
	"paramsJson\x127\n" +
	"\tlog_level\x18\x04 \x01(\x0e2\x1a.mcpbridge.v1.LoggingLevelR\blogLevel\x12'\n" +
	"\x0fserver_requests\x18\x05 \x01(\bR\x0eserverRequests\"\xfd\x01\n" +
	"\x12CallStreamResponse\x124\n" +
	"\bprogress\x18\x01 \x01(\v2\x16.mcpbridge.v1.ProgressH\x00R\bprogress\x12,\n" +
	"\x03log\x18\x02 \x01(\v2\x18.mcpbridge.v1.LogMessageH\x00R\x03log\x12D\n" +
	"\x0eserver_request\x18\x03 \x01(\v2\x1b.mcpbridge.v1.ServerRequestH\x00R\rserverRequest\x124\n" +
	"\x06result\x18\x04 \x01(\v2\x1a.mcpbridge.v1.CallResponseH\x00R\x06resultB\a\n" +
	"\x05event\"K\n" +
	"\x0eConnectRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12!\n" +
	"\fmessage_json\x18\x02 \x01(\tR\vmessageJson\"4\n" +
	"\x0fConnectResponse\x12!\n" +
	"\fmessage_json\x18\x01 \x01(\tR\vmessageJson\"%\n" +
	"\vPingRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\"\x8b\x01\n" +
	"\fPingResponse\x128\n" +
	"\n" +
	"round_trip\x18\x01 \x01(\v2\x19.google.protobuf.DurationR\troundTrip\x12\x16\n" +
	"\x06method\x18\x02 \x01(\tR\x06method\x12)\n" +
	"\x05child\x18\x03 \x01(\v2\x13.mcpbridge.v1.ChildR\x05child\"\xa9\x01\n" +
	"\x1dRespondToServerRequestRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x0e\n" +
	"\x02id\x18\x02 \x01(\tR\x02id\x12!\n" +
	"\vresult_json\x18\x03 \x01(\tH\x00R\n" +
	"resultJson\x122\n" +
	"\x05error\x18\x04 \x01(\v2\x1a.mcpbridge.v1.JsonRpcErrorH\x00R\x05errorB\t\n" +
	"\aoutcome\" \n" +
	"\x1eRespondToServerRequestResponse\"Y\n" +
	"\fJsonRpcError\x12\x12\n" +
	"\x04code\x18\x01 \x01(\x05R\x04code\x12\x18\n" +
	"\amessage\x18\x02 \x01(\tR\amessage\x12\x1b\n" +
	"\tdata_json\x18\x03 \x01(\tR\bdataJson\"\x99\x02\n" +
	"\x10StartTaskRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x12\n" +
	"\x04name\x18\x02 \x01(\tR\x04name\x125\n" +
	"\targuments\x18\x03 \x01(\v2\x17.google.protobuf.StructR\targuments\x12+\n" +
	"\x04meta\x18\x04 \x01(\v2\x17.google.protobuf.StructR\x04meta\x12+\n" +
	"\x03ttl\x18\x05 \x01(\v2\x19.google.protobuf.DurationR\x03ttl\x12H\n" +
	"\x13client_capabilities\x18\x06 \x01(\v2\x17.google.protobuf.StructR\x12clientCapabilities\"A\n" +
	"\x0eGetTaskRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x17\n" +
	"\atask_id\x18\x02 \x01(\tR\x06taskId\"w\n" +
	"\x0fWaitTaskRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x17\n" +
	"\atask_id\x18\x02 \x01(\tR\x06taskId\x123\n" +
	"\atimeout\x18\x03 \x01(\v2\x19.google.protobuf.DurationR\atimeout\"C\n" +
	"\x10WatchTaskRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x17\n" +
	"\atask_id\x18\x02 \x01(\tR\x06taskId\"\x86\x01\n" +
	"\x11AnswerTaskRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x17\n" +
	"\atask_id\x18\x02 \x01(\tR\x06taskId\x12@\n" +
	"\x0finput_responses\x18\x03 \x01(\v2\x17.google.protobuf.StructR\x0einputResponses\"D\n" +
	"\x11CancelTaskRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x17\n" +
	"\atask_id\x18\x02 \x01(\tR\x06taskId\"f\n" +
	"\x10ListTasksRequest\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x1b\n" +
	"\tpage_size\x18\x02 \x01(\x05R\bpageSize\x12\x1d\n" +
	"\n" +
	"page_token\x18\x03 \x01(\tR\tpageToken\"e\n" +
	"\x11ListTasksResponse\x12(\n" +
	"\x05tasks\x18\x01 \x03(\v2\x12.mcpbridge.v1.TaskR\x05tasks\x12&\n" +
	"\x0fnext_page_token\x18\x02 \x01(\tR\rnextPageToken\";\n" +
	"\x11StartTaskResponse\x12&\n" +
	"\x04task\x18\x01 \x01(\v2\x12.mcpbridge.v1.TaskR\x04task\"9\n" +
	"\x0fGetTaskResponse\x12&\n" +
	"\x04task\x18\x01 \x01(\v2\x12.mcpbridge.v1.TaskR\x04task\":\n" +
	"\x10WaitTaskResponse\x12&\n" +
	"\x04task\x18\x01 \x01(\v2\x12.mcpbridge.v1.TaskR\x04task\"<\n" +
	"\x12AnswerTaskResponse\x12&\n" +
	"\x04task\x18\x01 \x01(\v2\x12.mcpbridge.v1.TaskR\x04task\"<\n" +
	"\x12CancelTaskResponse\x12&\n" +
	"\x04task\x18\x01 \x01(\v2\x12.mcpbridge.v1.TaskR\x04task\";\n" +
	"\x11WatchTaskResponse\x12&\n" +
	"\x04task\x18\x01 \x01(\v2\x12.mcpbridge.v1.TaskR\x04task\"\xc4\x04\n" +
	"\x04Task\x12\x16\n" +
	"\x06server\x18\x01 \x01(\tR\x06server\x12\x17\n" +
	"\atask_id\x18\x02 \x01(\tR\x06taskId\x12-\n" +
	"\x05state\x18\x03 \x01(\x0e2\x17.mcpbridge.v1.TaskStateR\x05state\x12%\n" +
	"\x0estatus_message\x18\x04 \x01(\tR\rstatusMessage\x12\x12\n" +
	"\x04done\x18\x05 \x01(\bR\x04done\x12;\n" +
	"\vcreate_time\x18\x06 \x01(\v2\x1a.google.protobuf.TimestampR\n" +
	"createTime\x12;\n" +
	"\vupdate_time\x18\a \x01(\v2\x1a.google.protobuf.TimestampR\n" +
	"updateTime\x12+\n" +
	"\x03ttl\x18\b \x01(\v2\x19.google.protobuf.DurationR\x03ttl\x12>\n" +
	"\rpoll_interval\x18\t \x01(\v2\x19.google.protobuf.DurationR\fpollInterval\x12>\n" +
	"\x0einput_requests\x18\n" +
	" \x01(\v2\x17.google.protobuf.StructR\rinputRequests\x12<\n" +
	"\bresponse\x18\v \x01(\v2\x1e.mcpbridge.v1.CallToolResponseH\x00R\bresponse\x122\n" +
	"\x05error\x18\f \x01(\v2\x1a.mcpbridge.v1.JsonRpcErrorH\x00R\x05errorB\b\n" +
	"\x06result*\xa8\x01\n" +
	"\n" +
	"ChildState\x12\x1b\n" +
	"\x17CHILD_STATE_UNSPECIFIED\x10\x00\x12\x18\n" +
	"\x14CHILD_STATE_STARTING\x10\x01\x12\x15\n" +
	"\x11CHILD_STATE_READY\x10\x02\x12\x1a\n" +
	"\x16CHILD_STATE_RESTARTING\x10\x03\x12\x18\n" +
	"\x14CHILD_STATE_STOPPING\x10\x04\x12\x16\n" +
	"\x12CHILD_STATE_FAILED\x10\x05*\x97\x01\n" +
	"\fServerPolicy\x12\x1d\n" +
	"\x19SERVER_POLICY_UNSPECIFIED\x10\x00\x12\x18\n" +
	"\x14SERVER_POLICY_SHARED\x10\x01\x12\x16\n" +
	"\x12SERVER_POLICY_POOL\x10\x02\x12\x19\n" +
	"\x15SERVER_POLICY_SESSION\x10\x03\x12\x1b\n" +
	"\x17SERVER_POLICY_AGGREGATE\x10\x04*Z\n" +
	"\n" +
	"CacheScope\x12\x1b\n" +
	"\x17CACHE_SCOPE_UNSPECIFIED\x10\x00\x12\x16\n" +
	"\x12CACHE_SCOPE_PUBLIC\x10\x01\x12\x17\n" +
	"\x13CACHE_SCOPE_PRIVATE\x10\x02*?\n" +
	"\x04Role\x12\x14\n" +
	"\x10ROLE_UNSPECIFIED\x10\x00\x12\r\n" +
	"\tROLE_USER\x10\x01\x12\x12\n" +
	"\x0eROLE_ASSISTANT\x10\x02*\xfe\x01\n" +
	"\fLoggingLevel\x12\x1d\n" +
	"\x19LOGGING_LEVEL_UNSPECIFIED\x10\x00\x12\x17\n" +
	"\x13LOGGING_LEVEL_DEBUG\x10\x01\x12\x16\n" +
	"\x12LOGGING_LEVEL_INFO\x10\x02\x12\x18\n" +
	"\x14LOGGING_LEVEL_NOTICE\x10\x03\x12\x19\n" +
	"\x15LOGGING_LEVEL_WARNING\x10\x04\x12\x17\n" +
	"\x13LOGGING_LEVEL_ERROR\x10\x05\x12\x1a\n" +
	"\x16LOGGING_LEVEL_CRITICAL\x10\x06\x12\x17\n" +
	"\x13LOGGING_LEVEL_ALERT\x10\a\x12\x1b\n" +
	"\x17LOGGING_LEVEL_EMERGENCY\x10\b*\xa9\x01\n" +
	"\tTaskState\x12\x1a\n" +
	"\x16TASK_STATE_UNSPECIFIED\x10\x00\x12\x16\n" +
	"\x12TASK_STATE_WORKING\x10\x01\x12\x1d\n" +
	"\x19TASK_STATE_INPUT_REQUIRED\x10\x02\x12\x18\n" +
	"\x14TASK_STATE_COMPLETED\x10\x03\x12\x15\n" +
	"\x11TASK_STATE_FAILED\x10\x04\x12\x18\n" +
	"\x14TASK_STATE_CANCELLED\x10\x052\xbc\x0f\n" +
	"\rBridgeService\x12L\n" +
	"\tGetServer\x12\x1e.mcpbridge.v1.GetServerRequest\x1a\x1f.mcpbridge.v1.GetServerResponse\x12R\n" +
	"\vListServers\x12 .mcpbridge.v1.ListServersRequest\x1a!.mcpbridge.v1.ListServersResponse\x12L\n" +
	"\tListTools\x12\x1e.mcpbridge.v1.ListToolsRequest\x1a\x1f.mcpbridge.v1.ListToolsResponse\x12X\n" +
	"\rListResources\x12\".mcpbridge.v1.ListResourcesRequest\x1a#.mcpbridge.v1.ListResourcesResponse\x12p\n" +
	"\x15ListResourceTemplates\x12*.mcpbridge.v1.ListResourceTemplatesRequest\x1a+.mcpbridge.v1.ListResourceTemplatesResponse\x12R\n" +
	"\vListPrompts\x12 .mcpbridge.v1.ListPromptsRequest\x1a!.mcpbridge.v1.ListPromptsResponse\x12I\n" +
	"\bCallTool\x12\x1d.mcpbridge.v1.CallToolRequest\x1a\x1e.mcpbridge.v1.CallToolResponse\x12U\n" +
	"\fReadResource\x12!.mcpbridge.v1.ReadResourceRequest\x1a\".mcpbridge.v1.ReadResourceResponse\x12L\n" +
	"\tGetPrompt\x12\x1e.mcpbridge.v1.GetPromptRequest\x1a\x1f.mcpbridge.v1.GetPromptResponse\x12I\n" +
	"\bComplete\x12\x1d.mcpbridge.v1.CompleteRequest\x1a\x1e.mcpbridge.v1.CompleteResponse\x12]\n" +
	"\x0eCallToolStream\x12#.mcpbridge.v1.CallToolStreamRequest\x1a$.mcpbridge.v1.CallToolStreamResponse0\x01\x12N\n" +
	"\tSubscribe\x12\x1e.mcpbridge.v1.SubscribeRequest\x1a\x1f.mcpbridge.v1.SubscribeResponse0\x01\x12=\n" +
	"\x04Call\x12\x19.mcpbridge.v1.CallRequest\x1a\x1a.mcpbridge.v1.CallResponse\x12Q\n" +
	"\n" +
	"CallStream\x12\x1f.mcpbridge.v1.CallStreamRequest\x1a .mcpbridge.v1.CallStreamResponse0\x01\x12J\n" +
	"\aConnect\x12\x1c.mcpbridge.v1.ConnectRequest\x1a\x1d.mcpbridge.v1.ConnectResponse(\x010\x01\x12=\n" +
	"\x04Ping\x12\x19.mcpbridge.v1.PingRequest\x1a\x1a.mcpbridge.v1.PingResponse\x12s\n" +
	"\x16RespondToServerRequest\x12+.mcpbridge.v1.RespondToServerRequestRequest\x1a,.mcpbridge.v1.RespondToServerRequestResponse\x12L\n" +
	"\tStartTask\x12\x1e.mcpbridge.v1.StartTaskRequest\x1a\x1f.mcpbridge.v1.StartTaskResponse\x12F\n" +
	"\aGetTask\x12\x1c.mcpbridge.v1.GetTaskRequest\x1a\x1d.mcpbridge.v1.GetTaskResponse\x12I\n" +
	"\bWaitTask\x12\x1d.mcpbridge.v1.WaitTaskRequest\x1a\x1e.mcpbridge.v1.WaitTaskResponse\x12N\n" +
	"\tWatchTask\x12\x1e.mcpbridge.v1.WatchTaskRequest\x1a\x1f.mcpbridge.v1.WatchTaskResponse0\x01\x12O\n" +
	"\n" +
	"AnswerTask\x12\x1f.mcpbridge.v1.AnswerTaskRequest\x1a .mcpbridge.v1.AnswerTaskResponse\x12O\n" +
	"\n" +
	"CancelTask\x12\x1f.mcpbridge.v1.CancelTaskRequest\x1a .mcpbridge.v1.CancelTaskResponse\x12L\n" +
	"\tListTasks\x12\x1e.mcpbridge.v1.ListTasksRequest\x1a\x1f.mcpbridge.v1.ListTasksResponseB?Z=github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1;mcpbridgev1b\x06proto3"

var (
	file_mcpbridge_v1_bridge_proto_rawDescOnce sync.Once
	file_mcpbridge_v1_bridge_proto_rawDescData []byte
)

func file_mcpbridge_v1_bridge_proto_rawDescGZIP() []byte {
	file_mcpbridge_v1_bridge_proto_rawDescOnce.Do(func() {
		file_mcpbridge_v1_bridge_proto_rawDescData = protoimpl.X.CompressGZIP(unsafe.Slice(unsafe.StringData(file_mcpbridge_v1_bridge_proto_rawDesc), len(file_mcpbridge_v1_bridge_proto_rawDesc)))
	})
	return file_mcpbridge_v1_bridge_proto_rawDescData
}

var file_mcpbridge_v1_bridge_proto_enumTypes = make([]protoimpl.EnumInfo, 6)
var file_mcpbridge_v1_bridge_proto_msgTypes = make([]protoimpl.MessageInfo, 73)
var file_mcpbridge_v1_bridge_proto_goTypes = []any{
	(ChildState)(0),                        // 0: mcpbridge.v1.ChildState
	(ServerPolicy)(0),                      // 1: mcpbridge.v1.ServerPolicy
	(CacheScope)(0),                        // 2: mcpbridge.v1.CacheScope
	(Role)(0),                              // 3: mcpbridge.v1.Role
	(LoggingLevel)(0),                      // 4: mcpbridge.v1.LoggingLevel
	(TaskState)(0),                         // 5: mcpbridge.v1.TaskState
	(*GetServerRequest)(nil),               // 6: mcpbridge.v1.GetServerRequest
	(*GetServerResponse)(nil),              // 7: mcpbridge.v1.GetServerResponse
	(*ListServersRequest)(nil),             // 8: mcpbridge.v1.ListServersRequest
	(*ListServersResponse)(nil),            // 9: mcpbridge.v1.ListServersResponse
	(*Child)(nil),                          // 10: mcpbridge.v1.Child
	(*ListToolsRequest)(nil),               // 11: mcpbridge.v1.ListToolsRequest
	(*ListToolsResponse)(nil),              // 12: mcpbridge.v1.ListToolsResponse
	(*ListResourcesRequest)(nil),           // 13: mcpbridge.v1.ListResourcesRequest
	(*ListResourcesResponse)(nil),          // 14: mcpbridge.v1.ListResourcesResponse
	(*ListResourceTemplatesRequest)(nil),   // 15: mcpbridge.v1.ListResourceTemplatesRequest
	(*ListResourceTemplatesResponse)(nil),  // 16: mcpbridge.v1.ListResourceTemplatesResponse
	(*ListPromptsRequest)(nil),             // 17: mcpbridge.v1.ListPromptsRequest
	(*ListPromptsResponse)(nil),            // 18: mcpbridge.v1.ListPromptsResponse
	(*Tool)(nil),                           // 19: mcpbridge.v1.Tool
	(*Icon)(nil),                           // 20: mcpbridge.v1.Icon
	(*Resource)(nil),                       // 21: mcpbridge.v1.Resource
	(*ResourceTemplate)(nil),               // 22: mcpbridge.v1.ResourceTemplate
	(*Prompt)(nil),                         // 23: mcpbridge.v1.Prompt
	(*PromptArgument)(nil),                 // 24: mcpbridge.v1.PromptArgument
	(*CallToolRequest)(nil),                // 25: mcpbridge.v1.CallToolRequest
	(*CallToolResponse)(nil),               // 26: mcpbridge.v1.CallToolResponse
	(*InputRequired)(nil),                  // 27: mcpbridge.v1.InputRequired
	(*Content)(nil),                        // 28: mcpbridge.v1.Content
	(*TextContent)(nil),                    // 29: mcpbridge.v1.TextContent
	(*ImageContent)(nil),                   // 30: mcpbridge.v1.ImageContent
	(*AudioContent)(nil),                   // 31: mcpbridge.v1.AudioContent
	(*EmbeddedResource)(nil),               // 32: mcpbridge.v1.EmbeddedResource
	(*ResourceContents)(nil),               // 33: mcpbridge.v1.ResourceContents
	(*ReadResourceRequest)(nil),            // 34: mcpbridge.v1.ReadResourceRequest
	(*ReadResourceResponse)(nil),           // 35: mcpbridge.v1.ReadResourceResponse
	(*GetPromptRequest)(nil),               // 36: mcpbridge.v1.GetPromptRequest
	(*GetPromptResponse)(nil),              // 37: mcpbridge.v1.GetPromptResponse
	(*PromptMessage)(nil),                  // 38: mcpbridge.v1.PromptMessage
	(*CompleteRequest)(nil),                // 39: mcpbridge.v1.CompleteRequest
	(*CompleteResponse)(nil),               // 40: mcpbridge.v1.CompleteResponse
	(*CallToolStreamRequest)(nil),          // 41: mcpbridge.v1.CallToolStreamRequest
	(*CallToolStreamResponse)(nil),         // 42: mcpbridge.v1.CallToolStreamResponse
	(*Progress)(nil),                       // 43: mcpbridge.v1.Progress
	(*LogMessage)(nil),                     // 44: mcpbridge.v1.LogMessage
	(*ServerRequest)(nil),                  // 45: mcpbridge.v1.ServerRequest
	(*SubscribeRequest)(nil),               // 46: mcpbridge.v1.SubscribeRequest
	(*SubscribeResponse)(nil),              // 47: mcpbridge.v1.SubscribeResponse
	(*SubscriptionAcknowledged)(nil),       // 48: mcpbridge.v1.SubscriptionAcknowledged
	(*ResourceUpdated)(nil),                // 49: mcpbridge.v1.ResourceUpdated
	(*ListChanged)(nil),                    // 50: mcpbridge.v1.ListChanged
	(*CallRequest)(nil),                    // 51: mcpbridge.v1.CallRequest
	(*CallResponse)(nil),                   // 52: mcpbridge.v1.CallResponse
	(*CallStreamRequest)(nil),              // 53: mcpbridge.v1.CallStreamRequest
	(*CallStreamResponse)(nil),             // 54: mcpbridge.v1.CallStreamResponse
	(*ConnectRequest)(nil),                 // 55: mcpbridge.v1.ConnectRequest
	(*ConnectResponse)(nil),                // 56: mcpbridge.v1.ConnectResponse
	(*PingRequest)(nil),                    // 57: mcpbridge.v1.PingRequest
	(*PingResponse)(nil),                   // 58: mcpbridge.v1.PingResponse
	(*RespondToServerRequestRequest)(nil),  // 59: mcpbridge.v1.RespondToServerRequestRequest
	(*RespondToServerRequestResponse)(nil), // 60: mcpbridge.v1.RespondToServerRequestResponse
	(*JsonRpcError)(nil),                   // 61: mcpbridge.v1.JsonRpcError
	(*StartTaskRequest)(nil),               // 62: mcpbridge.v1.StartTaskRequest
	(*GetTaskRequest)(nil),                 // 63: mcpbridge.v1.GetTaskRequest
	(*WaitTaskRequest)(nil),                // 64: mcpbridge.v1.WaitTaskRequest
	(*WatchTaskRequest)(nil),               // 65: mcpbridge.v1.WatchTaskRequest
	(*AnswerTaskRequest)(nil),              // 66: mcpbridge.v1.AnswerTaskRequest
	(*CancelTaskRequest)(nil),              // 67: mcpbridge.v1.CancelTaskRequest
	(*ListTasksRequest)(nil),               // 68: mcpbridge.v1.ListTasksRequest
	(*ListTasksResponse)(nil),              // 69: mcpbridge.v1.ListTasksResponse
	(*StartTaskResponse)(nil),              // 70: mcpbridge.v1.StartTaskResponse
	(*GetTaskResponse)(nil),                // 71: mcpbridge.v1.GetTaskResponse
	(*WaitTaskResponse)(nil),               // 72: mcpbridge.v1.WaitTaskResponse
	(*AnswerTaskResponse)(nil),             // 73: mcpbridge.v1.AnswerTaskResponse
	(*CancelTaskResponse)(nil),             // 74: mcpbridge.v1.CancelTaskResponse
	(*WatchTaskResponse)(nil),              // 75: mcpbridge.v1.WatchTaskResponse
	(*Task)(nil),                           // 76: mcpbridge.v1.Task
	nil,                                    // 77: mcpbridge.v1.GetPromptRequest.ArgumentsEntry
	nil,                                    // 78: mcpbridge.v1.CompleteRequest.ContextArgumentsEntry
	(*structpb.Struct)(nil),                // 79: google.protobuf.Struct
	(*timestamppb.Timestamp)(nil),          // 80: google.protobuf.Timestamp
	(*durationpb.Duration)(nil),            // 81: google.protobuf.Duration
	(*structpb.Value)(nil),                 // 82: google.protobuf.Value
}
var file_mcpbridge_v1_bridge_proto_depIdxs = []int32{
	79,  // 0: mcpbridge.v1.GetServerResponse.server_info:type_name -> google.protobuf.Struct
	79,  // 1: mcpbridge.v1.GetServerResponse.capabilities:type_name -> google.protobuf.Struct
	10,  // 2: mcpbridge.v1.GetServerResponse.child:type_name -> mcpbridge.v1.Child
	1,   // 3: mcpbridge.v1.GetServerResponse.policy:type_name -> mcpbridge.v1.ServerPolicy
	10,  // 4: mcpbridge.v1.GetServerResponse.children:type_name -> mcpbridge.v1.Child
	7,   // 5: mcpbridge.v1.GetServerResponse.members:type_name -> mcpbridge.v1.GetServerResponse
	7,   // 6: mcpbridge.v1.ListServersResponse.servers:type_name -> mcpbridge.v1.GetServerResponse
	0,   // 7: mcpbridge.v1.Child.state:type_name -> mcpbridge.v1.ChildState
	80,  // 8: mcpbridge.v1.Child.started_at:type_name -> google.protobuf.Timestamp
	79,  // 9: mcpbridge.v1.ListToolsRequest.meta:type_name -> google.protobuf.Struct
	19,  // 10: mcpbridge.v1.ListToolsResponse.tools:type_name -> mcpbridge.v1.Tool
	79,  // 11: mcpbridge.v1.ListToolsResponse.meta:type_name -> google.protobuf.Struct
	81,  // 12: mcpbridge.v1.ListToolsResponse.ttl:type_name -> google.protobuf.Duration
	2,   // 13: mcpbridge.v1.ListToolsResponse.cache_scope:type_name -> mcpbridge.v1.CacheScope
	79,  // 14: mcpbridge.v1.ListResourcesRequest.meta:type_name -> google.protobuf.Struct
	21,  // 15: mcpbridge.v1.ListResourcesResponse.resources:type_name -> mcpbridge.v1.Resource
	79,  // 16: mcpbridge.v1.ListResourcesResponse.meta:type_name -> google.protobuf.Struct
	81,  // 17: mcpbridge.v1.ListResourcesResponse.ttl:type_name -> google.protobuf.Duration
	2,   // 18: mcpbridge.v1.ListResourcesResponse.cache_scope:type_name -> mcpbridge.v1.CacheScope
	79,  // 19: mcpbridge.v1.ListResourceTemplatesRequest.meta:type_name -> google.protobuf.Struct
	22,  // 20: mcpbridge.v1.ListResourceTemplatesResponse.resource_templates:type_name -> mcpbridge.v1.ResourceTemplate
	79,  // 21: mcpbridge.v1.ListResourceTemplatesResponse.meta:type_name -> google.protobuf.Struct
	81,  // 22: mcpbridge.v1.ListResourceTemplatesResponse.ttl:type_name -> google.protobuf.Duration
	2,   // 23: mcpbridge.v1.ListResourceTemplatesResponse.cache_scope:type_name -> mcpbridge.v1.CacheScope
	79,  // 24: mcpbridge.v1.ListPromptsRequest.meta:type_name -> google.protobuf.Struct
	23,  // 25: mcpbridge.v1.ListPromptsResponse.prompts:type_name -> mcpbridge.v1.Prompt
	79,  // 26: mcpbridge.v1.ListPromptsResponse.meta:type_name -> google.protobuf.Struct
	81,  // 27: mcpbridge.v1.ListPromptsResponse.ttl:type_name -> google.protobuf.Duration
	2,   // 28: mcpbridge.v1.ListPromptsResponse.cache_scope:type_name -> mcpbridge.v1.CacheScope
	79,  // 29: mcpbridge.v1.Tool.input_schema:type_name -> google.protobuf.Struct
	79,  // 30: mcpbridge.v1.Tool.output_schema:type_name -> google.protobuf.Struct
	79,  // 31: mcpbridge.v1.Tool.annotations:type_name -> google.protobuf.Struct
	20,  // 32: mcpbridge.v1.Tool.icons:type_name -> mcpbridge.v1.Icon
	79,  // 33: mcpbridge.v1.Tool.execution:type_name -> google.protobuf.Struct
	79,  // 34: mcpbridge.v1.Tool.meta:type_name -> google.protobuf.Struct
	79,  // 35: mcpbridge.v1.Resource.annotations:type_name -> google.protobuf.Struct
	20,  // 36: mcpbridge.v1.Resource.icons:type_name -> mcpbridge.v1.Icon
	79,  // 37: mcpbridge.v1.Resource.meta:type_name -> google.protobuf.Struct
	79,  // 38: mcpbridge.v1.ResourceTemplate.annotations:type_name -> google.protobuf.Struct
	20,  // 39: mcpbridge.v1.ResourceTemplate.icons:type_name -> mcpbridge.v1.Icon
	79,  // 40: mcpbridge.v1.ResourceTemplate.meta:type_name -> google.protobuf.Struct
	24,  // 41: mcpbridge.v1.Prompt.arguments:type_name -> mcpbridge.v1.PromptArgument
	20,  // 42: mcpbridge.v1.Prompt.icons:type_name -> mcpbridge.v1.Icon
	79,  // 43: mcpbridge.v1.Prompt.meta:type_name -> google.protobuf.Struct
	79,  // 44: mcpbridge.v1.CallToolRequest.arguments:type_name -> google.protobuf.Struct
	79,  // 45: mcpbridge.v1.CallToolRequest.meta:type_name -> google.protobuf.Struct
	79,  // 46: mcpbridge.v1.CallToolRequest.input_responses:type_name -> google.protobuf.Struct
	79,  // 47: mcpbridge.v1.CallToolRequest.client_capabilities:type_name -> google.protobuf.Struct
	28,  // 48: mcpbridge.v1.CallToolResponse.content:type_name -> mcpbridge.v1.Content
	82,  // 49: mcpbridge.v1.CallToolResponse.structured_content:type_name -> google.protobuf.Value
	79,  // 50: mcpbridge.v1.CallToolResponse.meta:type_name -> google.protobuf.Struct
	27,  // 51: mcpbridge.v1.CallToolResponse.input_required:type_name -> mcpbridge.v1.InputRequired
	79,  // 52: mcpbridge.v1.InputRequired.input_requests:type_name -> google.protobuf.Struct
	79,  // 53: mcpbridge.v1.InputRequired.meta:type_name -> google.protobuf.Struct
	29,  // 54: mcpbridge.v1.Content.text:type_name -> mcpbridge.v1.TextContent
	30,  // 55: mcpbridge.v1.Content.image:type_name -> mcpbridge.v1.ImageContent
	31,  // 56: mcpbridge.v1.Content.audio:type_name -> mcpbridge.v1.AudioContent
	21,  // 57: mcpbridge.v1.Content.resource_link:type_name -> mcpbridge.v1.Resource
	32,  // 58: mcpbridge.v1.Content.resource:type_name -> mcpbridge.v1.EmbeddedResource
	79,  // 59: mcpbridge.v1.TextContent.annotations:type_name -> google.protobuf.Struct
	79,  // 60: mcpbridge.v1.TextContent.meta:type_name -> google.protobuf.Struct
	79,  // 61: mcpbridge.v1.ImageContent.annotations:type_name -> google.protobuf.Struct
	79,  // 62: mcpbridge.v1.ImageContent.meta:type_name -> google.protobuf.Struct
	79,  // 63: mcpbridge.v1.AudioContent.annotations:type_name -> google.protobuf.Struct
	79,  // 64: mcpbridge.v1.AudioContent.meta:type_name -> google.protobuf.Struct
	33,  // 65: mcpbridge.v1.EmbeddedResource.resource:type_name -> mcpbridge.v1.ResourceContents
	79,  // 66: mcpbridge.v1.EmbeddedResource.annotations:type_name -> google.protobuf.Struct
	79,  // 67: mcpbridge.v1.EmbeddedResource.meta:type_name -> google.protobuf.Struct
	79,  // 68: mcpbridge.v1.ResourceContents.meta:type_name -> google.protobuf.Struct
	79,  // 69: mcpbridge.v1.ReadResourceRequest.meta:type_name -> google.protobuf.Struct
	79,  // 70: mcpbridge.v1.ReadResourceRequest.input_responses:type_name -> google.protobuf.Struct
	79,  // 71: mcpbridge.v1.ReadResourceRequest.client_capabilities:type_name -> google.protobuf.Struct
	33,  // 72: mcpbridge.v1.ReadResourceResponse.contents:type_name -> mcpbridge.v1.ResourceContents
	79,  // 73: mcpbridge.v1.ReadResourceResponse.meta:type_name -> google.protobuf.Struct
	27,  // 74: mcpbridge.v1.ReadResourceResponse.input_required:type_name -> mcpbridge.v1.InputRequired
	81,  // 75: mcpbridge.v1.ReadResourceResponse.ttl:type_name -> google.protobuf.Duration
	2,   // 76: mcpbridge.v1.ReadResourceResponse.cache_scope:type_name -> mcpbridge.v1.CacheScope
	77,  // 77: mcpbridge.v1.GetPromptRequest.arguments:type_name -> mcpbridge.v1.GetPromptRequest.ArgumentsEntry
	79,  // 78: mcpbridge.v1.GetPromptRequest.meta:type_name -> google.protobuf.Struct
	79,  // 79: mcpbridge.v1.GetPromptRequest.input_responses:type_name -> google.protobuf.Struct
	79,  // 80: mcpbridge.v1.GetPromptRequest.client_capabilities:type_name -> google.protobuf.Struct
	38,  // 81: mcpbridge.v1.GetPromptResponse.messages:type_name -> mcpbridge.v1.PromptMessage
	79,  // 82: mcpbridge.v1.GetPromptResponse.meta:type_name -> google.protobuf.Struct
	27,  // 83: mcpbridge.v1.GetPromptResponse.input_required:type_name -> mcpbridge.v1.InputRequired
	3,   // 84: mcpbridge.v1.PromptMessage.role:type_name -> mcpbridge.v1.Role
	28,  // 85: mcpbridge.v1.PromptMessage.content:type_name -> mcpbridge.v1.Content
	78,  // 86: mcpbridge.v1.CompleteRequest.context_arguments:type_name -> mcpbridge.v1.CompleteRequest.ContextArgumentsEntry
	79,  // 87: mcpbridge.v1.CompleteRequest.meta:type_name -> google.protobuf.Struct
	79,  // 88: mcpbridge.v1.CompleteResponse.meta:type_name -> google.protobuf.Struct
	79,  // 89: mcpbridge.v1.CallToolStreamRequest.arguments:type_name -> google.protobuf.Struct
	79,  // 90: mcpbridge.v1.CallToolStreamRequest.meta:type_name -> google.protobuf.Struct
	79,  // 91: mcpbridge.v1.CallToolStreamRequest.input_responses:type_name -> google.protobuf.Struct
	79,  // 92: mcpbridge.v1.CallToolStreamRequest.client_capabilities:type_name -> google.protobuf.Struct
	4,   // 93: mcpbridge.v1.CallToolStreamRequest.log_level:type_name -> mcpbridge.v1.LoggingLevel
	43,  // 94: mcpbridge.v1.CallToolStreamResponse.progress:type_name -> mcpbridge.v1.Progress
	44,  // 95: mcpbridge.v1.CallToolStreamResponse.log:type_name -> mcpbridge.v1.LogMessage
	45,  // 96: mcpbridge.v1.CallToolStreamResponse.server_request:type_name -> mcpbridge.v1.ServerRequest
	26,  // 97: mcpbridge.v1.CallToolStreamResponse.result:type_name -> mcpbridge.v1.CallToolResponse
	4,   // 98: mcpbridge.v1.LogMessage.level:type_name -> mcpbridge.v1.LoggingLevel
	82,  // 99: mcpbridge.v1.LogMessage.data:type_name -> google.protobuf.Value
	80,  // 100: mcpbridge.v1.ServerRequest.expire_time:type_name -> google.protobuf.Timestamp
	4,   // 101: mcpbridge.v1.SubscribeRequest.log_level:type_name -> mcpbridge.v1.LoggingLevel
	48,  // 102: mcpbridge.v1.SubscribeResponse.acknowledged:type_name -> mcpbridge.v1.SubscriptionAcknowledged
	49,  // 103: mcpbridge.v1.SubscribeResponse.resource_updated:type_name -> mcpbridge.v1.ResourceUpdated
	50,  // 104: mcpbridge.v1.SubscribeResponse.tools_list_changed:type_name -> mcpbridge.v1.ListChanged
	50,  // 105: mcpbridge.v1.SubscribeResponse.prompts_list_changed:type_name -> mcpbridge.v1.ListChanged
	50,  // 106: mcpbridge.v1.SubscribeResponse.resources_list_changed:type_name -> mcpbridge.v1.ListChanged
	45,  // 107: mcpbridge.v1.SubscribeResponse.server_request:type_name -> mcpbridge.v1.ServerRequest
	44,  // 108: mcpbridge.v1.SubscribeResponse.log:type_name -> mcpbridge.v1.LogMessage
	79,  // 109: mcpbridge.v1.ResourceUpdated.meta:type_name -> google.protobuf.Struct
	79,  // 110: mcpbridge.v1.ListChanged.meta:type_name -> google.protobuf.Struct
	4,   // 111: mcpbridge.v1.CallStreamRequest.log_level:type_name -> mcpbridge.v1.LoggingLevel
	43,  // 112: mcpbridge.v1.CallStreamResponse.progress:type_name -> mcpbridge.v1.Progress
	44,  // 113: mcpbridge.v1.CallStreamResponse.log:type_name -> mcpbridge.v1.LogMessage
	45,  // 114: mcpbridge.v1.CallStreamResponse.server_request:type_name -> mcpbridge.v1.ServerRequest
	52,  // 115: mcpbridge.v1.CallStreamResponse.result:type_name -> mcpbridge.v1.CallResponse
	81,  // 116: mcpbridge.v1.PingResponse.round_trip:type_name -> google.protobuf.Duration
	10,  // 117: mcpbridge.v1.PingResponse.child:type_name -> mcpbridge.v1.Child
	61,  // 118: mcpbridge.v1.RespondToServerRequestRequest.error:type_name -> mcpbridge.v1.JsonRpcError
	79,  // 119: mcpbridge.v1.StartTaskRequest.arguments:type_name -> google.protobuf.Struct
	79,  // 120: mcpbridge.v1.StartTaskRequest.meta:type_name -> google.protobuf.Struct
	81,  // 121: mcpbridge.v1.StartTaskRequest.ttl:type_name -> google.protobuf.Duration
	79,  // 122: mcpbridge.v1.StartTaskRequest.client_capabilities:type_name -> google.protobuf.Struct
	81,  // 123: mcpbridge.v1.WaitTaskRequest.timeout:type_name -> google.protobuf.Duration
	79,  // 124: mcpbridge.v1.AnswerTaskRequest.input_responses:type_name -> google.protobuf.Struct
	76,  // 125: mcpbridge.v1.ListTasksResponse.tasks:type_name -> mcpbridge.v1.Task
	76,  // 126: mcpbridge.v1.StartTaskResponse.task:type_name -> mcpbridge.v1.Task
	76,  // 127: mcpbridge.v1.GetTaskResponse.task:type_name -> mcpbridge.v1.Task
	76,  // 128: mcpbridge.v1.WaitTaskResponse.task:type_name -> mcpbridge.v1.Task
	76,  // 129: mcpbridge.v1.AnswerTaskResponse.task:type_name -> mcpbridge.v1.Task
	76,  // 130: mcpbridge.v1.CancelTaskResponse.task:type_name -> mcpbridge.v1.Task
	76,  // 131: mcpbridge.v1.WatchTaskResponse.task:type_name -> mcpbridge.v1.Task
	5,   // 132: mcpbridge.v1.Task.state:type_name -> mcpbridge.v1.TaskState
	80,  // 133: mcpbridge.v1.Task.create_time:type_name -> google.protobuf.Timestamp
	80,  // 134: mcpbridge.v1.Task.update_time:type_name -> google.protobuf.Timestamp
	81,  // 135: mcpbridge.v1.Task.ttl:type_name -> google.protobuf.Duration
	81,  // 136: mcpbridge.v1.Task.poll_interval:type_name -> google.protobuf.Duration
	79,  // 137: mcpbridge.v1.Task.input_requests:type_name -> google.protobuf.Struct
	26,  // 138: mcpbridge.v1.Task.response:type_name -> mcpbridge.v1.CallToolResponse
	61,  // 139: mcpbridge.v1.Task.error:type_name -> mcpbridge.v1.JsonRpcError
	6,   // 140: mcpbridge.v1.BridgeService.GetServer:input_type -> mcpbridge.v1.GetServerRequest
	8,   // 141: mcpbridge.v1.BridgeService.ListServers:input_type -> mcpbridge.v1.ListServersRequest
	11,  // 142: mcpbridge.v1.BridgeService.ListTools:input_type -> mcpbridge.v1.ListToolsRequest
	13,  // 143: mcpbridge.v1.BridgeService.ListResources:input_type -> mcpbridge.v1.ListResourcesRequest
	15,  // 144: mcpbridge.v1.BridgeService.ListResourceTemplates:input_type -> mcpbridge.v1.ListResourceTemplatesRequest
	17,  // 145: mcpbridge.v1.BridgeService.ListPrompts:input_type -> mcpbridge.v1.ListPromptsRequest
	25,  // 146: mcpbridge.v1.BridgeService.CallTool:input_type -> mcpbridge.v1.CallToolRequest
	34,  // 147: mcpbridge.v1.BridgeService.ReadResource:input_type -> mcpbridge.v1.ReadResourceRequest
	36,  // 148: mcpbridge.v1.BridgeService.GetPrompt:input_type -> mcpbridge.v1.GetPromptRequest
	39,  // 149: mcpbridge.v1.BridgeService.Complete:input_type -> mcpbridge.v1.CompleteRequest
	41,  // 150: mcpbridge.v1.BridgeService.CallToolStream:input_type -> mcpbridge.v1.CallToolStreamRequest
	46,  // 151: mcpbridge.v1.BridgeService.Subscribe:input_type -> mcpbridge.v1.SubscribeRequest
	51,  // 152: mcpbridge.v1.BridgeService.Call:input_type -> mcpbridge.v1.CallRequest
	53,  // 153: mcpbridge.v1.BridgeService.CallStream:input_type -> mcpbridge.v1.CallStreamRequest
	55,  // 154: mcpbridge.v1.BridgeService.Connect:input_type -> mcpbridge.v1.ConnectRequest
	57,  // 155: mcpbridge.v1.BridgeService.Ping:input_type -> mcpbridge.v1.PingRequest
	59,  // 156: mcpbridge.v1.BridgeService.RespondToServerRequest:input_type -> mcpbridge.v1.RespondToServerRequestRequest
	62,  // 157: mcpbridge.v1.BridgeService.StartTask:input_type -> mcpbridge.v1.StartTaskRequest
	63,  // 158: mcpbridge.v1.BridgeService.GetTask:input_type -> mcpbridge.v1.GetTaskRequest
	64,  // 159: mcpbridge.v1.BridgeService.WaitTask:input_type -> mcpbridge.v1.WaitTaskRequest
	65,  // 160: mcpbridge.v1.BridgeService.WatchTask:input_type -> mcpbridge.v1.WatchTaskRequest
	66,  // 161: mcpbridge.v1.BridgeService.AnswerTask:input_type -> mcpbridge.v1.AnswerTaskRequest
	67,  // 162: mcpbridge.v1.BridgeService.CancelTask:input_type -> mcpbridge.v1.CancelTaskRequest
	68,  // 163: mcpbridge.v1.BridgeService.ListTasks:input_type -> mcpbridge.v1.ListTasksRequest
	7,   // 164: mcpbridge.v1.BridgeService.GetServer:output_type -> mcpbridge.v1.GetServerResponse
	9,   // 165: mcpbridge.v1.BridgeService.ListServers:output_type -> mcpbridge.v1.ListServersResponse
	12,  // 166: mcpbridge.v1.BridgeService.ListTools:output_type -> mcpbridge.v1.ListToolsResponse
	14,  // 167: mcpbridge.v1.BridgeService.ListResources:output_type -> mcpbridge.v1.ListResourcesResponse
	16,  // 168: mcpbridge.v1.BridgeService.ListResourceTemplates:output_type -> mcpbridge.v1.ListResourceTemplatesResponse
	18,  // 169: mcpbridge.v1.BridgeService.ListPrompts:output_type -> mcpbridge.v1.ListPromptsResponse
	26,  // 170: mcpbridge.v1.BridgeService.CallTool:output_type -> mcpbridge.v1.CallToolResponse
	35,  // 171: mcpbridge.v1.BridgeService.ReadResource:output_type -> mcpbridge.v1.ReadResourceResponse
	37,  // 172: mcpbridge.v1.BridgeService.GetPrompt:output_type -> mcpbridge.v1.GetPromptResponse
	40,  // 173: mcpbridge.v1.BridgeService.Complete:output_type -> mcpbridge.v1.CompleteResponse
	42,  // 174: mcpbridge.v1.BridgeService.CallToolStream:output_type -> mcpbridge.v1.CallToolStreamResponse
	47,  // 175: mcpbridge.v1.BridgeService.Subscribe:output_type -> mcpbridge.v1.SubscribeResponse
	52,  // 176: mcpbridge.v1.BridgeService.Call:output_type -> mcpbridge.v1.CallResponse
	54,  // 177: mcpbridge.v1.BridgeService.CallStream:output_type -> mcpbridge.v1.CallStreamResponse
	56,  // 178: mcpbridge.v1.BridgeService.Connect:output_type -> mcpbridge.v1.ConnectResponse
	58,  // 179: mcpbridge.v1.BridgeService.Ping:output_type -> mcpbridge.v1.PingResponse
	60,  // 180: mcpbridge.v1.BridgeService.RespondToServerRequest:output_type -> mcpbridge.v1.RespondToServerRequestResponse
	70,  // 181: mcpbridge.v1.BridgeService.StartTask:output_type -> mcpbridge.v1.StartTaskResponse
	71,  // 182: mcpbridge.v1.BridgeService.GetTask:output_type -> mcpbridge.v1.GetTaskResponse
	72,  // 183: mcpbridge.v1.BridgeService.WaitTask:output_type -> mcpbridge.v1.WaitTaskResponse
	75,  // 184: mcpbridge.v1.BridgeService.WatchTask:output_type -> mcpbridge.v1.WatchTaskResponse
	73,  // 185: mcpbridge.v1.BridgeService.AnswerTask:output_type -> mcpbridge.v1.AnswerTaskResponse
	74,  // 186: mcpbridge.v1.BridgeService.CancelTask:output_type -> mcpbridge.v1.CancelTaskResponse
	69,  // 187: mcpbridge.v1.BridgeService.ListTasks:output_type -> mcpbridge.v1.ListTasksResponse
	164, // [164:188] is the sub-list for method output_type
	140, // [140:164] is the sub-list for method input_type
	140, // [140:140] is the sub-list for extension type_name
	140, // [140:140] is the sub-list for extension extendee
	0,   // [0:140] is the sub-list for field type_name
}

func init() { file_mcpbridge_v1_bridge_proto_init() }
func file_mcpbridge_v1_bridge_proto_init() {
	if File_mcpbridge_v1_bridge_proto != nil {
		return
	}
	file_mcpbridge_v1_bridge_proto_msgTypes[15].OneofWrappers = []any{}
	file_mcpbridge_v1_bridge_proto_msgTypes[22].OneofWrappers = []any{
		(*Content_Text)(nil),
		(*Content_Image)(nil),
		(*Content_Audio)(nil),
		(*Content_ResourceLink)(nil),
		(*Content_Resource)(nil),
		(*Content_OtherJson)(nil),
	}
	file_mcpbridge_v1_bridge_proto_msgTypes[27].OneofWrappers = []any{
		(*ResourceContents_Text)(nil),
		(*ResourceContents_Blob)(nil),
	}
	file_mcpbridge_v1_bridge_proto_msgTypes[33].OneofWrappers = []any{
		(*CompleteRequest_PromptName)(nil),
		(*CompleteRequest_ResourceTemplateUri)(nil),
	}
	file_mcpbridge_v1_bridge_proto_msgTypes[34].OneofWrappers = []any{}
	file_mcpbridge_v1_bridge_proto_msgTypes[36].OneofWrappers = []any{
		(*CallToolStreamResponse_Progress)(nil),
		(*CallToolStreamResponse_Log)(nil),
		(*CallToolStreamResponse_ServerRequest)(nil),
		(*CallToolStreamResponse_Result)(nil),
	}
	file_mcpbridge_v1_bridge_proto_msgTypes[37].OneofWrappers = []any{}
	file_mcpbridge_v1_bridge_proto_msgTypes[41].OneofWrappers = []any{
		(*SubscribeResponse_Acknowledged)(nil),
		(*SubscribeResponse_ResourceUpdated)(nil),
		(*SubscribeResponse_ToolsListChanged)(nil),
		(*SubscribeResponse_PromptsListChanged)(nil),
		(*SubscribeResponse_ResourcesListChanged)(nil),
		(*SubscribeResponse_ServerRequest)(nil),
		(*SubscribeResponse_Log)(nil),
	}
	file_mcpbridge_v1_bridge_proto_msgTypes[48].OneofWrappers = []any{
		(*CallStreamResponse_Progress)(nil),
		(*CallStreamResponse_Log)(nil),
		(*CallStreamResponse_ServerRequest)(nil),
		(*CallStreamResponse_Result)(nil),
	}
	file_mcpbridge_v1_bridge_proto_msgTypes[53].OneofWrappers = []any{
		(*RespondToServerRequestRequest_ResultJson)(nil),
		(*RespondToServerRequestRequest_Error)(nil),
	}
	file_mcpbridge_v1_bridge_proto_msgTypes[70].OneofWrappers = []any{
		(*Task_Response)(nil),
		(*Task_Error)(nil),
	}
	type x struct{}
	out := protoimpl.TypeBuilder{
		File: protoimpl.DescBuilder{
			GoPackagePath: reflect.TypeOf(x{}).PkgPath(),
			RawDescriptor: unsafe.Slice(unsafe.StringData(file_mcpbridge_v1_bridge_proto_rawDesc), len(file_mcpbridge_v1_bridge_proto_rawDesc)),
			NumEnums:      6,
			NumMessages:   73,
			NumExtensions: 0,
			NumServices:   1,
		},
		GoTypes:           file_mcpbridge_v1_bridge_proto_goTypes,
		DependencyIndexes: file_mcpbridge_v1_bridge_proto_depIdxs,
		EnumInfos:         file_mcpbridge_v1_bridge_proto_enumTypes,
		MessageInfos:      file_mcpbridge_v1_bridge_proto_msgTypes,
	}.Build()
	File_mcpbridge_v1_bridge_proto = out.File
	file_mcpbridge_v1_bridge_proto_goTypes = nil
	file_mcpbridge_v1_bridge_proto_depIdxs = nil
}
