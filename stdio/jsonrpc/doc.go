// Package jsonrpc is the JSON-RPC 2.0 error of mcpbridge's stdio client,
// stdio server and MCP runtime: [Error], with the codes they produce and
// pass through.
//
// A client gets an *Error for every protocol failure (the child's own error
// responses, and the failures the client reports itself: a closed
// connection, a timeout); a server handler returns one to answer with that
// code, message and data. errors.Is matches by code.
package jsonrpc
