package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// DefaultServerRequestTimeout is ServerConfig.ServerRequestTimeout's
// default: how long a request from a legacy child waits for an answer.
const DefaultServerRequestTimeout = time.Minute

// relay is everything of one child that is not a call of its own: the
// requests the child sends to the client (bridge.proto, "Requests from a
// legacy child to the client"), the notifications no call claims, and the
// streams and tunnels that receive them. The supervisor makes one per
// spawned child and hands its callbacks to stdio.ClientConfig (hook); it
// lives and dies with that child.
//
// Routing of a request from the child, first match wins:
//
//  1. ping: the stdio Client answers it itself and never calls us.
//  2. roots/list with ServerConfig.Roots set: answered from it.
//  3. the most recently opened Connect tunnel on the child: forwarded into
//     it under a bridge-minted id (tunnel.ask).
//  4. the opted-in streams (streamReg with optIn): offered as a
//     ServerRequest, answered by RespondToServerRequest; the lone call in
//     flight alone when it is an opted-in stream.
//  5. nobody: -32601 at once.
//
// Bounds: the stdio Client runs at most MaxServerRequests handlers at once
// (more are refused -32603 with retryable) and every one of them waits at
// most ServerRequestTimeout, so pending and every per-stream queue, which
// is sized to that limit, can never overflow.
type relay struct {
	server  string
	roots   json.RawMessage // the ListRootsResult answered for roots/list; nil: not configured
	timeout time.Duration
	limit   int // the stdio Client's MaxServerRequests
	log     *slog.Logger
	client  atomic.Pointer[stdio.Client]

	mu      sync.Mutex
	calls   int                        // calls in flight on the child that the bridge knows of
	streams map[*streamReg]struct{}    // registered call and opted-in streams
	tunnels []*tunnel                  // open Connect tunnels, oldest first
	sinks   map[eventSink]struct{}     // receivers of unsolicited notifications
	uris    map[string]*uriSub         // legacy resources/subscribe, reference-counted
	pending map[string]*pendingRequest // server requests offered on streams, by minted id
}

func newRelay(server string, cfg *ServerConfig, log *slog.Logger) *relay {
	r := &relay{
		server: server, timeout: cfg.ServerRequestTimeout, limit: stdio.DefaultMaxServerRequests, log: log,
		streams: map[*streamReg]struct{}{}, sinks: map[eventSink]struct{}{},
		uris: map[string]*uriSub{}, pending: map[string]*pendingRequest{},
	}
	if r.timeout <= 0 {
		r.timeout = DefaultServerRequestTimeout
	}
	if cfg.Roots != nil {
		r.roots = append(append(json.RawMessage(`{"roots":`), cfg.Roots...), '}')
	}
	return r
}

// hook installs the relay's callbacks in the configuration of the child it
// serves.
func (r *relay) hook(cfg stdio.ClientConfig) stdio.ClientConfig {
	cfg.OnServerRequest = r.onServerRequest
	cfg.OnNotification = r.onNotification
	if cfg.MaxServerRequests > 0 {
		r.limit = cfg.MaxServerRequests
	}
	return cfg
}

// attach records the child's Client once stdio.Connect negotiated it.
// Until then the relay asks nobody: the Client's era is written by
// Connect without synchronisation, so its Protocol may not be read
// before Connect returned (the atomic store publishes it).
func (r *relay) attach(c *stdio.Client) { r.client.Store(c) }

// enter counts a call in flight on the child, for the rule that a lone
// opted-in call is the cause of a server request. Every path that calls
// the child uses it: defer c.relay.enter()().
func (r *relay) enter() (leave func()) {
	r.mu.Lock()
	r.calls++
	r.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			r.calls--
			r.mu.Unlock()
		})
	}
}

// serverRequestPrefix makes minted ids unique beyond this process, so an id
// from an earlier bridge is never mistaken for a current one.
var (
	serverRequestPrefix = func() string {
		var b [6]byte
		_, _ = rand.Read(b[:])
		return "sr-" + hex.EncodeToString(b[:]) + "-"
	}()
	serverRequestSeq atomic.Uint64
)

// mintID returns a new ServerRequest id, unique for the bridge's lifetime.
// Tunnels get it as a JSON string id.
func mintID() string {
	return serverRequestPrefix + strconv.FormatUint(serverRequestSeq.Add(1), 10)
}

func methodNotFound(method string) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s", method)
}

// onServerRequest is ClientConfig.OnServerRequest. The stdio Client runs it
// in a goroutine of its own under a ctx that ends when the child cancels
// the request or the connection ends, and writes what it returns.
func (r *relay) onServerRequest(ctx context.Context, req stdio.ServerRequest) (json.RawMessage, error) {
	c := r.client.Load()
	switch {
	case c == nil:
		return nil, methodNotFound(req.Method) // still negotiating: nobody to ask yet
	case protocol.Modern(c.Protocol()):
		r.log.Warn("mcpbridge: a 2026-07-28 server sent a request; answering -32601", "method", req.Method)
		return nil, methodNotFound(req.Method)
	case req.Method == "ping":
		return json.RawMessage(`{}`), nil
	case req.Method == "roots/list" && r.roots != nil:
		return r.roots, nil
	}
	id := mintID()
	if t := r.tunnel(); t != nil {
		return t.ask(ctx, id, req, r.timeout)
	}
	p := r.offer(id, req)
	if p == nil {
		return nil, methodNotFound(req.Method)
	}
	return r.await(ctx, p)
}

// tunnel returns the most recently opened tunnel that still takes server
// requests.
func (r *relay) tunnel() *tunnel {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.tunnels) - 1; i >= 0; i-- {
		if r.tunnels[i].takesRequests() {
			return r.tunnels[i]
		}
	}
	return nil
}

func (r *relay) addTunnel(t *tunnel) {
	r.mu.Lock()
	r.tunnels = append(r.tunnels, t)
	r.sinks[t] = struct{}{}
	r.mu.Unlock()
}

func (r *relay) removeTunnel(t *tunnel) {
	r.mu.Lock()
	for i, x := range r.tunnels {
		if x == t {
			r.tunnels = append(r.tunnels[:i], r.tunnels[i+1:]...)
			break
		}
	}
	delete(r.sinks, t)
	r.mu.Unlock()
}

// outcome is an answer to a server request: a result or an error.
type outcome struct {
	result json.RawMessage
	err    *jsonrpc.Error
}

// pendingRequest is a server request offered on streams.
type pendingRequest struct {
	msg       *mcpbridgev1.ServerRequest // shared read-only by every receiver
	answer    chan outcome               // one slot; whoever removes the entry from relay.pending sends
	targets   []*streamReg               // under relay.mu
	receivers int                        // targets still open, under relay.mu
	gone      chan struct{}              // closed when receivers drops to 0
}

// offer registers a server request and offers it to the streams that get
// it; nil when no stream does.
func (r *relay) offer(id string, req stdio.ServerRequest) *pendingRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	var cause *streamReg
	var all []*streamReg
	for g := range r.streams {
		if !g.optIn || g.closed {
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
		all = []*streamReg{cause} // the lone call in flight caused it
	}
	p := &pendingRequest{
		msg: &mcpbridgev1.ServerRequest{
			Id: id, Method: req.Method, ParamsJson: string(req.Params), Server: r.server,
			ChildRequestIdJson: string(req.ID), ExpireTime: timestamppb.New(time.Now().Add(r.timeout)),
		},
		answer: make(chan outcome, 1),
		gone:   make(chan struct{}),
	}
	for _, g := range all {
		select {
		case g.queue <- p.msg:
			g.offered[p] = struct{}{}
			p.targets = append(p.targets, g)
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
func (r *relay) await(ctx context.Context, p *pendingRequest) (json.RawMessage, error) {
	t := time.NewTimer(r.timeout)
	defer t.Stop()
	var o outcome
	select {
	case o = <-p.answer:
	case <-t.C:
		o.err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client did not answer %s in time", p.msg.Method)
	case <-p.gone:
		o.err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "Every stream offered %s ended before answering", p.msg.Method)
	case <-ctx.Done(): // cancelled by the child, or the connection ended: nothing is written
		o.err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "Cancelled")
	}
	r.forget(p)
	if o.err != nil {
		return nil, o.err
	}
	return o.result, nil
}

// forget removes an offered request; a later RespondToServerRequest gets
// NOT_FOUND.
func (r *relay) forget(p *pendingRequest) {
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

// respond hands an answer to an offered request. It reports false when the
// id is unknown, expired or already answered.
func (r *relay) respond(id string, o outcome) bool {
	r.mu.Lock()
	p := r.pending[id]
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

// streamReg is one gRPC stream registered on a child's relay (see
// openStream).
type streamReg struct {
	r     *relay
	call  bool
	optIn bool
	send  func(*mcpbridgev1.ServerRequest) error
	queue chan *mcpbridgev1.ServerRequest
	stop  chan struct{} // closed by Close
	done  chan struct{} // closed when the delivery goroutine returned

	// Under relay.mu.
	closed  bool
	offered map[*pendingRequest]struct{}
	once    sync.Once
}

// openStream registers a stream of the child on its relay; Close
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
func (r *relay) openStream(call, optIn bool, send func(*mcpbridgev1.ServerRequest) error) *streamReg {
	g := &streamReg{
		r: r, call: call, optIn: optIn && send != nil, send: send,
		stop: make(chan struct{}), done: make(chan struct{}),
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
		r.calls++
	}
	r.mu.Unlock()
	return g
}

// deliver sends offered requests on the stream until Close or a failed
// send. Started by openStream, awaited by Close.
func (g *streamReg) deliver() {
	defer close(g.done)
	for {
		select {
		case <-g.stop:
			return
		case msg := <-g.queue:
			if err := g.send(msg); err != nil {
				g.leave()
				return
			}
		}
	}
}

// leave withdraws the stream from routing: requests whose every receiver
// has left are answered -32603 by their waiting handler.
func (g *streamReg) leave() {
	g.once.Do(func() {
		r := g.r
		r.mu.Lock()
		defer r.mu.Unlock()
		g.closed = true
		delete(r.streams, g)
		if g.call {
			r.calls--
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
func (g *streamReg) Close() {
	g.leave()
	select {
	case <-g.stop:
	default:
		close(g.stop)
	}
	<-g.done
}

// lockedSend makes a stream's Send safe for the handler's goroutine and a
// registration's delivery goroutine at once.
func lockedSend[M any](send func(M) error) func(M) error {
	var mu sync.Mutex
	return func(m M) error {
		mu.Lock()
		defer mu.Unlock()
		return send(m)
	}
}

// currentRelay returns the relay of the server's current child, or nil.
func (s *supervisor) currentRelay() *relay {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current == nil {
		return nil
	}
	return s.current.relay
}

// RespondToServerRequest answers a ServerRequest offered on a stream. The
// first answer for an id reaches the child; unknown, expired and already
// answered ids are NOT_FOUND.
func (s *Service) RespondToServerRequest(ctx context.Context, req *mcpbridgev1.RespondToServerRequestRequest) (*mcpbridgev1.RespondToServerRequestResponse, error) {
	const method = "RespondToServerRequest"
	var o outcome
	switch out := req.GetOutcome().(type) {
	case *mcpbridgev1.RespondToServerRequestRequest_ResultJson:
		res, err := rawjson.Compact([]byte(out.ResultJson))
		if err != nil || !rawjson.IsObject(res) {
			return nil, toStatus(req.GetServer(), method, invalidInput(req.GetServer(), method, "result_json must be a JSON object"))
		}
		o.result = res
	case *mcpbridgev1.RespondToServerRequestRequest_Error:
		e := out.Error
		if e.GetCode() == 0 {
			return nil, toStatus(req.GetServer(), method, invalidInput(req.GetServer(), method, "error.code is required"))
		}
		o.err = &jsonrpc.Error{Code: e.GetCode(), Message: e.GetMessage()}
		if e.GetDataJson() != "" {
			data, err := rawjson.Compact([]byte(e.GetDataJson()))
			if err != nil {
				return nil, toStatus(req.GetServer(), method, invalidInput(req.GetServer(), method, "error.data_json is not valid JSON"))
			}
			o.err.Data = data
		}
	default:
		return nil, toStatus(req.GetServer(), method, invalidInput(req.GetServer(), method, "one of result_json and error is required"))
	}
	if req.GetId() == "" {
		return nil, toStatus(req.GetServer(), method, invalidInput(req.GetServer(), method, "id is required"))
	}
	sups := make([]*supervisor, 0, len(s.servers))
	if req.GetServer() != "" {
		sup, err := s.lookup(ctx, req.GetServer(), method)
		if err != nil {
			return nil, toStatus(req.GetServer(), method, err)
		}
		sups = append(sups, sup)
	} else {
		for _, sup := range s.servers {
			sups = append(sups, sup)
		}
	}
	for _, sup := range sups {
		if r := sup.currentRelay(); r != nil && r.respond(req.GetId(), o) {
			return &mcpbridgev1.RespondToServerRequestResponse{}, nil
		}
	}
	// -32002 is the one code that maps to NOT_FOUND (bridge.proto, Errors).
	return nil, toStatus(req.GetServer(), method, &callError{
		rpc:    jsonrpc.Errorf(jsonrpc.CodeResourceNotFound, "No server request %q is waiting for an answer", req.GetId()),
		reason: reasonInvalidInput,
	})
}

// normalizeRequests checks Roots and fills in ServerRequestTimeout's
// default; Config.normalize calls it.
func (s *ServerConfig) normalizeRequests() error {
	if s.ServerRequestTimeout <= 0 {
		s.ServerRequestTimeout = DefaultServerRequestTimeout
	}
	if s.Roots == nil {
		return nil
	}
	roots, err := rawjson.Compact(s.Roots)
	if err != nil || len(roots) == 0 || roots[0] != '[' {
		return fmt.Errorf("bridge: server %q: Roots must be a JSON array of roots", s.Name)
	}
	s.Roots = roots
	return nil
}

// capabilities is what the bridge declares to the child: Capabilities,
// plus roots when the bridge answers roots/list itself.
func (s *ServerConfig) capabilities() json.RawMessage {
	if s.Roots == nil {
		return s.Capabilities
	}
	caps := s.Capabilities
	if caps == nil {
		caps = json.RawMessage(`{}`)
	}
	if _, ok := rawjson.Member(caps, "roots"); ok {
		return caps
	}
	out, err := rawjson.SetMember(caps, "roots", json.RawMessage(`{}`))
	if err != nil {
		return s.Capabilities // not an object: Connect reports it
	}
	return out
}
