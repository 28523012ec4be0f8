package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file is the door: the one pipeline that every request to a child
// passes, whatever path it came by (docs/architecture.md, "The door"):
// the typed RPCs, Call and CallStream, CallToolStream, Ping and GetServer,
// Subscribe's opening, Connect's opening and each request inside a
// Connect tunnel. A path decodes its request into a request value once,
// and the door then
//
//  1. authenticates: the caller's credentials still hold (reauth.go ends
//     a stream whose key was revoked or whose token expired; the door
//     refuses what such a stream still sends);
//  2. authorizes: the caller may use the server, and the tool, resource or
//     prompt the request names (access.Rules);
//  3. limits: the bridge-wide and the server's limits, per caller, the
//     same for a tunnel's requests as for unary calls;
//  4. records: every refusal is audited and counted, whatever the method;
//     an admitted call of an audited method is audited when it ends;
//  5. observes and calls: the request goes to the child counted in flight
//     on its relay (server requests and logs are attributed by that
//     count), in a client span, with the operation histogram.
//
// Paths differ only in how they decode the request and how they answer:
// a gRPC status (rpcerr.ToStatus) or a JSON-RPC error in a tunnel
// (rpcerr.CallError.RPC).

// Values of request.via: how a request reached the bridge.
const (
	viaGRPC    = "grpc"
	viaConnect = "connect"
)

// request is one request to a child as the door sees it, decoded once.
type request struct {
	via    string
	srv    *upstream
	method string          // the MCP method, or the RPC's name where it sends none (Connect, Subscribe)
	params json.RawMessage // as the caller sent it: it names the target and is what audit payloads record
	kind   access.Kind     // what names names
	names  []string        // the tools, resources or prompts the request is about
	long   bool            // a stream that stays open: it counts for the rate, not for the calls in flight
}

// newRequest decodes what an MCP request asks of srv from its params.
func newRequest(via string, srv *upstream, method string, params json.RawMessage) *request {
	kind, names := target(method, params)
	return &request{via: via, srv: srv, method: method, params: params, kind: kind, names: names}
}

// name is the first name the request is about, "" for none.
func (r *request) name() string {
	if len(r.names) == 0 {
		return ""
	}
	return r.names[0]
}

// Reasons a request is refused at the door, for its audit record and the
// refusals metric.
const (
	refusedUnauthenticated = "unauthenticated"
	refusedDenied          = "permission_denied"
	refusedLimited         = "limited"
)

// refusal is a request the door turned away: the error its path answers
// with and why.
type refusal struct {
	*rpcerr.CallError
	why string
}

// pass is an admitted request: it holds its places in the limits until
// it is released.
type pass struct {
	s    *Service
	req  *request
	ctx  context.Context
	once sync.Once
	held [2]func()
}

// admit takes req through authentication, authorization and the limits.
// A refused request is audited and counted here, and its error is the
// refusal; nothing of it reaches the child.
func (s *Service) admit(ctx context.Context, req *request) (*pass, *refusal) {
	if errors.Is(context.Cause(ctx), errRevoked) {
		return nil, s.refuse(ctx, req, refusedUnauthenticated, &rpcerr.CallError{
			RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Authentication required: the caller's credentials no longer hold"), Reason: rpcerr.ReasonUnauthenticated,
		})
	}
	acc := s.access()
	if len(acc.rules) > 0 {
		p := access.FromContext(ctx)
		if !acc.rules.Allow(p, req.srv.name, access.Server, "") {
			return nil, s.refuse(ctx, req, refusedDenied, deniedError("Permission denied: server %q", req.srv.name))
		}
		for _, name := range req.names {
			if !acc.rules.Allow(p, req.srv.name, req.kind, name) {
				return nil, s.refuse(ctx, req, refusedDenied, deniedError("Permission denied: %s %q of server %q", kindNames[req.kind], name, req.srv.name))
			}
		}
	}
	ps := &pass{s: s, req: req, ctx: ctx}
	for i, l := range [2]*limiter{s.limiter.Load(), req.srv.limiter} {
		release, wait, ok := l.admit(ctx, !req.long)
		if !ok {
			ps.Release()
			return nil, s.refuse(ctx, req, refusedLimited, &rpcerr.CallError{RPC: tooManyRequests(), RetryAfter: max(wait, time.Millisecond)})
		}
		ps.held[i] = release
	}
	return ps, nil
}

// refuse records a refusal: an audit record and the refusals metric.
func (s *Service) refuse(ctx context.Context, req *request, why string, ce *rpcerr.CallError) *refusal {
	s.audit(ctx, req, time.Now(), nil, ce, why)
	s.metrics.refused(req, why)
	return &refusal{CallError: ce, why: why}
}

// deniedError is the error of a request the rules deny.
func deniedError(format string, args ...any) *rpcerr.CallError {
	return &rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, format, args...), Reason: rpcerr.ReasonPermissionDenied}
}

// status is the refusal as a gRPC status.
func (r *refusal) status(req *request) error {
	return rpcerr.ToStatus(req.srv.name, req.method, r.CallError)
}

// Release gives back the pass's places in the limits; only the first
// call counts.
func (p *pass) Release() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		for _, r := range p.held {
			if r != nil {
				r()
			}
		}
	})
}

// Call sends one request of the pass to child c, observed. The caller
// counts it in flight on the child's relay by the caller's principal
// (relay.enter, or a registered Call stream). sent is what the child gets; the pass's request, as the caller
// sent it, names what it is about (they differ where the bridge
// translates across eras). fromMeta takes the span's parent from the
// request's own _meta (a tunnel's client that traces).
func (p *pass) Call(ctx context.Context, c *stdio.Client, sent json.RawMessage, opts *stdio.CallOptions, fromMeta bool) (json.RawMessage, error) {
	op := p.s.obs.begin(ctx, p.req.srv.name, c, p.req.method, p.req.params, p.req.kind, p.req.names, fromMeta)
	res, err := c.Call(ctx, p.req.method, sent, op.options(opts))
	op.end(res, err)
	return res, err
}

// Record audits the outcome of the pass's request, which started at
// start: res and err as the child answered.
func (p *pass) Record(start time.Time, res json.RawMessage, err error) {
	p.s.audit(p.ctx, p.req, start, res, err, "")
}
