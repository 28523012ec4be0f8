package main

import "errors"

// runDemo is `mcpbridge demo`, the built-in stdio MCP demo server.
func runDemo(args []string) error {
	return errors.New("the demo server is not built yet")
}
