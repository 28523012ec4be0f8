// Package mcp is the MCP runtime of mcpbridge's stdio server: it turns
// tools, resources, prompts and completions written in Go into an MCP
// server that speaks every protocol era at once, served on stdin and
// stdout by [stdio.Serve].
package mcp
