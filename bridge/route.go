package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file is the one way from an RPC to a child: find the server the
// request names, take its ready child, call it, and turn every failure
// into the status the gRPC client sees. Every RPC handler starts here.

// route is one request on its way to a child: the server, the child that
// serves it and the child's era.
type route struct {
	s      *Service
	srv    *upstream
	c      *child
	era    convert.Era
	method string
}

// route finds and acquires the child for a request. A failure is already
// a status.
func (s *Service) route(ctx context.Context, field, method string) (*route, error) {
	srv, err := s.lookup(ctx, field, method)
	if err != nil {
		return nil, err
	}
	c, err := srv.acquire(ctx, method)
	if err != nil {
		return nil, err
	}
	return &route{s: s, srv: srv, c: c, era: convert.EraOf(c.Protocol()), method: method}, nil
}

// callOptions bounds a child call by the gRPC deadline, or by the default
// deadline when there is none, never beyond the maximum: the server's, or
// the tool's for a tools/call of a tool with deadlines of its own. A gRPC
// deadline is cut by deadlineMargin, so that the bridge's own
// DEADLINE_EXCEEDED, with its JsonRpcError, reaches the caller before the
// transport's deadline fires: when grpc-go's server-side timer fires
// first it resets the stream, and a client whose own timer has not yet
// fired sees CANCELLED without details.
func (r *route) callOptions(ctx context.Context, params json.RawMessage) *stdio.CallOptions {
	d := r.srv.cfg.deadlines(toolName(r.method, params))
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		return &stdio.CallOptions{Timeout: max(min(left-deadlineMargin(left), d.Max), time.Millisecond)}
	}
	return &stdio.CallOptions{Timeout: d.Default}
}

// toolName is the tool a tools/call names, "" for any other request.
func toolName(method string, params json.RawMessage) string {
	if method != "tools/call" {
		return ""
	}
	raw, _ := rawjson.Member(params, "name")
	name, _ := rawjson.StringValue(raw)
	return name
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
	defer r.c.relay.enter(ctx)()
	return r.callCounted(ctx, params, opts)
}

// callCounted is call for a caller that already counts the call in flight
// (a stream registered with the child's relay).
func (r *route) callCounted(ctx context.Context, params json.RawMessage, opts *stdio.CallOptions) (json.RawMessage, error) {
	if err := r.s.authorizeCall(ctx, r.srv.name, r.method, params); err != nil {
		r.s.audit(ctx, r.srv, "grpc", r.method, params, time.Now(), nil, err) // a denied attempt is on the record too
		return nil, err
	}
	release, wait, ok := r.srv.limiter.admit(ctx, true)
	if !ok {
		return nil, exhausted(r.srv.name, r.method, wait)
	}
	defer release()
	if opts == nil {
		opts = r.callOptions(ctx, params)
	}
	op := r.s.obs.begin(ctx, r.srv.name, r.c, r.method, params, false)
	start := time.Now()
	res, err := r.c.Call(ctx, r.method, params, op.options(opts))
	op.end(res, err)
	if err != nil {
		err = r.srv.failure(r.c, r.method, err)
	}
	r.s.audit(ctx, r.srv, "grpc", r.method, params, start, res, err)
	if err != nil {
		return nil, err
	}
	return r.s.filterList(ctx, r.srv.name, r.method, res), nil
}

// invalid refuses bad input from the gRPC client; nothing reaches the
// child.
func (r *route) invalid(err error) error {
	return toStatus(r.srv.name, r.method, invalidInput(r.srv.name, r.method, "%v", err))
}

// badResult reports a child result that the typed response cannot hold:
// INTERNAL, with the reason in the JsonRpcError's data. Call returns such
// a result as JSON.
func (r *route) badResult(err error) error {
	e := jsonrpc.WithData(jsonrpc.CodeInternalError, "The MCP server's result does not fit the typed response; Call returns it as JSON",
		map[string]string{"error": err.Error()})
	return toStatus(r.srv.name, r.method, &callError{rpc: e})
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
	limit := r.s.cfg.MaxMessageBytes
	if len(raw) < limit/typedExpansion {
		return nil
	}
	if size := proto.Size(out); size > limit {
		e := jsonrpc.WithData(jsonrpc.CodeInternalError,
			fmt.Sprintf("The typed response is %d bytes, over the %d-byte message limit; Call returns the result as JSON (%d bytes)", size, limit, len(raw)),
			map[string]int{"responseBytes": size, "limit": limit, "jsonBytes": len(raw)})
		e.Cause = stdio.ErrTooLarge
		return toStatus(r.srv.name, r.method, &callError{rpc: e})
	}
	return nil
}
