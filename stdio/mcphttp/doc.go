// Package mcphttp serves stdio MCP connections over Streamable HTTP, in
// both protocol eras, for remote MCP hosts: the bridge's /mcp endpoints
// (docs/operations.md, "HTTP"), and any stdio server given as argv
// ([Command]), which is how the official conformance suite scores one
// (docs/testing.md, "The HTTP adapter").
//
// # The adapter
//
// [New] returns an [Adapter], an [http.Handler] for [Endpoint] ("/mcp",
// the default server) and Endpoint/NAME (the server NAME). Config.Start
// or Config.Open opens each connection it needs. A [StartFunc] returns a
// stdio.Client: [Command] runs a child process. An [OpenFunc] returns a
// raw [Conn], which carries whole JSON-RPC messages: the bridge's opens a
// session in process (bridge.Service.Open), with the credentials of the
// request that needs it, and the adapter speaks JSON-RPC on it itself, as
// a Client would (its own ids, a 2025 session's under the client's own,
// cancellations with the client's reason, the server's requests, listens),
// with no line encoding and no Client's goroutines in between: what
// reaches the server is the same either way. Config.Caller names a request's
// caller (the bridge hashes its credentials): a 2025 session answers only
// the caller that opened it, and 2026 requests share connections only within
// a caller and server.
//
// A request whose Origin is neither a loopback origin nor one of
// Config.Origins gets 403, and so, unless Config.AnyHost, does one whose
// Host is not a loopback name: the transport's rule against DNS rebinding.
//
// Each POST is routed to one of two eras:
//
//   - 2025 sessions. An initialize request without 2026 _meta opens a
//     connection of its own and a session named by the Mcp-Session-Id of
//     the response; later requests carrying that header go to that
//     connection. Messages pass verbatim apart from their ids, which the
//     connection makes unique and the adapter restores. A request's progress
//     goes, by its token, to its own POST stream; the server's requests
//     (sampling, elicitation, roots) and its logs go to the newest POST in
//     flight (else the GET stream); a request whose stream ends before it
//     was written goes out on another, and one that was written waits for
//     the client's answer however long its stream lasts (a task's question
//     may come while a short tasks/get is the newest POST); other
//     notifications go to the session's GET stream. A client
//     that leaves does not cancel its request (the 2025 rule);
//     notifications/cancelled does. Streams advise a retry delay but
//     replay nothing. DELETE ends the session.
//   - 2026-07-28, stateless: everything else. MCP-Protocol-Version must equal
//     the body's _meta protocolVersion, and Mcp-Method and Mcp-Name must match
//     the body (the =?base64?…?= form decoded), or the answer is 400 with
//     -32020; so must the Mcp-Param-* headers of a tools/call, once a
//     forwarded tools/list has shown the tool's x-mcp-header annotations.
//     Error responses map to HTTP status: -32601 to 404; -32602,
//     -32020, -32021 and -32022 to 400. Progress rides the request's SSE
//     stream, subscriptions/listen streams their events with the client's id
//     restored as the subscription id, and a client that closes its stream
//     cancels the request (notifications/cancelled to the server). GET and
//     DELETE without a session are 405.
//
// A successful result is sent as an SSE stream when the client accepts one,
// and an error that nothing preceded as application/json with its status.
// A StartFunc's [HTTPError] is answered with its own status (401, 403, 404,
// 429, 503).
//
// Connections are bounded (Config.MaxSessions counts sessions and callers'
// 2026 connections; 503 beyond) and ended after Config.IdleTimeout without a
// request or an open stream.
//
// # Transparency
//
// The adapter validates only what belongs to HTTP and forwards everything
// else for the server to judge: a request with a missing or odd _meta
// reaches the server unchanged and gets the server's own answer. That is
// why a caller's 2026 traffic may use two connections:
//
//   - the shared one, through a Client connected at 2026-07-28, which alone
//     can open subscriptions/listen streams. It serves every request whose
//     _meta is complete (protocolVersion 2026-07-28, clientCapabilities and
//     clientInfo), so that tool calls and the list_changed events they cause
//     meet on one connection;
//   - the verbatim one, through a raw Client, opened on first use. It serves
//     requests whose _meta the connected Client would rewrite (it stamps
//     missing keys and refuses another version or a method removed in 2026
//     locally). A 2026 server must infer nothing from earlier requests, so
//     which connection answers does not change the answer.
//
// A listen's own _meta cannot be forwarded: [stdio.Client.Listen] stamps the
// _meta of the connection. On raw connections ([OpenFunc]) the same two
// connections are opened, and the adapter stamps a listen as the connected
// Client would.
package mcphttp
