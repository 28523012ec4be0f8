package mcp

import (
	"context"

	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// Run serves s on the process's standard input and output, with the
// transport's defaults and s's Logger: it is [server.Run](ctx, s,
// server.Config{Logger: ...}), the one call a server's main makes after
// registering its tools, prompts and resources. It takes standard output
// first, so that a stray print lands on stderr; returns nil at stdin EOF,
// once every request is answered; and at SIGINT or SIGTERM stops reading,
// gives the requests in flight 3 s to finish and returns nil, while a
// second signal ends the process at once. Anything printed to standard
// output before Run was called has already reached the client: a main that
// may print first calls [server.TakeStdout] before it, and Run serves on
// the descriptor taken then.
//
// To set the transport's limits (concurrency, request deadline, shutdown
// grace), call server.Run with a [server.Config] instead.
func (s *Server) Run(ctx context.Context) error {
	return server.Run(ctx, s, server.Config{Logger: s.log})
}
