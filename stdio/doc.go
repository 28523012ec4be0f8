// Package stdio is MCP over pipes: newline-delimited JSON-RPC 2.0 between a
// host and a stdio MCP server, both halves.
//
// # Client side
//
// [Start] runs one stdio MCP server as a child process and returns a
// [Client] that any number of goroutines may share: [Client.Call] correlates
// responses by id, delivers progress to a per-call callback strictly before
// the result, enforces timeouts (sending notifications/cancelled to the
// child when it gives up), answers the child's own requests through
// [ClientConfig.OnServerRequest], and reads subscriptions/listen streams
// through [Client.Listen]. [Connect] adds version negotiation: a
// server/discover probe for 2026-07-28, else the initialize handshake of
// 2025-11-25 or 2025-06-18, and for a 2026-07-28 child the _meta every
// request must carry.
//
// The Client owns three goroutines (a reader of the child's stdout, a
// writer of its stdin and the sole caller of Wait) and never blocks the
// reader on a caller: every hand-off from the reader is a bounded queue
// whose overflow rule is documented where it is configured. It never
// restarts, signals or kills its child: [Client.Close] closes the child's
// stdin, and escalation ([Client.Signal]) is the caller's (the bridge's
// supervisor's) decision.
//
// Decisions where the contract (STDIO.md) leaves room:
//
//   - Call takes params that are a JSON object (or nil); anything else is
//     refused with -32602 before anything is written, since every MCP
//     params value is an object.
//   - After Connect, methods that exist only in the other era
//     (server/discover on a legacy child; initialize, ping,
//     logging/setLevel, resources/subscribe on a 2026 child, …) are refused
//     locally with -32601. Unknown methods pass through: servers may have
//     their own.
//   - A line that is not JSON-RPC during the probe is skipped like any
//     other (it may be a start-up banner); the probe then ends by its
//     timeout, and the legacy fallback starts a fresh child.
//   - Results are returned as compact JSON: a child's line with
//     insignificant whitespace or invalid UTF-8 is rewritten (whitespace
//     dropped, invalid bytes as \ufffd); everything else is passed through
//     byte for byte.
//   - Progress for a token the Client issued but no longer waits for is
//     dropped silently; progress with a token it never issued goes to
//     OnNotification.
//
// # Server side
//
// [Serve] serves a [Runtime] over one connection, normally the process's
// stdin and the descriptor [TakeStdout] reserves:
//
//	out, err := server.TakeStdout() // first thing in main
//	if err != nil { ... }
//	err = server.Serve(ctx, runtime, os.Stdin, out, server.Config{})
//
// The pieces fit as follows.
//
//   - [Serve] is the transport. Its coordinator owns framing and the
//     connection's state (requests and streams by id, the negotiated
//     version), serialises every write (one frame per Write, one at a time,
//     each within WriteTimeout) and never waits on a handler.
//   - [Executor] is the execution policy: bounded concurrency, a bounded
//     FIFO queue, a deadline per request counted from admission, and
//     cancellation. It is transport-neutral and may be shared.
//   - [Runtime], [Session], [Request], [Peer], [Source] and
//     [ProgressReporter] are the seam to the MCP runtime (package
//     stdio/mcp), which owns everything MCP: dialects, validation, result
//     stamping, tools, resources and prompts. The seam passes raw JSON.
//
// Bounds, all configurable in [ServerConfig] or [ExecutorConfig]: an input
// line is at most 2,000,000 bytes; 32 requests run and 256 wait; 32
// listen streams are open, each with one event in flight; one frame is
// written at a time, within 5 s. Excess is refused with -32603 and
// {"retryable":true,"limit":N}; nothing queues without a bound.
//
// The JSON-RPC message model, framing, line limits and encoder shared by
// both halves are in package [github.com/mcpbridge/mcpbridge/stdio/jsonrpc].
package stdio
