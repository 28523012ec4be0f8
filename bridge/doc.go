// Package bridge is the gRPC service mcpbridge.v1.BridgeService: it fronts
// stdio MCP servers, runs each as a supervised child process, and turns
// every RPC into JSON-RPC on the child and the child's answers, progress,
// logs and events back into gRPC responses and stream messages
// (docs/architecture.md has the picture).
//
// A program makes a [Service] with [New] from a [Config] (the fronted
// servers and the limits), serves it with [Service.Serve] on the
// listeners it opened (gRPC, and optionally the HTTP door and a plaintext
// health listener), and stops it with [Service.Shutdown], which drains,
// stops gracefully within its context and stops the children, as
// http.Server does (lifecycle.go). cmd/mcpbridge is such a program. A
// program that runs its own grpc.Server instead uses
// [Service.NewGRPCServer] (health, reflection, recovery, logging,
// keepalive) and [Service.NewHTTPDoor], and performs Shutdown's steps
// itself: [Service.Drain], its servers' graceful stop, [Service.Abort] at
// its deadline, [Service.Close].
//
// Every door opens a client's JSON-RPC session with a server through one
// in-process API, [Service.Open] (session.go): the Connect RPC and the
// HTTP door's MCP endpoint (httpdoor.go) only carry messages between
// their transport and a [Session]. Every door that serves the API's RPCs
// runs the same handlers behind the same interceptors (grpcserver.go):
// the gRPC listener, and the HTTP listener's Connect, gRPC-Web and gRPC
// forms in process (package internal/inproc).
//
// How a request travels, file by file:
//
//   - core.go finds the fronted server a request names (lookup); package
//     internal/pool runs its children under its policy (shared, pool,
//     session) and gives a request its ready child. Package internal/door
//     is the one pipeline every request to a child passes, from every
//     path: the caller's credentials still hold (door.Watch, applied by
//     reauth.go), the rules, the limits, the audit of every refusal, then
//     the observed call.
//   - The RPCs are package internal/grpcdoor, whose API [Service] embeds,
//     over the service's core (core.go): route.go takes an RPC through the
//     door to the child and maps every failure to a status (package
//     internal/rpcerr, the only place where errors become statuses, with
//     the original JSON-RPC error in the details: docs/errors.md); typed.go
//     (lists, CallTool, ReadResource, GetPrompt, Complete), streams.go
//     (CallToolStream), raw.go (Call and CallStream, lossless JSON text),
//     subscribe.go (Subscribe), connect.go (Connect, a raw JSON-RPC tunnel
//     over a Session, package internal/tunnel), respond.go
//     (RespondToServerRequest) and fronted.go (GetServer, ListServers,
//     Ping). The conversions between MCP's JSON and the typed messages are
//     package internal/convert.
//   - Package internal/pool starts and negotiates each child (stdio.Start
//     and stdio.Connect) and logs its stderr; package internal/supervisor
//     keeps it running: restarts with backoff, the crash-loop limit, stops
//     with escalating signals. config.go checks a configuration in one
//     place (Config.Validate, a ConfigError naming the field); reload.go
//     applies a new one.
//   - Package internal/apiwire is the API on the wire: invalid UTF-8 in a
//     request is INVALID_ARGUMENT naming the field, and field names in
//     errors are spelled as the caller's language spells them.
//   - Package internal/fanout is everything of one child that is not a
//     call of its own: the notifications no call claims, fanned out to
//     Subscribe streams and tunnels (those a caller's calls caused to that
//     caller alone), a legacy child's resource subscriptions, shared by
//     reference count, the requests a legacy child sends, routed to a
//     tunnel or to the streams that opted in, a 2026 child's
//     subscriptions/listen streams, shared among the Subscribe streams
//     whose filters they cover, and a legacy child's logging level.
//
// A Service is safe for concurrent use. Every queue in it is bounded, and
// what happens when one is full is written where it is declared.
package bridge
