// Package sidebysidetest holds one small MCP server written twice, once with
// each Go library, so that the two can be compared line for line, request
// for request, and held to the same behaviour (docs/server.md, "Side by side
// with the Go SDK"):
//
//   - sdk/main.go, with the official Go SDK
//     (github.com/modelcontextprotocol/go-sdk) as its documentation shows:
//     typed handlers and mcp.AddTool, schemas from jsonschema tags;
//   - mcpbridge/main.go, with this project's runtime (stdio/mcp) and
//     Server.Run. For now it is a placeholder written with the runtime's
//     raw API, until the typed registration lands.
//
// Both serve, on stdin and stdout, in every era they speak:
//
//   - tool add(a, b int) -> {sum}: structuredContent {"sum":a+b} and the
//     same JSON as a text block, with an output schema;
//   - tool greet(name string, formal? bool) -> "Hello, <name>!" or, formal,
//     "Good day, <name>.";
//   - tool slow(steps 1..10) -> "done in <steps> steps", sleeping 1 ms per
//     step and reporting progress i of steps after each when the request
//     has a progress token; other step counts are a tool error (isError);
//   - prompt review(code, focus?) -> one user message, "Please review this
//     code[, looking at <focus>]:\n\n<code>"; without code, -32602;
//   - resource template note://{id}, text/plain: note://1 is "Buy milk",
//     note://2 "Call Ada", any other id is not found.
//
// [Build] builds either program for a test; testkit.CodeLines counts what
// the line counts of docs/server.md count. The tests here hold both servers to the list
// above through the project's stdio client; BenchmarkSideBySide in
// cmd/mcpbridge measures them.
package sidebysidetest
