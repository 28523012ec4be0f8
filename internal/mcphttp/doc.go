// Package mcphttp serves a stdio MCP server over Streamable HTTP, so that
// tools which speak only HTTP, above all the official conformance suite, can
// score it. It is a test helper: it trusts its one client, binds nothing
// itself and keeps no state across restarts.
//
// # The adapter
//
// [New] returns an [Adapter], an [http.Handler] for the endpoint /mcp that
// runs the server given as argv through [stdio.Client]. Serve it on a
// loopback listener (httptest.NewServer, or net.Listen on 127.0.0.1:0): the
// adapter rejects a Host or Origin that is not localhost, 127.0.0.1 or [::1]
// with 403, as the transport's DNS-rebinding rule asks.
//
// Each POST is routed to one of two eras (docs/testing.md,
// "The HTTP adapter"):
//
//   - 2025 sessions. An initialize request without 2026 _meta starts a
//     child of its own and a session named by the Mcp-Session-Id of the
//     response; later requests carrying that header go to that child.
//     Messages pass verbatim apart from their ids, which the Client makes
//     unique and the adapter restores. A request's progress goes, by its
//     token, to its own POST stream; the child's requests (sampling,
//     elicitation, roots) and its logs go to the newest POST in flight; other
//     notifications go to the session's GET stream. A client that leaves
//     does not cancel its request (the 2025 rule); notifications/cancelled
//     does. Streams advise a retry delay but replay nothing. DELETE ends the
//     session.
//   - 2026-07-28, stateless: everything else. MCP-Protocol-Version must equal
//     the body's _meta protocolVersion, and Mcp-Method and Mcp-Name must match
//     the body (the =?base64?…?= form decoded), or the answer is 400 with
//     -32020; so must the Mcp-Param-* headers of a tools/call, once a
//     forwarded tools/list has shown the tool's x-mcp-header annotations.
//     Error responses map to HTTP status: -32601 to 404; -32602,
//     -32020, -32021 and -32022 to 400. Progress rides the request's SSE
//     stream, subscriptions/listen streams their events with the client's id
//     restored as the subscription id, and a client that closes its stream
//     cancels the request (notifications/cancelled to the child). GET and
//     DELETE without a session are 405.
//
// A successful result is sent as an SSE stream when the client accepts one,
// and an error that nothing preceded as application/json with its status.
//
// # Transparency
//
// The adapter exists to score the server behind it, so it validates only what
// belongs to HTTP and forwards everything else for the server to judge: a
// request with a missing or odd _meta reaches the server unchanged and gets
// the server's own answer. That is why 2026 traffic may use two children:
//
//   - the shared child, reached through a Client connected at 2026-07-28,
//     which alone can open subscriptions/listen streams. It serves every
//     request whose _meta is complete (protocolVersion 2026-07-28,
//     clientCapabilities and clientInfo), so that tool calls and the
//     list_changed events they cause meet on one process;
//   - the verbatim child, reached through a raw Client, started on first
//     use. It serves requests whose _meta the connected Client would rewrite
//     (it stamps missing keys and refuses another version or a method removed
//     in 2026 locally). A 2026 server must infer nothing from earlier
//     requests, so which process answers does not change the answer.
//
// A listen's own _meta cannot be forwarded: [stdio.Client.Listen] stamps the
// _meta of the connection.
//
// # The conformance harness
//
// [Score] serves an argv through an Adapter on loopback, runs the
// conformance CLI (the argv of [testkit.Conformance]) against it for one
// requirements set, and counts every check of every scenario from the
// checks.json files the CLI writes ([ParseResults]).
package mcphttp
