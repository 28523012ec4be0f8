package server

import "github.com/mcpbridge/mcpbridge/internal/seam"

// Runtime is what [Serve] and [Run] serve: an MCP runtime, which owns
// everything MCP (dialects, validation, result stamping, tools, resources
// and prompts) while Serve owns the transport. Its one implementation is
// *mcp.Server (package [github.com/mcpbridge/mcpbridge/stdio/mcp]): the
// session it returns crosses a seam internal to this module
// (docs/stdio.md, "The runtime seam"), so a program passes an *mcp.Server
// and cannot implement Runtime itself.
//
// Serve calls NewSession once, before it reads any input, and serves that
// session until it returns. peer reaches the client on the other end; it
// stays usable until Serve returns.
type Runtime interface {
	NewSession(peer seam.Peer) seam.Session
}
