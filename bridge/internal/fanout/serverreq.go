package fanout

// This file routes the requests a child sends to the client (sampling,
// elicitation, roots) to whoever can answer them: a Connect tunnel, or the
// streams that opted in, which answer with RespondToServerRequest. The
// routing rules are on relay. A legacy child sends them; so does a child
// negotiated at 2026-07-28 that also speaks 2025, while it serves a 2025
// client's request passed through a tunnel (2026 itself has none: its
// input requests come back in input_required results).

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// serverRequestPrefix names this bridge process in the ids it mints, so
// that an answer sent to another replica (or to this one after a restart)
// is told apart from an unknown id (MintedElsewhere). It is no secret: an
// id is unguessable by the random part that follows.
var serverRequestPrefix = func() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail: it ends the program instead
	return "sr-" + hex.EncodeToString(b[:]) + "-"
}()

// idRandomBytes is the randomness of each id: 128 bits from crypto/rand,
// so that an id is not found from any number of earlier ones. On a bridge
// without authentication every caller is the same principal, and an answer
// is then bound to its request only by the id and the routing key.
const idRandomBytes = 16

// MintID returns a new ServerRequest id: the process's prefix and 128
// random bits, "sr-<12 hex>-<32 hex>". Tunnels get it as a JSON string id.
func MintID() string {
	var b [idRandomBytes]byte
	_, _ = rand.Read(b[:])
	return serverRequestPrefix + hex.EncodeToString(b[:])
}

// MintedElsewhere reports whether id has the form of a ServerRequest id
// that another bridge process minted: another replica's, or this replica's
// before a restart. An answer carrying one was routed to the wrong place.
func MintedElsewhere(id string) bool {
	rest, ok := strings.CutPrefix(id, "sr-")
	return ok && len(rest) > 13 && rest[12] == '-' && !strings.HasPrefix(id, serverRequestPrefix)
}

// SessionMetadataKey is the metadata that names a session of a session
// server (package pool) and that balancers hash on to keep a session, and
// the answers to its stream's server requests, on one replica.
const SessionMetadataKey = "mcp-session"

// RoutingKey is the mcp-session metadata of ctx's call, "" without one:
// a stream's ServerRequest.routing_key, and what an answer must carry.
func RoutingKey(ctx context.Context) string {
	if v := metadata.ValueFromIncomingContext(ctx, SessionMetadataKey); len(v) > 0 {
		return v[0]
	}
	return ""
}

func MethodNotFound(method string) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s", method)
}

// onServerRequest is ClientConfig.OnServerRequest. The stdio Client runs it
// in a goroutine of its own under a ctx that ends when the child cancels
// the request or the connection ends, and writes what it returns.
func (r *Relay) onServerRequest(ctx context.Context, req stdio.ServerRequest) (json.RawMessage, error) {
	c := r.client.Load()
	switch {
	case r.Private && req.Method != "ping" && !(req.Method == "roots/list" && r.roots != nil):
		// A tunnel's own child asks its host, once the tunnel is there.
		if t := r.awaitTunnel(ctx); t != nil {
			return t.Ask(ctx, MintID(), req, r.Timeout)
		}
		return nil, MethodNotFound(req.Method)
	case c == nil:
		return nil, MethodNotFound(req.Method) // still negotiating: nobody to ask yet
	case req.Method == "ping":
		return json.RawMessage(`{}`), nil
	case req.Method == "roots/list" && r.roots != nil:
		return r.roots, nil
	}
	id := MintID()
	if t := r.taskTunnel(ctx, req.Params); t != nil {
		return t.Ask(ctx, id, req, r.Timeout)
	}
	if t := r.tunnel(); t != nil {
		return t.Ask(ctx, id, req, r.Timeout)
	}
	p := r.Offer(id, req)
	if p == nil {
		return nil, MethodNotFound(req.Method)
	}
	return r.await(ctx, p)
}

// Outcome is an answer to a server request: a result or an error.
type Outcome struct {
	Result json.RawMessage
	Err    *jsonrpc.Error
}

// pendingRequest is a server request offered on streams.
type pendingRequest struct {
	owner     string                     // the principal it was offered to
	keys      []string                   // the routing keys of the streams it was offered on
	msg       *mcpbridgev1.ServerRequest // shared read-only by every receiver
	answer    chan Outcome               // one slot; whoever removes the entry from relay.pending sends
	targets   []*StreamReg               // under relay.mu
	receivers int                        // targets still open, under relay.mu
	gone      chan struct{}              // closed when receivers drops to 0
}

// Offer registers a server request and offers it to the streams that get
// it; nil when no stream does.
func (r *Relay) Offer(id string, req stdio.ServerRequest) *pendingRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	who, known := r.owner()
	if !known {
		return nil // a request no caller can be told to own goes to nobody
	}
	var cause *StreamReg
	var all []*StreamReg
	for g := range r.streams {
		if !g.optIn || g.closed || g.principal != who {
			continue
		}
		all = append(all, g)
		if g.call {
			cause = g
		}
	}
	if len(all) == 0 {
		return nil
	}
	if r.calls == 1 && cause != nil {
		all = []*StreamReg{cause} // the lone call in flight caused it
	}
	p := &pendingRequest{
		msg: &mcpbridgev1.ServerRequest{
			Id: id, Method: req.Method, ParamsJson: string(req.Params), Server: r.Server,
			ChildRequestIdJson: string(req.ID), ExpireTime: timestamppb.New(time.Now().Add(r.Timeout)),
		},
		answer: make(chan Outcome, 1),
		gone:   make(chan struct{}),
		owner:  who,
	}
	for _, g := range all {
		select {
		case g.queue <- p.msg:
			g.offered[p] = struct{}{}
			p.targets = append(p.targets, g)
			if !slices.Contains(p.keys, g.routingKey) {
				p.keys = append(p.keys, g.routingKey)
			}
		default: // cannot happen: the queue holds every pending request
			r.log.Error("mcpbridge: a stream's server request queue is full", "id", id)
		}
	}
	if len(p.targets) == 0 {
		return nil
	}
	p.receivers = len(p.targets)
	r.pending[id] = p
	return p
}

// await waits for the answer to an offered request, at most the relay's
// timeout, and forgets the request.
func (r *Relay) await(ctx context.Context, p *pendingRequest) (json.RawMessage, error) {
	t := time.NewTimer(r.Timeout)
	defer t.Stop()
	var o Outcome
	select {
	case o = <-p.answer:
	case <-t.C:
		o.Err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client did not answer %s in time", p.msg.Method)
	case <-p.gone:
		o.Err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "Every stream offered %s ended before answering", p.msg.Method)
	case <-ctx.Done(): // cancelled by the child, or the connection ended: nothing is written
		o.Err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "Cancelled")
	}
	r.forget(p)
	if o.Err != nil {
		return nil, o.Err
	}
	return o.Result, nil
}

// forget removes an offered request; a later RespondToServerRequest gets
// NOT_FOUND.
func (r *Relay) forget(p *pendingRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending[p.msg.Id] == p {
		delete(r.pending, p.msg.Id)
	}
	for _, g := range p.targets {
		delete(g.offered, p)
	}
	p.targets = nil
}

// Respond hands an answer from the caller who, sent with the routing key
// key (its mcp-session, RoutingKey), to an offered request. It reports
// false when the id is unknown, expired or already answered, when the
// request was offered to another principal, and when it was offered on no
// stream whose routing key is key: an answer belongs to the session that
// received the request, also among the callers of one principal (every
// caller of a bridge without authentication). The caller cannot tell these
// apart.
func (r *Relay) Respond(id, who, key string, o Outcome) bool {
	r.mu.Lock()
	p := r.pending[id]
	if p != nil && (p.owner != who || !slices.Contains(p.keys, key)) {
		p = nil // not this caller's, or this session's, to see
	}
	if p != nil {
		delete(r.pending, id)
	}
	r.mu.Unlock()
	if p == nil {
		return false
	}
	p.answer <- o // one slot, and only the remover sends
	return true
}

// StreamReg is one gRPC stream registered on a child's relay (see
// openStream).
type StreamReg struct {
	r          *Relay
	principal  string // the caller's (access.CallerID)
	routingKey string // the stream's mcp-session: ServerRequest.routing_key
	call       bool
	optIn      bool
	send       func(*mcpbridgev1.ServerRequest) error
	queue      chan *mcpbridgev1.ServerRequest
	stop       chan struct{} // closed by Close
	done       chan struct{} // closed when the delivery goroutine returned

	// Under relay.mu.
	closed  bool
	offered map[*pendingRequest]struct{}
	once    sync.Once
}

// OpenStream registers a stream of the child on its relay; Close
// unregisters it and must be called when the stream's handler returns.
//
// This is the hook for every streaming RPC on a child (CallToolStream,
// CallStream and Subscribe):
//
//   - call: the stream is a call in flight on the child (CallToolStream,
//     CallStream); it counts for the "exactly one call in flight" rule of
//     bridge.proto while registered, so register it just before the child
//     call and close it right after.
//   - optIn: the request set server_requests; the stream is then offered
//     requests from a legacy child. send is called with each, one at a
//     time, from a goroutine of the registration (started here, awaited by
//     Close), never after Close returned. It must send the message on the
//     stream (wrapped in the stream's response type) and return Send's
//     error; since the handler sends progress and results from its own
//     goroutine, guard the stream with a mutex (see lockedSend). A send
//     error ends the stream's part in routing: requests only it received
//     are answered -32603 at once.
//
// send may be nil when optIn is false.
func (r *Relay) OpenStream(ctx context.Context, call, optIn bool, send func(*mcpbridgev1.ServerRequest) error) *StreamReg {
	g := &StreamReg{
		r: r, principal: access.CallerID(ctx), call: call, optIn: optIn && send != nil, send: send,
		routingKey: RoutingKey(ctx),
		stop:       make(chan struct{}), done: make(chan struct{}),
		offered: map[*pendingRequest]struct{}{},
	}
	if g.optIn {
		g.queue = make(chan *mcpbridgev1.ServerRequest, r.limit+1)
		go g.deliver()
	} else {
		close(g.done)
	}
	r.mu.Lock()
	r.streams[g] = struct{}{}
	if call {
		r.countCall(g.principal, 1)
	}
	r.mu.Unlock()
	if call && r.Settle != nil {
		r.Settle() // the call goes out next: at its principals' level
	}
	return g
}

// deliver sends offered requests on the stream until Close or a failed
// send. Started by openStream, awaited by Close.
func (g *StreamReg) deliver() {
	defer close(g.done)
	for {
		select {
		case <-g.stop:
			return
		case msg := <-g.queue:
			if g.routingKey != "" { // msg is shared by the streams it was offered on
				msg = proto.CloneOf(msg)
				msg.RoutingKey = g.routingKey
			}
			if err := g.send(msg); err != nil {
				g.leave()
				return
			}
		}
	}
}

// leave withdraws the stream from routing: requests whose every receiver
// has left are answered -32603 by their waiting handler.
func (g *StreamReg) leave() {
	g.once.Do(func() {
		r := g.r
		r.mu.Lock()
		defer r.mu.Unlock()
		g.closed = true
		delete(r.streams, g)
		if g.call {
			r.countCall(g.principal, -1)
		}
		for p := range g.offered {
			p.receivers--
			if p.receivers == 0 {
				close(p.gone)
			}
		}
		clear(g.offered)
	})
}

// Close unregisters the stream and waits for its delivery goroutine. It is
// idempotent.
func (g *StreamReg) Close() {
	g.leave()
	select {
	case <-g.stop:
	default:
		close(g.stop)
	}
	<-g.done
}

// LockedSend makes a stream's Send safe for the handler's goroutine and a
// registration's delivery goroutine at once.
func LockedSend[M any](send func(M) error) func(M) error {
	var mu sync.Mutex
	return func(m M) error {
		mu.Lock()
		defer mu.Unlock()
		return send(m)
	}
}
