package mcphttp

import (
	"context"
	"net/http"
)

// This file is the raw connection a Config.Open opens ([Conn]); the
// adapter's JSON-RPC peer on it, and the link a backend speaks through
// (a Client or a raw one), are package internal/peer.

// Conn is a raw connection to an MCP server that carries whole JSON-RPC
// messages: an in-process session (the bridge's), or anything else that
// already frames its messages. The adapter does what a stdio.Client would
// do on it: it sends requests under ids of its own (a 2025 session's under
// the client's own when they are free), tells the server about requests it
// abandons, answers the server's requests through the client, and reads
// the server's messages on one goroutine.
type Conn interface {
	// Send hands the server one message: compact JSON, without a newline.
	// It may wait while the server is busy, and is called from several
	// goroutines at once. The adapter does not touch msg afterwards.
	Send(msg []byte) error
	// Recv returns the server's next message, which the caller may keep;
	// an error (io.EOF when it ended well) ends the connection. One
	// goroutine calls it.
	Recv() ([]byte, error)
	// Close ends the connection at once: Recv then returns an error. The
	// adapter closes every Conn it opened.
	Close() error
}

// OpenFunc is StartFunc for a raw connection: it opens a [Conn] to the
// server named server for the request r that needs it (first is that
// request's message, as the client sent it; it is sent again on the
// connection). ctx ends when the Adapter closes. An error of type
// *HTTPError is answered with its status; any other with a JSON-RPC error.
type OpenFunc func(ctx context.Context, r *http.Request, server string, first []byte) (Conn, error)
