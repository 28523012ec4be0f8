package server

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file is the server's way back to the client (Peer in docs/stdio.md,
// "The runtime seam"): server-to-client requests with Serve-owned ids,
// their responses, and unsolicited notifications.

// servePeer is the Peer that Serve gives to Runtime.NewSession.
type servePeer struct{ c *serveConn }

// callResult is the client's answer to a server-to-client request.
type callResult struct {
	result json.RawMessage
	err    error
}

// peerClosed is the local error of Peer calls that can no longer be
// answered. It never goes on the wire.
func peerClosed() *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Connection closed"}
}

func (p servePeer) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	c := p.c
	if params != nil {
		var err error
		if params, err = rawjson.Compact(params); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "Parse error", Cause: err}
		}
	}
	id := c.callSeq.Add(1)
	res := make(chan callResult, 1) // the coordinator never blocks on it
	fr := &frameReq{kind: frameCall, callID: id, callRes: res,
		frame: wire.AppendRequest(nil, strconv.AppendInt(nil, id, 10), method, params)}
	if err := c.sendWithin(ctx, fr, 0); err != nil {
		if errors.Is(err, errServeStopped) {
			return nil, peerClosed()
		}
		return nil, err
	}
	select {
	case r := <-res:
		return r.result, r.err
	case <-ctx.Done():
		// Forget the id so that a late response is dropped. Serve sends no
		// notifications/cancelled (docs/stdio.md, "The runtime seam").
		_ = c.sendWithin(context.Background(), &frameReq{kind: frameForget, callID: id}, 0)
		return nil, ctx.Err()
	case <-c.done:
		select {
		case r := <-res:
			return r.result, r.err
		default:
			return nil, peerClosed()
		}
	}
}

func (p servePeer) Notify(ctx context.Context, method string, params json.RawMessage) error {
	frame, err := notifyFrame(method, params)
	if err != nil {
		return err
	}
	err = p.c.sendWithin(ctx, &frameReq{kind: frameNotify, frame: frame}, 0)
	if errors.Is(err, errServeStopped) {
		return peerClosed()
	}
	return err
}

// response routes a client response to the server-to-client request it
// answers; responses to unknown or abandoned ids are dropped (coordinator).
func (c *serveConn) response(m *wire.Message) {
	ch := c.takeCall(m.ID)
	if ch == nil {
		return
	}
	switch {
	case m.HasResult() && !m.HasError():
		ch <- callResult{result: m.Result}
	case m.HasError() && !m.HasResult():
		if e, ok := wire.DecodeError(m.Error); ok {
			ch <- callResult{err: (*jsonrpc.Error)(e)}
			return
		}
		fallthrough
	default:
		ch <- callResult{err: jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "Invalid JSON-RPC response")}
	}
}

// badResponse fails the request that a malformed response line answers, if
// its id is readable; such lines are never answered.
func (c *serveConn) badResponse(m *wire.Message) {
	if ch := c.takeCall(m.ID); ch != nil {
		ch <- callResult{err: jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "Invalid JSON-RPC response")}
	}
}

func (c *serveConn) takeCall(id json.RawMessage) chan callResult {
	n, ok := wire.IntID(id)
	if !ok {
		return nil
	}
	ch := c.calls[n]
	delete(c.calls, n)
	return ch
}

// failCalls fails every pending server-to-client request: after input EOF,
// or when Serve stops, no response can arrive (coordinator).
func (c *serveConn) failCalls() {
	for id, ch := range c.calls {
		ch <- callResult{err: peerClosed()}
		delete(c.calls, id)
	}
}
