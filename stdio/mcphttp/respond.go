package mcphttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// responder writes one POST's answer: application/json for an error that
// nothing preceded, else an SSE stream (when the client accepts one) whose
// last event is the response. The first message decides, as the Go SDK's
// own HTTP server does; only the handler goroutine uses it.
type responder struct {
	w        http.ResponseWriter
	rc       *http.ResponseController
	modern   bool // 2026: errors get their HTTP status
	allowSSE bool
	sse      bool // the SSE stream has started
	failed   bool // a write failed: the client is gone

	req       *http.Request
	challenge func(*http.Request, *jsonrpc.Error) string // Config.Challenge
}

func (a *Adapter) newResponder(w http.ResponseWriter, r *http.Request, modern bool) *responder {
	return &responder{w: w, rc: http.NewResponseController(w), modern: modern, allowSSE: acceptsSSE(r.Header),
		req: r, challenge: a.cfg.Challenge}
}

// acceptsSSE reports whether the Accept header admits text/event-stream.
func acceptsSSE(h http.Header) bool {
	for _, v := range h.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "text/event-stream", "text/*", "*/*":
				return true
			}
		}
	}
	return false
}

// retryMs is the reconnection delay a 2025 SSE stream advises (the 2025-11-25
// transport's SHOULD). The adapter keeps no events to replay, so a client
// that reconnects gets a fresh stream; the hint only paces it.
const retryMs = 1000

// retryField is the retry field of retryMs, formatted once.
var retryField = []byte("retry: " + strconv.Itoa(retryMs) + "\n\n")

// The header values of an SSE response, shared by every response: never
// modified.
var (
	sseContentType  = []string{"text/event-stream"}
	sseCacheControl = []string{"no-cache, no-transform"}
	sseNoBuffering  = []string{"no"}
)

// startSSE writes the headers of an SSE response and, for a 2025 stream,
// the retry field, without flushing them: the first event flushes them
// with it, in one write.
func startSSE(w http.ResponseWriter, legacy bool) error {
	h := w.Header()
	// Assigned, not Set: the keys are canonical and the values shared
	// (net/http copies them when it writes the header), so that an event
	// stream's headers cost no allocation per response.
	h["Content-Type"] = sseContentType
	h["Cache-Control"] = sseCacheControl
	h["X-Accel-Buffering"] = sseNoBuffering
	w.WriteHeader(http.StatusOK)
	if legacy {
		if _, err := w.Write(retryField); err != nil {
			return err
		}
	}
	return nil
}

// writeEvent writes one message as an SSE event, and flushes it unless it
// is the response's last: the handler's return then sends it with the end
// of the body, in one write.
func writeEvent(w http.ResponseWriter, rc *http.ResponseController, msg []byte, last bool) error {
	buf := make([]byte, 0, len(eventHead)+len(msg)+2)
	return writeEventBuf(w, rc, append(append(buf, eventHead...), msg...), last)
}

// eventHead starts an SSE event of one message.
const eventHead = "event: message\ndata: "

// writeEventBuf is writeEvent of buf, which holds eventHead and the
// message; it appends the event's end.
func writeEventBuf(w http.ResponseWriter, rc *http.ResponseController, buf []byte, last bool) error {
	buf = append(buf, "\n\n"...)
	if _, err := w.Write(buf); err != nil || last {
		return err
	}
	return rc.Flush()
}

// event sends a message that precedes the response. Without SSE it cannot
// be delivered and is dropped.
func (r *responder) event(msg []byte) { r.send(msg, false) }

// send writes msg as an SSE event, flushed unless it is the last.
func (r *responder) send(msg []byte, last bool) {
	if r.startEvents() && writeEvent(r.w, r.rc, msg, last) != nil {
		r.failed = true
	}
}

// startEvents starts the SSE body unless it has started, and reports
// whether events can be sent.
func (r *responder) startEvents() bool {
	if r.failed || !r.allowSSE {
		return false
	}
	if !r.sse {
		r.sse = true
		if startSSE(r.w, !r.modern) != nil {
			r.failed = true
			return false
		}
	}
	return true
}

// final sends the response to id: result, or err when it is not nil.
func (r *responder) final(id, result json.RawMessage, err error) {
	if r.failed {
		return
	}
	if err == nil && r.allowSSE {
		// The result is the last event (finalFrame), built in its
		// event's place: one buffer.
		if r.startEvents() {
			buf := append(make([]byte, 0, len(eventHead)+len(id)+len(result)+64), eventHead...)
			if writeEventBuf(r.w, r.rc, trimLF(wire.AppendResponse(buf, id, result)), true) != nil {
				r.failed = true
			}
		}
		return
	}
	if err == nil {
		r.finalFrame(trimLF(wire.AppendResponse(nil, id, result)), nil)
		return
	}
	e := asError(err)
	r.finalFrame(errorFrame(id, e), e)
}

// finalFrame sends an encoded response; e is its error, nil for a result.
func (r *responder) finalFrame(msg []byte, e *jsonrpc.Error) {
	if r.sse || (r.allowSSE && e == nil) {
		r.send(msg, true)
		return
	}
	if e != nil && r.challenge != nil {
		if v := r.challenge(r.req, e); v != "" {
			r.w.Header().Set("WWW-Authenticate", v)
			writeJSON(r.w, http.StatusForbidden, msg)
			return
		}
	}
	status := http.StatusOK
	if r.modern && e != nil {
		status = statusOf(e.Code)
		if after, ok := retryAfterOf(e); ok {
			status = http.StatusTooManyRequests
			r.w.Header().Set("Retry-After", after)
		}
	}
	writeJSON(r.w, status, msg)
}

// retryAfterOf reads the wait of an error whose data has a retryAfterMs
// (the bridge's refusal by a caller's limits): a 2026 client gets it as
// 429 with Retry-After, in whole seconds rounded up.
func retryAfterOf(e *jsonrpc.Error) (string, bool) {
	raw, ok := rawjson.Member(e.Data, "retryAfterMs")
	if !ok {
		return "", false
	}
	ms, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || ms <= 0 {
		return "", false
	}
	return strconv.FormatInt((ms+999)/1000, 10), true
}

// statusOf maps a 2026 error code to its HTTP status (the 2026-07-28
// Streamable HTTP transport): an unknown method is 404, a request the server
// refuses as malformed, mismatched or unsupported is 400, and any other
// JSON-RPC error travels in a 200.
func statusOf(code int64) int {
	switch code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, jsonrpc.CodeHeaderMismatch, jsonrpc.CodeMissingCapability, jsonrpc.CodeUnsupportedVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// asError returns err as a JSON-RPC error; any other error becomes -32603.
func asError(err error) *jsonrpc.Error {
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		return jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error")
	}
	return e
}

// errorFrame encodes an error response without the error's local Cause.
func errorFrame(id json.RawMessage, err error) []byte {
	e := asError(err)
	return trimLF(wire.AppendError(nil, id, &wire.Error{Code: e.Code, Message: e.Message, Data: e.Data}))
}

// writeJSON writes one JSON-RPC message as the whole response.
func writeJSON(w http.ResponseWriter, status int, msg []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(msg)
}

func trimLF(b []byte) []byte { return bytes.TrimSuffix(b, []byte("\n")) }

func clone(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	return append(json.RawMessage(nil), raw...)
}
