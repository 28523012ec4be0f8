package grpcdoor

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file is the one way from an RPC to a child: find the server the
// request names, take the request through the door (package internal/door), take the
// server's ready child, call it, and turn every failure into the status
// the gRPC client sees. The unary RPCs, Call, CallStream and
// CallToolStream start here; Subscribe and Connect find their server and
// pass the door themselves, since they stay open.

// route is one request on its way to a child: the server, the door's
// pass, the child that serves it and the child's era.
type route struct {
	s      *API
	srv    *pool.Server
	req    *door.Request
	pass   *door.Pass
	c      *pool.Process
	era    convert.Era
	method string
	// unfiltered leaves a list result as the child sent it, for a caller
	// that filters it itself (an aggregate's merge).
	unfiltered bool
}

// route finds the server the field names, admits req at the door and
// acquires the child. A path that has the params before the child's era
// is known (Call, CallStream) decodes req from them (newRequest); a typed
// RPC names req's target itself and sets the params it builds with
// setParams. A failure is already a status. The caller releases the route
// when it is done.
func (s *API) route(ctx context.Context, field string, req *door.Request) (*route, error) {
	srv, err := s.core.Lookup(ctx, field, req.Method)
	if err != nil {
		return nil, err
	}
	return s.routeTo(ctx, srv, req)
}

// routeTo is route on the server srv.
func (s *API) routeTo(ctx context.Context, srv *pool.Server, req *door.Request) (*route, error) {
	method := req.Method
	req.Server = srv.Door()
	ps, refused := s.core.Door().Admit(ctx, req)
	if refused != nil {
		return nil, refused.Status(req)
	}
	c, err := srv.Acquire(ctx, method)
	if err != nil {
		ps.Record(time.Now(), nil, err)
		ps.Release()
		return nil, err
	}
	return &route{s: s, srv: srv, req: req, pass: ps, c: c, era: convert.EraOf(c.Protocol()), method: method}, nil
}

// release gives back the route's places in the limits.
func (r *route) release() { r.pass.Release() }

// setParams records the params a typed RPC built, for the audit log's
// payloads and the observation of the call.
func (r *route) setParams(params json.RawMessage) { r.req.Params = params }

// callOptions bounds a child call by the gRPC deadline, or by the default
// deadline when there is none, never beyond the maximum: the server's, or
// the tool's for a tools/call of a tool with deadlines of its own. A gRPC
// deadline is cut by deadlineMargin, so that the bridge's own
// DEADLINE_EXCEEDED, with its JsonRpcError, reaches the caller before the
// transport's deadline fires: when grpc-go's server-side timer fires
// first it resets the stream, and a client whose own timer has not yet
// fired sees CANCELLED without details.
func (r *route) callOptions(ctx context.Context) *stdio.CallOptions {
	d := pool.DeadlinesOf(r.srv.Config(), r.req.Tool())
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		return &stdio.CallOptions{Timeout: max(min(left-deadlineMargin(left), d.Max), time.Millisecond)}
	}
	return &stdio.CallOptions{Timeout: d.Default}
}

// deadlineMargin is how much earlier than its gRPC deadline a call is
// ended by the bridge: a tenth of the time left, at least 20 ms (a few
// round trips on most networks) and at most 250 ms, enough for the status
// to be written and read on a busy machine.
func deadlineMargin(left time.Duration) time.Duration {
	return min(max(left/10, 20*time.Millisecond), 250*time.Millisecond)
}

// call sends the route's request to the child, counted in flight on its
// relay (server-request routing needs the count), with the RPC's deadline
// when opts is nil. A failure is already a status.
func (r *route) call(ctx context.Context, params json.RawMessage, opts *stdio.CallOptions) (json.RawMessage, error) {
	defer r.c.Relay.Enter(ctx)()
	return r.callCounted(ctx, params, opts)
}

// callCounted is call for a caller that already counts the call in flight
// (a stream registered with the child's relay).
func (r *route) callCounted(ctx context.Context, params json.RawMessage, opts *stdio.CallOptions) (json.RawMessage, error) {
	defer r.release()
	if opts == nil {
		opts = r.callOptions(ctx)
	}
	start := time.Now()
	res, err := r.pass.Call(ctx, r.c.Client, params, opts, false)
	if err != nil {
		err = r.srv.Failure(r.c, r.method, err)
	}
	r.pass.Record(start, res, err)
	if err != nil {
		return nil, err
	}
	if r.unfiltered {
		return res, nil
	}
	return r.s.core.Door().FilterList(ctx, r.srv.Name(), r.method, res), nil
}

// invalid refuses bad input from the gRPC client; nothing reaches the
// child.
func (r *route) invalid(err error) error {
	return rpcerr.ToStatus(r.srv.Name(), r.method, rpcerr.InvalidInput(r.srv.Name(), r.method, "%v", err))
}

// badResult reports a child result that the typed response cannot hold:
// INTERNAL, with the reason in the JsonRpcError's data. Call returns such
// a result as JSON.
func (r *route) badResult(err error) error {
	e := jsonrpc.WithData(jsonrpc.CodeInternalError, "The MCP server's result does not fit the typed response; Call returns it as JSON",
		map[string]string{"error": err.Error()})
	return rpcerr.ToStatus(r.srv.Name(), r.method, &rpcerr.CallError{RPC: e})
}

// typedExpansion bounds how much larger than its JSON a typed response
// can be: a JSON array of small numbers becomes Struct values of about
// six times its size. Results below MaxMessageBytes/typedExpansion cannot
// reach the limit and are not measured.
const typedExpansion = 8

// fits refuses a typed response over the gRPC message limit, which grpc
// would otherwise fail with a bare RESOURCE_EXHAUSTED after the work was
// done: RESOURCE_EXHAUSTED, reason TOO_LARGE, pointing to Call, whose JSON
// result is smaller. raw is the child's result it was decoded from.
func (r *route) fits(raw json.RawMessage, out proto.Message) error {
	limit := r.s.core.MaxMessageBytes()
	if len(raw) < limit/typedExpansion {
		return nil
	}
	if size := proto.Size(out); size > limit {
		e := jsonrpc.WithData(jsonrpc.CodeInternalError,
			fmt.Sprintf("The typed response is %d bytes, over the %d-byte message limit; Call returns the result as JSON (%d bytes)", size, limit, len(raw)),
			map[string]int{"responseBytes": size, "limit": limit, "jsonBytes": len(raw)})
		e.Cause = stdio.ErrTooLarge
		return rpcerr.ToStatus(r.srv.Name(), r.method, &rpcerr.CallError{RPC: e})
	}
	return nil
}
