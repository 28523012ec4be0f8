// Package stdio is the client side of MCP over pipes: it runs a stdio MCP
// server as a child process and talks newline-delimited JSON-RPC 2.0 with
// it over the child's stdin and stdout. The gRPC bridge keeps one [Client]
// per child, shared by all its callers; docs/stdio.md is the contract.
//
//	start := func(ctx context.Context) (*stdio.Client, error) {
//		cmd := exec.Command("npx", "-y", "@modelcontextprotocol/server-everything")
//		return stdio.Start(ctx, cmd, stdio.ClientConfig{})
//	}
//	c, err := stdio.Connect(ctx, start, stdio.ConnectConfig{})
//	...
//	res, err := c.Call(ctx, "tools/list", nil, nil)
//
// [Start] runs the child and returns a [Client] that any number of
// goroutines may share: [Client.Call] correlates responses by id, delivers
// progress to a per-call callback strictly before the result, enforces
// timeouts (sending notifications/cancelled to the child when it gives
// up), answers the child's own requests through
// [ClientConfig.OnServerRequest], and reads subscriptions/listen streams
// through [Client.Listen]. [Connect] adds version negotiation: a
// server/discover probe for 2026-07-28, else the initialize handshake of
// 2025-11-25 or 2025-06-18, and for a 2026-07-28 child the _meta every
// request must carry (docs/protocol.md, "Era detection").
//
// Failures are *jsonrpc.Error values (package
// [github.com/mcpbridge/mcpbridge/stdio/jsonrpc]): the child's own error
// responses with their code, message and data, and the client's own
// reports, -32000 when the connection ended ([ExitError] says how the
// child exited) and -32001 when a call timed out or was cancelled.
//
// The Client owns three goroutines (a reader of the child's stdout, a
// writer of its stdin and the sole caller of Wait) and never blocks the
// reader on a caller: every hand-off from the reader is a bounded queue
// whose overflow rule is documented where it is configured. It never
// restarts, signals or kills its child: [Client.Close] closes the child's
// stdin, and escalation ([Client.Signal]) is the caller's (the bridge's
// supervisor's) decision.
//
// The child leads a process group of its own. With [ClientConfig.Reaper]
// it runs under a reaper (package
// [github.com/mcpbridge/mcpbridge/stdio/reaper]), so that none of its
// descendants outlives it or the host, however the host dies; the program
// must call reaper.Main first thing in main.
//
// Decisions where the contract leaves room:
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
// The server side, which serves an MCP runtime on a process's own stdin
// and stdout, is package [github.com/mcpbridge/mcpbridge/stdio/server].
package stdio
