package stdio

// This file answers the requests a child sends to its client (sampling,
// elicitation, roots, ping): docs/stdio.md, "Server-to-client requests".

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// ServerRequest is a request the child sent to the client.
type ServerRequest struct {
	// ID is the child's id, kept byte for byte; the answer echoes it.
	ID json.RawMessage
	// Method is the request's method, e.g. "sampling/createMessage".
	Method string
	// Params is the request's params as sent, nil when absent.
	Params json.RawMessage
}

// serverRequest handles a request from the child (docs/stdio.md,
// "Server-to-client requests"). It runs on the reader and never blocks:
// handlers run in goroutines of their own, and the reader's own answers go
// through the bounded replies queue.
func (c *Client) serverRequest(m *wire.Message) {
	id := owned(m.ID, false)
	if m.Method == "ping" {
		c.reply(wire.AppendResponse(nil, id, json.RawMessage(`{}`)))
		return
	}
	key := string(id)
	limit := c.cfg.MaxServerRequests
	c.mu.Lock()
	switch _, dup := c.handlers[key]; {
	case c.err != nil:
		c.mu.Unlock()
		return // closed: answers are no longer written
	case dup:
		c.mu.Unlock()
		c.reply(wire.AppendError(nil, id, (*wire.Error)(jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Duplicate server request id"))))
		return
	case c.cfg.OnServerRequest == nil:
		c.mu.Unlock()
		c.reply(wire.AppendError(nil, id, (*wire.Error)(jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s", m.Method))))
		return
	case c.running >= limit:
		c.mu.Unlock()
		c.reply(wire.AppendError(nil, id, (*wire.Error)(jsonrpc.WithData(jsonrpc.CodeInternalError,
			fmt.Sprintf("Too many server requests in flight (%d)", limit),
			map[string]any{"retryable": true, "limit": limit}))))
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.handlers[key] = cancel
	c.running++
	c.mu.Unlock()
	req := ServerRequest{ID: id, Method: m.Method, Params: owned(m.Params, m.Dirty)}
	go c.runHandler(ctx, cancel, key, req)
}

// reply queues one of the reader's own answers. The queue is bounded; a
// child that floods requests faster than its stdin drains loses answers,
// with a warning, rather than stalling the reader.
func (c *Client) reply(buf []byte) {
	select {
	case c.replies <- buf:
	default:
		c.log.Warn("stdio: dropped an answer to a server request: the server is not reading its input")
	}
}

// runHandler runs OnServerRequest and writes its answer, unless the request
// was cancelled or the connection ended meanwhile. Its goroutine is started
// by the reader and not awaited: it ends when the handler returns.
func (c *Client) runHandler(ctx context.Context, cancel context.CancelFunc, key string, req ServerRequest) {
	defer cancel()
	result, err := safeHandler(ctx, c.cfg.OnServerRequest, req)
	c.mu.Lock()
	c.running--
	_, current := c.handlers[key]
	if current {
		delete(c.handlers, key)
	}
	c.mu.Unlock()
	if !current || ctx.Err() != nil {
		return // cancelled by the child, or the connection ended
	}
	var buf []byte
	var e *jsonrpc.Error
	var panicked *PanicError
	switch {
	case err == nil:
		out, cerr := rawjson.Compact(result)
		if cerr != nil {
			c.log.Error("stdio: server request handler returned invalid JSON", "method", req.Method, "error", cerr)
			buf = wire.AppendError(nil, req.ID, (*wire.Error)(jsonrpc.Errorf(jsonrpc.CodeInternalError, "Server request handler returned an invalid result")))
		} else {
			buf = wire.AppendResponse(nil, req.ID, out)
		}
	case errors.As(err, &panicked):
		c.log.Error("stdio: server request handler panicked", "method", req.Method, "panic", panicked.Value, "stack", string(panicked.Stack))
		buf = wire.AppendError(nil, req.ID, (*wire.Error)(jsonrpc.Errorf(jsonrpc.CodeInternalError, "Server request handler panicked")))
	case errors.As(err, &e):
		buf = wire.AppendError(nil, req.ID, &wire.Error{Code: e.Code, Message: e.Message, Data: e.Data})
	default:
		c.log.Error("stdio: server request handler failed", "method", req.Method, "error", err)
		buf = wire.AppendError(nil, req.ID, (*wire.Error)(jsonrpc.Errorf(jsonrpc.CodeInternalError, "Server request handler failed")))
	}
	select {
	case c.writes <- &frame{buf: buf}:
	case <-c.closing:
	}
}

func safeHandler(ctx context.Context, h func(context.Context, ServerRequest) (json.RawMessage, error), req ServerRequest) (result json.RawMessage, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: stack()}
		}
	}()
	return h(ctx, req)
}

func stack() []byte { return debug.Stack() }

// cancelServerRequest handles the child's notifications/cancelled for one
// of its own requests: the handler's ctx ends and no answer is written.
func (c *Client) cancelServerRequest(target json.RawMessage) bool {
	if target == nil {
		return false
	}
	c.mu.Lock()
	cancel, ok := c.handlers[string(target)]
	if ok {
		delete(c.handlers, string(target))
	}
	c.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}
