// Command mcpbridge puts a gRPC front on a stdio MCP server.
//
//	mcpbridge [serve] [flags] [-- command [args...]]   the gRPC bridge (default)
//	mcpbridge demo                                      the built-in stdio MCP demo server
//	mcpbridge connect [--addr host:port]                a stdio MCP server that is a remote bridge's Connect tunnel
//
// With no command after --, serve fronts the built-in demo server, run as
// this binary's own demo subcommand. Run `mcpbridge serve -h` for flags.
//
// Exit status: 0 after a graceful shutdown, 1 when serving failed, 2 for
// a mistake on the command line.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/mcpbridge/mcpbridge/stdio/reaper"
)

// usageError is a mistake on the command line.
type usageError struct {
	err     error
	printed bool // the flag package has already printed it, with the usage
}

func (e usageError) Error() string { return e.err.Error() }

func main() {
	// First: run as the reaper of a child when started as one, and
	// otherwise let serve run its children under reapers.
	reaper.Main()
	args := os.Args[1:]
	cmd := "serve"
	if len(args) > 0 && (args[0] == "serve" || args[0] == "demo" || args[0] == "connect") {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "demo":
		err = runDemo(args)
	case "connect":
		err = runConnect(args)
	default:
		err = runServe(args)
	}
	var usage usageError
	switch {
	case err == nil:
	case errors.As(err, &usage):
		if !usage.printed {
			fmt.Fprintf(os.Stderr, "mcpbridge %s: %v\nRun 'mcpbridge %s -h' for usage.\n", cmd, err, cmd)
		}
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "mcpbridge:", err)
		os.Exit(1)
	}
}
