// Package server is the server side of MCP over pipes: [Serve] serves an
// MCP runtime over one newline-delimited JSON-RPC connection, normally the
// process's stdin and the descriptor [TakeStdout] reserves. The runtime is
// package [github.com/mcpbridge/mcpbridge/stdio/mcp]; docs/stdio.md is the
// contract.
//
// A server's main makes one call, [Run], which takes stdout, serves stdin
// and stdout, and ends at stdin EOF or, gracefully, at SIGINT or SIGTERM:
//
//	srv, err := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"}, mcp.Config{})
//	...
//	err = server.Run(ctx, srv, server.Config{RequestTimeout: time.Minute})
//
// or srv.Run(ctx) with the defaults. Serve is the same transport over any
// reader and writer:
//
//	out, err := server.TakeStdout() // first thing in main
//	...
//	err = server.Serve(ctx, srv, os.Stdin, out, server.Config{})
//
// The pieces fit as follows.
//
//   - [Run] is a process's life: stdout taken, signals caught, stdin
//     served until EOF or a signal, requests in flight given a grace.
//   - [Serve] is the transport. Its coordinator owns framing and the
//     connection's state (requests and streams by id, the negotiated
//     version), serialises every write (one frame per Write, one at a time,
//     each within WriteTimeout) and never waits on a handler.
//   - Its executor is the execution policy: bounded concurrency, a
//     bounded FIFO queue, a deadline per request counted from admission,
//     and cancellation, as [Config] sets them.
//   - [Runtime] is the MCP runtime it serves, an *mcp.Server, which owns
//     everything MCP: dialects, validation, result stamping, tools,
//     resources and prompts. What crosses between them, raw JSON, is
//     internal to this module.
//
// Bounds, all configurable in [Config]: an input line is at most 2,000,000
// bytes; 32 requests run and 256 wait; 32 listen streams are open, each
// with one event in flight; one frame is written at a time, within 5 s. Excess is refused with -32603 and
// {"retryable":true,"limit":N}; nothing queues without a bound.
package server
