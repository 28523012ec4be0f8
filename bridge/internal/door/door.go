// Package door is the door: the one pipeline that every request to a child
// passes, whatever path it came by (docs/architecture.md, "The door"):
// the typed RPCs, Call and CallStream, CallToolStream, Ping and GetServer,
// Subscribe's opening, Connect's opening and each request inside a
// Connect tunnel. A path decodes its request into a request value once,
// and the door then
//
//  1. authenticates: the caller's credentials still hold (watch.go ends
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
package door

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Values of Request.Via: how a request reached the bridge.
const (
	ViaGRPC    = "grpc"
	ViaConnect = "connect" // a Connect tunnel opened by a gRPC client
	ViaHTTP    = "http"    // the HTTP listener: an MCP endpoint's session, or a call of the API as Connect, gRPC-Web or gRPC
)

// viaKey marks the context of a caller that a door other than gRPC let
// in: its value is the door's name (ViaHTTP).
type viaKey struct{}

// WithVia marks ctx as that of a caller that came through the door via
// (ViaHTTP), for Via.
func WithVia(ctx context.Context, via string) context.Context {
	return context.WithValue(ctx, viaKey{}, via)
}

// Via is how a request of ctx reached the bridge: the door WithVia named,
// else direct (ViaGRPC or ViaConnect). A remote caller cannot set it: it
// is a value of the Go context, not a header.
func Via(ctx context.Context, direct string) string {
	if v, ok := ctx.Value(viaKey{}).(string); ok {
		return v
	}
	return direct
}

type aggregateKey struct{}

// WithAggregate marks ctx as the context of a member session of the
// aggregate named name: the requests of that session are audited and
// traced as having come through it.
func WithAggregate(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, aggregateKey{}, name)
}

// AggregateOf is the aggregate WithAggregate named, or "".
func AggregateOf(ctx context.Context) string {
	name, _ := ctx.Value(aggregateKey{}).(string)
	return name
}

// Door is the pipeline of one bridge: the access settings and the
// bridge-wide limits in force (both replaced whole by a reload), where
// refusals and outcomes are recorded, and the observer of the calls.
type Door struct {
	acc     atomic.Pointer[Access]
	limiter atomic.Pointer[Limiter]

	// Audit receives the audit records; nil: none.
	Audit *slog.Logger
	// Obs observes each call; nil: nothing is observed.
	Obs *Observer
	// Refused is told of each refusal (the refusals metric); nil: nobody.
	Refused func(req *Request, why string)

	tasks taskOwners // who created each task of a child: tasks.go
}

// New is a door with auth, rules and the bridge-wide limits in force.
func New(auth *access.Authenticator, rules access.Rules, limits Limits) *Door {
	d := &Door{}
	d.SetAccess(auth, rules)
	d.SetLimits(limits)
	return d
}

// SetLimits puts new bridge-wide limits in force; every caller's bucket
// starts afresh.
func (d *Door) SetLimits(l Limits) { d.limiter.Store(NewLimiter(l)) }

// Limiter is the bridge-wide limiter in force.
func (d *Door) Limiter() *Limiter { return d.limiter.Load() }

// Server is what the door knows of a fronted server.
type Server struct {
	Name          string
	AuditPayloads bool     // the audit records carry each request's params
	Limiter       *Limiter // the server's own limits
	Tasks         TaskCaps // the caps on the server's live tasks
}

// Request is one request to a child as the door sees it, decoded once.
type Request struct {
	Via    string
	Server *Server
	Method string          // the MCP method, or the RPC's name where it sends none (Connect, Subscribe)
	Params json.RawMessage // as the caller sent it: it names the target and is what audit payloads record
	Kind   access.Kind     // what Names names
	Names  []string        // the tools, resources or prompts the request is about
	Long   bool            // a stream that stays open: it counts for the rate, not for the calls in flight
	Meta   json.RawMessage // params._meta when it is an object (ParseRequest only): the era, the progress token, the trace parent
	// Task is the task the request is about: the one a tasks/* request
	// names (Admit), or the one a tools/call created (Pass.Call); "" for
	// none. Its audit record names it.
	Task string
	// Aggregate, when set, is the aggregated server the caller named and
	// the name it used: the request passes the door as one to the member
	// (Server) about the member's own name (Names), and its audit record
	// names both.
	Aggregate *Aggregated
}

// Aggregated is the aggregate a request to one of its members came
// through, and the aggregate's name for the request's target ("" for a
// list).
type Aggregated struct {
	Server, Name string
}

// NewRequest decodes what an MCP request asks of srv from its params: the
// members that name its target, read up to the last of them.
func NewRequest(via string, srv *Server, method string, params json.RawMessage) *Request {
	kind, names := Target(method, params)
	return &Request{Via: via, Server: srv, Method: method, Params: params, Kind: kind, Names: names}
}

// targetKeys are the members of params that Target and ParseRequest read.
var targetKeys = [...]string{"name", "uri", "ref", "notifications", "_meta"}

// ParseRequest is NewRequest for a request whose _meta matters too (a
// tunnel's, which the bridge forwards as sent): params are read once, in
// one pass, for the target and Meta. params are those of a decoded
// message (wire.Decode validated them), so the pass skips their values
// without validating them again, as NewRequest's reads do.
func ParseRequest(via string, srv *Server, method string, params json.RawMessage) *Request {
	var vals [len(targetKeys)]json.RawMessage
	rawjson.EachRawField(params, func(rawKey, value json.RawMessage) bool {
		key, plain := rawjson.Plain(rawKey)
		if !plain {
			name, _ := rawjson.StringValue(rawKey)
			key = []byte(name)
		}
		for i, k := range targetKeys {
			if string(key) == k { // with duplicates the last one wins, as in Member
				vals[i] = value
				break
			}
		}
		return true
	})
	member := func(key string) json.RawMessage { return vals[slices.Index(targetKeys[:], key)] }
	kind, names := target(method, member)
	req := &Request{Via: via, Server: srv, Method: method, Params: params, Kind: kind, Names: names}
	if meta := member("_meta"); rawjson.IsObject(meta) {
		req.Meta = meta
	}
	return req
}

// Tool is the tool a tools/call names, as the door read it; "" for any
// other request.
func (r *Request) Tool() string {
	if r.Method != "tools/call" || len(r.Names) != 1 {
		return ""
	}
	return r.Names[0]
}

// name is the first name the request is about, "" for none.
func (r *Request) name() string {
	if len(r.Names) == 0 {
		return ""
	}
	return r.Names[0]
}

// Reasons a request is refused at the door, for its audit record and the
// refusals metric.
const (
	RefusedUnauthenticated = "unauthenticated"
	RefusedDenied          = "permission_denied"
	RefusedLimited         = "limited"
)

// Refusal is a request the door turned away: the error its path answers
// with and why.
type Refusal struct {
	*rpcerr.CallError
	Why string
}

// Status is the refusal as a gRPC status.
func (r *Refusal) Status(req *Request) error {
	return rpcerr.ToStatus(req.Server.Name, req.Method, r.CallError)
}

// Pass is an admitted request: it holds its places in the limits until
// it is released.
type Pass struct {
	d    *Door
	req  *Request
	ctx  context.Context
	once sync.Once
	held [2]func()
}

// Admit takes req through authentication, authorization and the limits.
// A refused request is audited and counted here, and its error is the
// refusal; nothing of it reaches the child.
func (d *Door) Admit(ctx context.Context, req *Request) (*Pass, *Refusal) {
	if errors.Is(context.Cause(ctx), ErrRevoked) {
		return nil, d.refuse(ctx, req, RefusedUnauthenticated, &rpcerr.CallError{
			RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Authentication required: the caller's credentials no longer hold"), Reason: rpcerr.ReasonUnauthenticated,
		})
	}
	acc := d.Access()
	p := access.FromContext(ctx)
	if !p.ForServer(req.Server.Name) && (req.Aggregate == nil || !p.ForServer(req.Aggregate.Server)) {
		return nil, d.refuse(ctx, req, RefusedDenied, deniedError("Permission denied: the access token was issued for another resource than server %q", req.Server.Name))
	}
	if len(acc.Rules) > 0 {
		if !acc.Rules.Allow(p, req.Server.Name, access.Server, "") {
			return nil, d.refuse(ctx, req, RefusedDenied, acc.denied(p, req.Server.Name, access.Server, "",
				"Permission denied: server %q", req.Server.Name))
		}
		for _, name := range req.Names {
			if !acc.Rules.Allow(p, req.Server.Name, req.Kind, name) {
				return nil, d.refuse(ctx, req, RefusedDenied, acc.denied(p, req.Server.Name, req.Kind, name,
					"Permission denied: %s %q of server %q", KindNames[req.Kind], name, req.Server.Name))
			}
		}
	}
	if taskMethods[req.Method] {
		req.Task = protocol.TaskID(req.Params)
		if req.Task != "" && !d.tasks.owns(req.Server.Name, access.CallerID(ctx), req.Task) {
			return nil, d.refuse(ctx, req, RefusedDenied, &rpcerr.CallError{RPC: taskNotFound(req.Task)})
		}
	}
	ps := &Pass{d: d, req: req, ctx: ctx}
	for i, l := range [2]*Limiter{d.Limiter(), req.Server.Limiter} {
		release, wait, ok := l.Admit(ctx, !req.Long)
		if !ok {
			ps.Release()
			return nil, d.refuse(ctx, req, RefusedLimited, &rpcerr.CallError{RPC: TooManyRequests(wait), RetryAfter: max(wait, time.Millisecond)})
		}
		ps.held[i] = release
	}
	return ps, nil
}

// refuse records a refusal: an audit record and the refusals metric.
func (d *Door) refuse(ctx context.Context, req *Request, why string, ce *rpcerr.CallError) *Refusal {
	d.audit(ctx, req, time.Now(), nil, ce, why)
	if d.Refused != nil {
		d.Refused(req, why)
	}
	return &Refusal{CallError: ce, Why: why}
}

// AdmitOpening admits the opening of a stream that stays open (Subscribe,
// Connect and the sessions of every door): it counts for the rate, so its
// pass holds nothing and is given back at once. A refusal is already a
// status.
func (d *Door) AdmitOpening(ctx context.Context, req *Request) error {
	ps, refused := d.Admit(ctx, req)
	if refused != nil {
		return refused.Status(req)
	}
	ps.Release()
	return nil
}

// deniedError is the error of a request the rules deny.
func deniedError(format string, args ...any) *rpcerr.CallError {
	return &rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeInvalidParams, format, args...), Reason: rpcerr.ReasonPermissionDenied}
}

// denied is the error of a request the rules deny to p. For an OAuth
// access token that a scope would let through, it is a challenge to step
// up (RFC 6750's insufficient_scope): its Scope is the scopes to ask for,
// the token's own and the first one that grants the request, so that a
// new token loses nothing of the old; the JSON-RPC error's data says the
// same to a JSON-RPC caller.
func (a *Access) denied(p *access.Principal, server string, kind access.Kind, name, format string, args ...any) *rpcerr.CallError {
	ce := deniedError(format, args...)
	rs := a.Auth.ResourceServer()
	if p == nil || p.Method != "oauth" || rs == nil {
		return ce
	}
	grants := rs.ScopesFor(server, kind, name)
	if len(grants) == 0 {
		return ce // no scope grants it
	}
	scope := strings.Join(append(slices.Clone(p.Scopes), grants[0]), " ")
	ce.Scope = scope
	ce.RPC.Message += fmt.Sprintf(" (insufficient scope: %q grants it)", grants[0])
	ce.RPC.Data, _ = json.Marshal(struct {
		Error string `json:"error"`
		Scope string `json:"scope"`
	}{"insufficient_scope", scope})
	return ce
}

// Release gives back the pass's places in the limits; only the first
// call counts.
func (p *Pass) Release() {
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
// (fanout.Relay.Enter, or a registered call stream). sent is what the
// child gets; the pass's request, as the caller sent it, names what it is
// about (they differ where the bridge translates across eras). fromMeta
// takes the span's parent from the request's own _meta (a tunnel's client
// that traces).
func (p *Pass) Call(ctx context.Context, c *stdio.Client, sent json.RawMessage, opts *stdio.CallOptions, fromMeta bool) (json.RawMessage, error) {
	if p.req.Task != "" {
		var res json.RawMessage
		var err error
		var answered bool
		if c, res, err, answered = p.d.tasks.divert(p.req, c); answered {
			return res, err
		}
	}
	op := p.d.Obs.begin(ctx, p.req.Server.Name, c, p.req, fromMeta)
	res, err := c.Call(ctx, p.req.Method, sent, op.options(opts))
	op.end(res, err)
	if err == nil {
		res, err = p.answered(c, res)
	}
	return res, err
}

// answered is what the door does with a child's result before the caller
// gets it (tasks.go): a task a tools/call created is recorded as the
// caller's and becomes the request's Task, for its audit record, or, past
// the server's caps on live tasks, is cancelled and refused; a task's
// status is noted as it passes; a tasks/list keeps the caller's own.
func (p *Pass) answered(c *stdio.Client, res json.RawMessage) (json.RawMessage, error) {
	server := p.req.Server.Name
	switch p.req.Method {
	case "tools/call":
		if !bytes.Contains(res, []byte(`"taskId"`)) { // the common case: no task
			return res, nil
		}
		id, ttl, modern := createdTask(res)
		if id == "" {
			return res, nil
		}
		if refused := p.d.tasks.record(server, access.CallerID(p.ctx), id, ttl, c, modern, protocol.TaskStatus(res), p.req.Server.Tasks); refused != nil {
			if c != nil {
				cancelTask(c, id, modern)
			}
			return nil, refused
		}
		p.req.Task = id
	case "tasks/get", "tasks/cancel":
		p.d.tasks.saw(server, p.req.Task, protocol.TaskStatus(res))
	case "tasks/result":
		state := "completed"
		if isErr, _ := rawjson.Member(res, "isError"); string(isErr) == "true" {
			state = "failed"
		}
		p.d.tasks.saw(server, p.req.Task, state)
	case "tasks/list":
		return p.d.tasks.filterTasks(server, access.CallerID(p.ctx), res), nil
	}
	return res, nil
}

// cancelTask cancels the task id that a child created beyond the caps,
// before the refusal is answered.
func cancelTask(c *stdio.Client, id string, modern bool) {
	params := []byte(`{"taskId":`)
	params = rawjson.AppendString(params, id)
	if modern {
		params = append(append(params, `,"_meta":{"`+protocol.MetaClientCapabilities+`":`...), protocol.WithTasksExtension(nil)...)
		params = append(params, '}')
	}
	params = append(params, '}')
	_, _ = c.Call(context.Background(), "tasks/cancel", json.RawMessage(params), &stdio.CallOptions{Timeout: 5 * time.Second})
}

// Record audits the outcome of the pass's request, which started at
// start: res and err as the child answered.
func (p *Pass) Record(start time.Time, res json.RawMessage, err error) {
	p.d.audit(p.ctx, p.req, start, res, err, "")
}
