// Command mcpbridge puts a gRPC front on a stdio MCP server.
//
//	mcpbridge [serve] [flags] [-- command [args...]]   the gRPC bridge (default)
//	mcpbridge demo                                      the built-in stdio MCP demo server
//
// With no command after --, serve fronts the built-in demo server, run as
// this binary's own demo subcommand. Run `mcpbridge serve -h` for flags.
package main

import (
	"fmt"
	"os"
)

func main() {
	args := os.Args[1:]
	cmd := "serve"
	if len(args) > 0 && (args[0] == "serve" || args[0] == "demo") {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "demo":
		err = runDemo(args)
	default:
		err = runServe(args)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpbridge:", err)
		os.Exit(1)
	}
}
