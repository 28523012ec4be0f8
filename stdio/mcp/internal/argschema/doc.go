// Package argschema infers the JSON Schemas of the Go types that typed MCP
// registrations take (a tool's arguments, a prompt's, a template's
// variables, an elicitation form) and validates JSON against them,
// decoding it into the Go value in the same pass. Package mcp is its one
// user and exports its ValidationError and Violation.
package argschema
