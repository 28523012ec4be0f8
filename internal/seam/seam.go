// Package seam is the interface between the stdio transport (package
// stdio/server) and the MCP runtime it serves (package stdio/mcp), the one
// implementation of it. Neither is public API: programs serve an
// *mcp.Server with server.Run or server.Serve and never see this package.
// The split follows docs/stdio.md, "The runtime seam":
//
//   - The transport owns framing, ids, admission, concurrency, deadlines,
//     cancellation, progress frames, subscription ids and the order of
//     output. It knows nothing of MCP methods except the handful the wire
//     needs: initialize (to record the negotiated version),
//     notifications/initialized, notifications/cancelled and
//     subscriptions/listen.
//   - The runtime owns everything MCP: dialect selection and validation,
//     result stamping (resultType, serverInfo, ttlMs), tools, resources,
//     prompts and what a listen stream carries.
//
// Values cross the seam as raw JSON text (json.RawMessage). Text going in is
// valid and compact (the transport validated it); text coming back is
// validated and compacted again by the transport, so nothing the runtime
// returns can break a frame.
//
// The transport's Runtime is server.Runtime: NewSession(peer Peer) Session,
// called once per connection, before any input is read.
package seam

import (
	"context"
	"encoding/json"
	"errors"
)

// ErrCapacity reports a full bounded resource: the transport's executor
// refuses a request with it when every worker is busy and its queue is
// full, and the transport closes a [Source] refused over
// server.Config.MaxSubscriptions with it.
var ErrCapacity = errors.New("stdio: capacity exhausted")

// Session serves one connection. Serve calls Handle and Listen from
// executor workers, concurrently, up to the executor's MaxConcurrency at
// once; it calls Notify from its coordinator, one at a time and in input
// order; it calls Close once, when it returns.
type Session interface {
	// Handle answers one request. It runs under the executor's deadline:
	// ctx ends at the deadline, when the client cancels the request
	// (context.Cause(ctx) then wraps server.ErrCancelled and the reason), when
	// Serve stops, or when the executor closes. Whatever Handle returns
	// after that is discarded, but its executor slot stays taken until it
	// returns (docs/stdio.md, "Admission, ids and cancellation"), so
	// handlers should watch ctx.
	//
	// The result must be a JSON object; anything else, or invalid JSON,
	// becomes -32603 "Server produced an invalid result". An error that is
	// (or wraps) a *jsonrpc.Error is sent with its code, message and data;
	// any other error is logged and sent as -32603 "Internal error", without
	// detail. A panic is recovered and logged with its stack, and -32603
	// "Request worker failed" is sent.
	//
	// Handle receives every request except subscriptions/listen, initialize
	// and ping included: era and method validation are the runtime's. When
	// an initialize result carries a string protocolVersion, Serve records
	// it as the connection's [Request.Version] for requests admitted after
	// that response is written.
	Handle(ctx context.Context, req *Request) (json.RawMessage, error)

	// Listen opens the stream of a subscriptions/listen request
	// (2026-07-28; docs/protocol.md, "Listen"). Validation is the
	// runtime's: an error is sent to the listen id as Handle's errors are
	// (-32601 on a legacy connection or without any source, -32602 for a
	// bad filter, ...). ctx is Handle's ctx and bounds the opening only;
	// the Source outlives it.
	//
	// The executor slot is held only until Listen returns. Serve then
	// enforces Config.MaxSubscriptions, writes the acknowledgement and
	// only after that starts pulling events; a Source that Serve does not
	// keep (capacity, cancellation, EOF) is closed at once.
	Listen(ctx context.Context, req *Request) (Source, error)

	// Notify receives the client's notifications other than
	// notifications/initialized and notifications/cancelled, which Serve
	// handles itself (malformed notifications never get here). It is
	// called on Serve's coordinator, so it must return quickly and must not
	// wait for output: in particular it must not call the Peer or anything
	// that writes, or Serve deadlocks. Start a goroutine for such work.
	// ctx is Serve's.
	Notify(ctx context.Context, method string, params json.RawMessage)

	// ServerInfo returns the Implementation object ({name, version, ...})
	// that Serve puts in the terminal result of a listen stream that ended
	// normally:
	//
	//	{"resultType":"complete","_meta":{
	//	  "io.modelcontextprotocol/subscriptionId":X,
	//	  "io.modelcontextprotocol/serverInfo":INFO}}
	//
	// nil leaves the serverInfo key out. It may be called from any
	// goroutine.
	ServerInfo() json.RawMessage

	// Close ends the session. Serve calls it once, last, after its
	// coordinator has stopped and every handler has returned or been given
	// up on (a handler that ignores ctx may still be running).
	Close()
}

// Request is one JSON-RPC request as the runtime sees it. Serve makes a new
// one per admitted request; the runtime may keep it, and its slices, for as
// long as it likes.
type Request struct {
	// ID is the request's id as it was sent: a string of at most 256 bytes
	// or an int64 integer, JSON type kept ("1" and 1 differ).
	ID json.RawMessage
	// Method is the decoded method name.
	Method string
	// Params is the compact params text, or nil when absent. It is not
	// guaranteed to be an object: checking that is the runtime's job.
	Params json.RawMessage
	// Version is what an HTTP request would carry as MCP-Protocol-Version.
	// On stdio it is the protocolVersion of the connection's last
	// successful initialize result, recorded when that response was
	// written, or "" before any (docs/stdio.md, "Dialects"). It is never
	// derived from _meta: a 2026-07-28 request carries its version in its
	// own params.
	Version string
	// Progress reports progress for this request. It is nil unless the
	// request carried a valid _meta.progressToken; a nil reporter's Report
	// does nothing, so callers need not check. subscriptions/listen never
	// gets one.
	Progress *ProgressReporter
	// Notify writes a notification scoped to this request (for example
	// notifications/message in reply to a request that set a log level).
	// It returns once the frame is written, so every notification precedes
	// the request's response. After the request's outcome (its response,
	// its cancellation, its deadline) it writes nothing and returns an
	// error. params must be a JSON value or nil; it is never given _meta.
	// It waits at most 5 s for its turn to be written.
	Notify func(ctx context.Context, method string, params json.RawMessage) error
}

// Peer reaches the client of a connection, for what legacy (2025) MCP sends
// outside any request: server-to-client requests and unsolicited
// notifications. A Peer is safe for concurrent use; it must not be used
// from Session.Notify.
type Peer interface {
	// Call sends a server-to-client request (sampling/createMessage,
	// elicitation/create, roots/list, ping) and waits for the client's
	// response. Serve mints the id (an integer, unique on the connection)
	// and routes the client's response line back by it. A JSON-RPC error
	// response is returned as a *jsonrpc.Error. When ctx ends first, Call
	// returns ctx.Err() and a late response is dropped; Serve does not send
	// notifications/cancelled. After input EOF, or once Serve has stopped,
	// Call fails with a local -32000 "Connection closed" *jsonrpc.Error.
	Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	// Notify writes an unsolicited notification
	// (notifications/tools/list_changed, notifications/resources/updated,
	// ...) and returns once it is written, or with an error when ctx ends
	// before its turn, when params is not valid JSON, or once Serve has
	// stopped.
	Notify(ctx context.Context, method string, params json.RawMessage) error
}

// Source is the event stream behind one subscriptions/listen request
// (docs/stdio.md, "Listen streams"). Serve pulls it from one goroutine, one
// event at a time, asking for the next event only once the previous one has
// been written.
type Source interface {
	// Accepted returns the notifications filter the runtime honours, which
	// is the subset of the requested one that the server supports. Serve
	// sends it in notifications/subscriptions/acknowledged, before the
	// first call to Next. nil sends {}.
	Accepted() json.RawMessage
	// Next blocks until the next event and returns its notification method
	// and params (a JSON object, or nil). Serve adds
	// _meta["io.modelcontextprotocol/subscriptionId"] to params, keeping any
	// other _meta keys. io.EOF ends the stream normally: Serve answers the
	// listen request with the complete result (see Session.ServerInfo). Any
	// other error, a panic, or params that are not an object, ends it with
	// -32603 "Subscription source failed". Next must return promptly once
	// ctx ends.
	Next(ctx context.Context) (method string, params json.RawMessage, err error)
	// Close releases the source. Serve calls it exactly once, never
	// concurrently with Next. reason says why: the error that ended Next
	// (io.EOF at a normal end); a cancellation by the client (wrapping
	// server.ErrCancelled and its reason); io.EOF when the input ended; an
	// output failure (wrapping server.ErrOutputFailed); ctx.Err() when
	// Serve's ctx ended; [ErrCapacity] when MaxSubscriptions refused the
	// stream.
	Close(reason error)
}
