// Package stdio is MCP over pipes: newline-delimited JSON-RPC 2.0 on a
// reader/writer pair, in both directions (STDIO.md). Framing, encoding and
// the input bounds live in the sub-package [github.com/mcpbridge/mcpbridge/stdio/jsonrpc],
// which both halves share.
//
// # Server side
//
// [Serve] serves a [Runtime] over one connection, normally the process's
// stdin and the descriptor [TakeStdout] reserves:
//
//	out, err := stdio.TakeStdout() // first thing in main
//	if err != nil { ... }
//	err = stdio.Serve(ctx, runtime, os.Stdin, out, stdio.ServerConfig{})
//
// The pieces fit as follows.
//
//   - [Serve] is the transport. Its coordinator owns framing and the
//     connection's state (requests and streams by id, the negotiated
//     version), serialises every write and never waits on a handler.
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
package stdio
