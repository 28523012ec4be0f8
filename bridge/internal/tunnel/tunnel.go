// Package tunnel is a Connect stream on one child (bridge.proto, Connect;
// docs/architecture.md, "Connect" and "Across eras"): a raw JSON-RPC
// tunnel whose ids, progress tokens, cancellations and subscription ids
// are its own, restored with their JSON type on the way back, and the
// translation between a client and a child of different eras
// (crossera.go, crossera_modern.go, inputrounds.go). Each message is
// decoded once; each request passes the bridge's door through its Host
// before anything of it reaches the child. Package bridge's Connect
// handler opens a Tunnel, feeds it the client's messages (Handle), and
// ends it (HalfClose, Abort).
package tunnel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/internal/dropq"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/internal/workpool"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Bounds of one Connect tunnel.
const (
	// maxTunnelCalls bounds the tunnel's requests in flight (forwarded
	// calls, open listens, subscribe operations); one more is answered
	// -32603 with {"retryable":true,"limit":64} in the tunnel.
	maxTunnelCalls = 64
	// tunnelQueue bounds the messages waiting for the gRPC stream that
	// must not be lost (responses, progress, listen events, requests from
	// the child). Their producers wait for room, so a client that stops
	// reading slows its own calls and nobody else's. The child's
	// unsolicited notifications instead go to a ring of fanout.StreamBuffer
	// that drops the oldest, because they come from the stdio Client's
	// reader, which must never wait.
	tunnelQueue = 64
)

// workers runs the tunnels' requests. A request goes deep (the door, the
// stdio client, the JSON scanner), and on a fresh goroutine its stack grew
// by copying every time: 5% of the bridge's CPU on /mcp under load.
var workers = workpool.New(100 * time.Millisecond)

// Tunnel is one Connect stream on a child.
type Tunnel struct {
	host   Host
	cur    atomic.Pointer[Child] // the child's process it is on; Rebind moves it
	owner  string                // the caller's (access.CallerID): the child's requests and logs reach it only when they are its
	legacy bool
	log    *slog.Logger
	ctx    context.Context // the tunnel's requests; cancelled by abort
	cancel context.CancelFunc

	out      chan []byte              // frames that must be delivered, in order
	notes    *dropq.Signalled[[]byte] // the child's unsolicited notifications
	intake   chan struct{}            // closed by stopIntake
	flush    chan struct{}            // closed to make the writer send what is queued and stop
	quit     chan struct{}            // closed to make the writer stop at once
	dead     chan struct{}            // closed when the writer returned
	wg       sync.WaitGroup           // request and listen goroutines
	stop     sync.Once                // closes flush or quit
	writeErr error                    // set before dead is closed

	mu           sync.Mutex
	closing      bool                           // half-closed or ending: no more listens or server requests
	calls        map[string]*tunnelCall         // requests in flight, by the tunnel's raw id
	listens      map[string]*tunnelListen       // open listens, by the tunnel's raw listen id
	uris         map[string]bool                // resources/subscribe references held (legacy)
	level        mcpbridgev1.LoggingLevel       // logging/setLevel of this tunnel; 0: every log
	levelRelease func()                         // releases the tunnel's want on the child's level
	asked        map[string]chan fanout.Outcome // server requests forwarded into the tunnel, by minted id

	// Across eras (crossera.go).
	era        clientEra                      // the era the client last showed
	peerCaps   json.RawMessage                // a 2025 client's initialize capabilities (2026 child)
	peerInfo   json.RawMessage                // and its clientInfo
	uriListens map[string]*stdio.Subscription // a 2025 client's resources/subscribe (2026 child)
	running    []*inputOp                     // a 2026 client's calls that may ask (2025 child), oldest first
	parked     map[string]*inputOp            // those waiting for the client's retry, by requestState
	xlistens   map[string]*crossListen        // a 2026 client's listens (2025 child), by raw listen id
	xtasks     map[string]*xTask              // tasks created through the translation (crossera_tasks.go)
	xorder     []string                       // their ids, oldest first
}

// Host is what a tunnel needs of the bridge: the door each of its
// requests passes (docs/architecture.md, "The door"), the rules applied
// to list results, the server's deadlines.
type Host interface {
	// Admit takes one request of the tunnel through the door, which reads
	// its params once: its admission, or the JSON-RPC error that refuses
	// it. A long request (a listen) stays open and counts for the rate
	// only.
	Admit(ctx context.Context, method string, params json.RawMessage, long bool) (*Admission, *jsonrpc.Error)
	// FilterList removes from a list result what the caller may not use.
	FilterList(ctx context.Context, method string, res json.RawMessage) json.RawMessage
	// DefaultDeadline bounds the tunnel's own requests to the child.
	DefaultDeadline() time.Duration
	Logger() *slog.Logger
}

// Admission is a request of the tunnel that passed the door: its pass,
// and what the door read of its params, which nothing reads again.
type Admission struct {
	Pass
	// Meta is params._meta (nil when absent or not an object): the
	// client's era, its progress token, its trace context.
	Meta json.RawMessage
	// Deadline bounds the request, which carries no deadline of its own:
	// the server's or the tool's longest.
	Deadline time.Duration
}

// Pass is an admitted request of the tunnel.
type Pass interface {
	// Call sends the request to child c as sent, observed; fromMeta takes
	// the span's parent from the request's own _meta.
	Call(ctx context.Context, c *stdio.Client, sent json.RawMessage, opts *stdio.CallOptions, fromMeta bool) (json.RawMessage, error)
	// Record audits the request's outcome.
	Record(start time.Time, res json.RawMessage, err error)
	// Release gives back its places in the limits.
	Release()
}

// Child is the child a tunnel is on: its connection, the relay of
// what it sends unsolicited, and its logging level (a legacy child's).
type Child struct {
	*stdio.Client
	Relay *fanout.Relay
	Level *fanout.ChildLevel
	Floor mcpbridgev1.LoggingLevel // the level of a client that set none
	// Private is a child of the tunnel's own (started for its client,
	// with its client's initialize): its requests reach the child under
	// the client's own ids and progress tokens, as if the client had
	// launched it (docs/architecture.md, "Tunnels and their children").
	Private bool
}

// tunnelCall is one request of the tunnel in flight.
type tunnelCall struct {
	cancel    context.CancelCauseFunc // with a stdio.CancelReason: the client's own
	cancelled atomic.Bool             // by the tunnel's notifications/cancelled: send no response
}

// tunnelListen is one subscriptions/listen of the tunnel (2026).
type tunnelListen struct {
	sub    *stdio.Subscription
	closed atomic.Bool // by the tunnel or the tunnel's end: send nothing more
}

// New opens a tunnel on child c for the session whose context is ctx
// (its caller, its deadline); Write then delivers what the tunnel sends.
func New(host Host, c *Child, ctx context.Context) *Tunnel {
	owner := access.CallerID(ctx)
	ctx, cancel := context.WithCancel(ctx)
	t := &Tunnel{
		host: host, owner: owner, legacy: !protocol.Modern(c.Protocol()),
		log: host.Logger().With("rpc", "Connect", "server", c.Relay.Server),
		ctx: ctx, cancel: cancel,
		out: make(chan []byte, tunnelQueue), notes: dropq.NewSignalled[[]byte](fanout.StreamBuffer, false),
		intake: make(chan struct{}), flush: make(chan struct{}), quit: make(chan struct{}), dead: make(chan struct{}),
		calls: map[string]*tunnelCall{}, listens: map[string]*tunnelListen{},
		uris: map[string]bool{}, asked: map[string]chan fanout.Outcome{},
		uriListens: map[string]*stdio.Subscription{}, parked: map[string]*inputOp{}, xlistens: map[string]*crossListen{},
		xtasks: map[string]*xTask{},
	}
	t.cur.Store(c)
	return t
}

// child is the child's process the tunnel is on now.
func (t *Tunnel) child() *Child { return t.cur.Load() }

// Rebind moves a legacy tunnel to its child's next process after the last
// one ended (a tunnel's private child, restarted by its supervisor and
// initialized again with the client's own initialize). The requests that
// were in flight have failed as the old process ended; the resource
// subscriptions the client holds and the logging level it set are taken
// up on the new process, and the client is told, in a log message, that
// the server restarted and what of its state that does not restore.
func (t *Tunnel) Rebind(c *Child) {
	old := t.cur.Swap(c)
	old.Relay.RemoveTunnel(t)
	c.Relay.AddTunnel(t)
	t.mu.Lock()
	uris := make([]string, 0, len(t.uris))
	for uri := range t.uris {
		uris = append(uris, uri)
	}
	level, release := t.level, t.levelRelease
	t.levelRelease = nil
	t.mu.Unlock()
	if release != nil {
		release()
	}
	if level != 0 {
		want := c.Level.Want(t.ctx, level)
		t.mu.Lock()
		t.levelRelease = want
		t.mu.Unlock()
	}
	var lost []string
	for _, uri := range uris {
		if err := c.Relay.SubscribeURI(t.ctx, c.Client, uri, t.host.DefaultDeadline()); err != nil {
			t.mu.Lock()
			delete(t.uris, uri)
			t.mu.Unlock()
			lost = append(lost, uri)
		}
	}
	msg := "mcpbridge: the server exited and was started again for this session: requests in flight failed; " +
		"resource subscriptions and the logging level are restored, any other state the server kept is not"
	if len(lost) > 0 {
		msg += fmt.Sprintf("; the server refused the subscriptions to %s", strings.Join(lost, ", "))
	}
	t.log.Warn("mcpbridge: a tunnel moved to its restarted child", "pid", c.Pid(), "subscriptions", len(uris)-len(lost))
	if level == 0 || convert.Level("warning") >= level {
		params := append([]byte(`{"level":"warning","logger":"mcpbridge","data":`), rawjson.AppendString(nil, msg)...)
		t.push(wire.AppendNotification(nil, "notifications/message", append(params, '}')))
	}
}

// Write owns the delivery of the tunnel's messages: deliver is given
// each one, without its newline, in order, and may block. Started by the
// session that opened the tunnel; it returns when deliver fails, at quit,
// or at flush once everything queued is delivered.
func (t *Tunnel) Write(deliver func(msg []byte) error) {
	defer close(t.dead)
	send := func(frame []byte) bool {
		if n := len(frame); n > 0 && frame[n-1] == '\n' {
			frame = frame[:n-1]
		}
		if err := deliver(frame); err != nil {
			t.writeErr = err
			return false
		}
		return true
	}
	sendNotes := func() bool {
		for _, it := range t.notes.Take() {
			if it.Dropped > 0 {
				t.log.Warn("mcpbridge: dropped notifications for a tunnel that fell behind", "dropped", it.Dropped)
			}
			if !send(it.V) {
				return false
			}
		}
		return true
	}
	for {
		select {
		case <-t.quit:
			return
		case frame := <-t.out:
			if !send(frame) {
				return
			}
		case <-t.notes.C():
			if !sendNotes() {
				return
			}
		case <-t.flush:
			for {
				select {
				case frame := <-t.out:
					if !send(frame) {
						return
					}
				default:
					sendNotes()
					return
				}
			}
		}
	}
}

// Dead is closed when the writer returned: the stream broke (WriteErr
// says how) or the tunnel ended.
func (t *Tunnel) Dead() <-chan struct{} { return t.dead }

// WriteErr is the Send error that stopped the writer, once Dead is
// closed; nil when it stopped because the tunnel ended.
func (t *Tunnel) WriteErr() error { return t.writeErr }

// push queues a frame that must be delivered, waiting for room; it
// reports false once the writer is gone or the tunnel is being aborted
// (then nobody will read the frame, and the writer may be stuck in Send
// to a client that stopped reading).
func (t *Tunnel) push(frame []byte) bool {
	select {
	case t.out <- frame:
		return true
	case <-t.dead:
		return false
	case <-t.ctx.Done():
		return false
	}
}

func (t *Tunnel) respond(id, result json.RawMessage) {
	t.push(wire.AppendResponse(nil, id, result))
}

func (t *Tunnel) fail(id json.RawMessage, e *jsonrpc.Error) {
	t.push(wire.AppendError(nil, id, &wire.Error{Code: e.Code, Message: e.Message, Data: e.Data}))
}

// Handle dispatches one message from the client. Nothing that is not
// valid JSON-RPC reaches the child. The tunnel keeps line: its params
// go to the child as they are, after Handle returned, so the caller hands
// the slice over and never touches it again.
func (t *Tunnel) Handle(line []byte) {
	m, err := wire.Decode(line)
	if err != nil {
		var id json.RawMessage
		if m.Kind == wire.KindRequest {
			id = m.ID
		}
		e := jsonrpc.Errorf(jsonrpc.CodeParseError, "Parse error")
		if we, ok := err.(*wire.Error); ok {
			e = (*jsonrpc.Error)(we)
		}
		t.fail(id, e)
		return
	}
	params := m.Params
	if m.Dirty && params != nil {
		params, _ = rawjson.Compact(params) // valid: Decode checked it
	}
	switch m.Kind {
	case wire.KindRequest:
		t.request(m.ID, m.Method, params)
	case wire.KindNotification:
		t.notification(m.Method, params)
	case wire.KindResponse:
		t.response(&m)
	}
}

// request starts one request of the tunnel.
func (t *Tunnel) request(id json.RawMessage, method string, params json.RawMessage) {
	key := string(id)
	t.mu.Lock()
	_, busy := t.calls[key]
	if _, open := t.listens[key]; open {
		busy = true
	}
	full := len(t.calls)+len(t.listens)+len(t.parked) >= maxTunnelCalls
	t.mu.Unlock()
	switch {
	case busy:
		t.fail(id, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: id %s is already in use by a request in flight", id))
		return
	case full:
		t.fail(id, jsonrpc.WithData(jsonrpc.CodeInternalError, "Too many requests in flight on this tunnel",
			map[string]any{"retryable": true, "limit": maxTunnelCalls}))
		return
	}
	// Every request of the tunnel passes the door as a unary call does:
	// the rules, the bridge-wide and the server's limits, the audit. A
	// refused request never reaches the child. A listen stays open and
	// counts for the rate only.
	ps, refused := t.host.Admit(t.ctx, method, params, method == "subscriptions/listen")
	if refused != nil {
		t.fail(id, refused)
		return
	}
	handed := false // to the request's goroutine, which releases it
	defer func() {
		if !handed {
			ps.Release()
		}
	}()

	run, crossed := t.cross(id, method, params, ps.Meta)
	switch {
	case crossed:
		if run == nil {
			return // answered
		}
	case t.legacy && method == "initialize":
		t.respond(id, initializeResult(t.child().Protocol(), t.child().ServerCapabilities(), t.child().ServerInfo(), t.child().Instructions()))
		return
	case t.legacy && method == "logging/setLevel":
		raw, _ := rawjson.Member(params, "level")
		name, _ := rawjson.StringValue(raw)
		level := convert.Level(name)
		if level == 0 {
			t.fail(id, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: unknown logging level"))
			return
		}
		// The tunnel's own level filters what it gets; the child logs at
		// least that much while the tunnel is open (fanout.ChildLevel).
		release := t.child().Level.Want(t.ctx, level)
		t.mu.Lock()
		t.level = level
		old := t.levelRelease
		t.levelRelease = release
		t.mu.Unlock()
		if old != nil {
			old()
		}
		t.respond(id, json.RawMessage(`{}`))
		return
	case t.legacy && (method == "resources/subscribe" || method == "resources/unsubscribe"):
		raw, _ := rawjson.Member(params, "uri")
		uri, ok := rawjson.StringValue(raw)
		if !ok || uri == "" {
			t.fail(id, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %s needs a string uri", method))
			return
		}
		run = func(ctx context.Context, call *tunnelCall) { t.subscription(ctx, call, id, method, uri) }
	case t.legacy && method == "subscriptions/listen":
		t.fail(id, fanout.MethodNotFound(method)) // as the child would; Call refuses it as -32602
		return
	case !t.legacy && method == "subscriptions/listen":
		run = func(ctx context.Context, call *tunnelCall) { t.listen(ctx, call, id, params) }
	default:
		run = func(ctx context.Context, call *tunnelCall) { t.forward(ctx, call, id, method, params) }
	}
	ctx, cancel := context.WithCancelCause(context.WithValue(t.ctx, passKey{}, ps))
	call := &tunnelCall{cancel: cancel}
	t.mu.Lock()
	t.calls[key] = call
	t.mu.Unlock()
	t.wg.Add(1)
	handed = true
	workers.Go(func() {
		defer t.wg.Done()
		defer cancel(nil)
		defer ps.Release()
		// The recovery interceptor guards the handler's goroutine only: a
		// bug met by one request must not take the bridge down.
		defer func() {
			if p := recover(); p != nil {
				t.log.Error("mcpbridge: panic serving a tunnel request", "method", method, "panic", p, "stack", string(debug.Stack()))
				t.finish(id, call, nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error"))
			}
		}()
		run(ctx, call)
	})
}

// done forgets a finished request and reports whether its outcome is
// still to be sent (it is not when the tunnel cancelled it).
func (t *Tunnel) done(id json.RawMessage, call *tunnelCall) bool {
	t.mu.Lock()
	if t.calls[string(id)] == call {
		delete(t.calls, string(id))
	}
	t.mu.Unlock()
	return !call.cancelled.Load()
}

// finish sends the outcome of a finished request.
func (t *Tunnel) finish(id json.RawMessage, call *tunnelCall, result json.RawMessage, err error) {
	if !t.done(id, call) {
		return // MCP: a cancelled request gets no response
	}
	if err != nil {
		t.fail(id, asRPCError(err))
		return
	}
	t.respond(id, result)
}

// asRPCError is the JSON-RPC error the tunnel gets for a failed call.
func asRPCError(err error) *jsonrpc.Error {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e
	}
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error")
}

// forward sends a request to the child with the tunnel's progress token
// replaced by the Client's own and restores it on the way back.
func (t *Tunnel) forward(ctx context.Context, call *tunnelCall, id json.RawMessage, method string, params json.RawMessage) {
	adm := passOf(ctx)
	params, token, err := takeProgressToken(params, adm.Meta)
	if err != nil {
		t.finish(id, call, nil, err)
		return
	}
	// Verbatim: the child sees the client's own params and _meta, and
	// answers a missing _meta or another version as it would without the
	// bridge.
	opts := &stdio.CallOptions{Timeout: adm.Deadline, Verbatim: true}
	if t.child().Private {
		// The child is the client's own: its id and progress token pass
		// as they are, unless the bridge's own requests hold them.
		opts.ID, opts.ProgressToken = id, token
	}
	if token != nil {
		opts.Progress = func(p stdio.Progress) {
			raw, err := rawjson.SetMember(p.Raw, "progressToken", token)
			if err == nil {
				t.push(wire.AppendNotification(nil, "notifications/progress", raw))
			}
		}
	}
	start := time.Now()
	res, err := t.callChild(ctx, params, opts)
	t.audit(ctx, start, res, err)
	t.finish(id, call, t.host.FilterList(t.ctx, method, res), err)
}

// passKey carries the admission of a tunnel request in the contexts of
// its work.
type passKey struct{}

// passOf is the admission of the tunnel request whose work ctx is.
func passOf(ctx context.Context) *Admission { return ctx.Value(passKey{}).(*Admission) }

// callChild sends the tunnel request of ctx to the child, through its
// pass (the bridge's door): counted in flight on the child's relay, and observed,
// its span's parent the trace context in the request's own _meta. sent is
// what the child gets; the pass has the request as the tunnel's client
// sent it, which names what it is about (they differ where the bridge
// translates across eras).
func (t *Tunnel) callChild(ctx context.Context, sent json.RawMessage, opts *stdio.CallOptions) (json.RawMessage, error) {
	defer t.child().Relay.Enter(t.ctx)()
	return passOf(ctx).Call(ctx, t.child().Client, sent, opts, true)
}

// audit records the outcome of the tunnel request of ctx.
func (t *Tunnel) audit(ctx context.Context, start time.Time, res json.RawMessage, err error) {
	passOf(ctx).Record(start, res, err)
}

// takeProgressToken removes params._meta.progressToken and returns it;
// meta is params._meta, as the door read it.
// The Client mints its own token when a Progress callback is set.
func takeProgressToken(params, meta json.RawMessage) (json.RawMessage, json.RawMessage, error) {
	if meta == nil {
		return params, nil, nil
	}
	token, ok := rawjson.Member(meta, "progressToken")
	if !ok {
		return params, nil, nil
	}
	if !wire.ValidID(token) {
		return nil, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: _meta.progressToken must be a string or an integer")
	}
	out, err := rawjson.SetMember(params, "_meta", rawjson.DeleteMember(meta, "progressToken"))
	if err != nil {
		return nil, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: params must be a JSON object")
	}
	return out, append(json.RawMessage(nil), token...), nil
}

// initializeResult answers a 2025 client's initialize at version, from
// what the bridge learnt of the child: the child is initialized once, by
// the bridge (or, at 2026-07-28, not at all).
func initializeResult(version string, caps, info json.RawMessage, instructions string) json.RawMessage {
	out := append([]byte(`{"protocolVersion":`), rawjson.AppendString(nil, version)...)
	if !rawjson.IsObject(caps) {
		caps = json.RawMessage(`{}`)
	}
	out = append(append(out, `,"capabilities":`...), caps...)
	if rawjson.IsObject(info) {
		out = append(append(out, `,"serverInfo":`...), info...)
	}
	if instructions != "" {
		out = rawjson.AppendString(append(out, `,"instructions":`...), instructions)
	}
	return append(out, '}')
}

// subscription is a legacy tunnel's resources/subscribe or
// resources/unsubscribe, reference-counted with every other subscriber of
// the child.
func (t *Tunnel) subscription(ctx context.Context, call *tunnelCall, id json.RawMessage, method, uri string) {
	r, timeout := t.child().Relay, t.host.DefaultDeadline()
	if method == "resources/unsubscribe" {
		t.mu.Lock()
		held := t.uris[uri]
		delete(t.uris, uri)
		t.mu.Unlock()
		if held {
			r.UnsubscribeURI(t.child().Client, uri, timeout)
		}
		t.finish(id, call, json.RawMessage(`{}`), nil)
		return
	}
	t.mu.Lock()
	held := t.uris[uri]
	t.mu.Unlock()
	if held {
		t.finish(id, call, json.RawMessage(`{}`), nil)
		return
	}
	if err := r.SubscribeURI(ctx, t.child().Client, uri, timeout); err != nil {
		t.finish(id, call, nil, err)
		return
	}
	t.mu.Lock()
	extra := t.uris[uri] // a concurrent subscribe of the same URI won
	t.uris[uri] = true
	t.mu.Unlock()
	if extra {
		r.UnsubscribeURI(t.child().Client, uri, timeout)
	}
	t.finish(id, call, json.RawMessage(`{}`), nil)
}

// releaseURIs drops the tunnel's resource subscriptions.
func (t *Tunnel) releaseURIs() {
	t.mu.Lock()
	uris := make([]string, 0, len(t.uris))
	for uri := range t.uris {
		uris = append(uris, uri)
	}
	clear(t.uris)
	t.mu.Unlock()
	for _, uri := range uris {
		t.child().Relay.UnsubscribeURI(t.child().Client, uri, t.host.DefaultDeadline())
	}
}

// listen opens a 2026 tunnel's subscriptions/listen as a Subscription of
// the Client, whose id the child sees, and relays its acknowledgement and
// events under the tunnel's listen id.
func (t *Tunnel) listen(ctx context.Context, call *tunnelCall, id, params json.RawMessage) {
	filter, ok := rawjson.Member(params, "notifications")
	if !ok || !rawjson.IsObject(filter) {
		t.finish(id, call, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: subscriptions/listen needs a notifications object"))
		return
	}
	var meta json.RawMessage
	if m, ok := rawjson.Member(params, "_meta"); ok && rawjson.IsObject(m) {
		meta = rawjson.DeleteMember(rawjson.DeleteMember(m, "progressToken"), protocol.MetaSubscriptionID)
	}
	sub, err := t.child().Listen(ctx, filter, &stdio.ListenOptions{
		Timeout: t.host.DefaultDeadline(), MaxBuffer: fanout.StreamBuffer, Overflow: stdio.DropOldest, Meta: meta, Verbatim: true,
	})
	if err != nil {
		t.finish(id, call, nil, err)
		return
	}
	l := &tunnelListen{sub: sub}
	key := string(id)
	t.mu.Lock()
	if t.calls[key] == call {
		delete(t.calls, key)
	}
	if t.closing || call.cancelled.Load() {
		t.mu.Unlock()
		sub.Close()
		return
	}
	t.listens[key] = l
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		if t.listens[key] == l {
			delete(t.listens, key)
		}
		t.mu.Unlock()
		sub.Close()
	}()
	subMeta := append(append([]byte(`{"`+protocol.MetaSubscriptionID+`":`), id...), '}')
	ack := append([]byte(`{"notifications":`), sub.Accepted()...)
	ack = append(append(append(ack, `,"_meta":`...), subMeta...), '}')
	t.push(wire.AppendNotification(nil, "notifications/subscriptions/acknowledged", ack))
	for {
		ev, err := sub.Next(t.ctx)
		if l.closed.Load() || t.ctx.Err() != nil {
			return // closed by the tunnel: nothing more for this id
		}
		switch {
		case errors.Is(err, io.EOF): // the child ended the listen
			t.respond(id, append(append([]byte(`{"resultType":"complete","_meta":`), subMeta...), '}'))
			return
		case err != nil:
			t.fail(id, asRPCError(err))
			return
		}
		if ev.Dropped > 0 {
			t.log.Warn("mcpbridge: dropped listen events for a tunnel that fell behind", "dropped", ev.Dropped)
		}
		evMeta, _ := rawjson.Member(ev.Params, "_meta")
		evMeta, err = rawjson.SetMember(evMeta, protocol.MetaSubscriptionID, id)
		if err != nil {
			continue
		}
		out, err := rawjson.SetMember(ev.Params, "_meta", evMeta)
		if err != nil {
			continue
		}
		t.push(wire.AppendNotification(nil, ev.Method, out))
	}
}

// notification handles a notification from the client.
func (t *Tunnel) notification(method string, params json.RawMessage) {
	switch method {
	case "notifications/initialized":
		return // the bridge initialized the child once; absorbed
	case "notifications/cancelled":
		target, _ := rawjson.Member(params, "requestId")
		t.mu.Lock()
		call := t.calls[string(target)]
		l := t.listens[string(target)]
		if l != nil {
			delete(t.listens, string(target))
		}
		t.mu.Unlock()
		if call != nil {
			call.cancelled.Store(true)
			// The Client sends notifications/cancelled with the child's
			// id and the client's own reason, as it gave it.
			raw, given := rawjson.Member(params, "reason")
			reason, _ := rawjson.StringValue(raw)
			call.cancel(stdio.CancelReason{Reason: reason, Given: given})
		}
		if l != nil {
			l.closed.Store(true)
			l.sub.Close()
		}
		return
	case "notifications/progress":
		// Progress for a request the child sent into the tunnel: the child
		// gets no progress for its own requests from the bridge.
		t.log.Debug("mcpbridge: dropped progress from a tunnel")
		return
	}
	if !t.legacy {
		t.log.Debug("mcpbridge: dropped a notification a 2026-07-28 server does not take", "method", method)
		return
	}
	if err := t.child().Notify(t.ctx, method, params); err != nil {
		t.log.Info("mcpbridge: forwarding a tunnel's notification failed", "method", method, "error", err)
	}
}

// response routes the client's answer to a request the child sent into
// the tunnel.
func (t *Tunnel) response(m *wire.Message) {
	id, _ := rawjson.StringValue(m.ID)
	t.mu.Lock()
	ch := t.asked[id]
	delete(t.asked, id)
	t.mu.Unlock()
	if ch == nil {
		t.log.Debug("mcpbridge: dropped a response to an unknown id", "id", string(m.ID))
		return
	}
	var o fanout.Outcome
	if m.HasError() {
		e, ok := wire.DecodeError(m.Error)
		o.Err = (*jsonrpc.Error)(e)
		if !ok {
			o.Err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client answered with an invalid error")
		}
	} else {
		res, err := rawjson.Compact(m.Result)
		if err != nil {
			o.Err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client answered with an invalid result")
		}
		o.Result = res
	}
	ch <- o // one slot; the entry was removed under mu, so only we send
}

// TakesRequests reports whether the tunnel can still answer server
// requests.
func (t *Tunnel) TakesRequests() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.closing
}

// Ask forwards a request from the child into the tunnel under the
// bridge-minted id and waits for the tunnel's answer, at most timeout.
func (t *Tunnel) Ask(ctx context.Context, id string, req stdio.ServerRequest, timeout time.Duration) (json.RawMessage, error) {
	if t.CrossModern() { // a 2026 client takes no requests: an input_required round
		if x := t.relatedTask(req); x != nil { // or a task's input request
			return x.questions.Ask(ctx, req, timeout, t.intake)
		}
		return t.askInput(ctx, req, timeout)
	}
	ch := make(chan fanout.Outcome, 1)
	t.mu.Lock()
	if t.closing {
		t.mu.Unlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "The tunnel closed before answering %s", req.Method)
	}
	t.asked[id] = ch
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.asked, id)
		t.mu.Unlock()
	}()
	rawID := rawjson.AppendString(nil, id)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case t.out <- wire.AppendRequest(nil, rawID, req.Method, req.Params):
	case <-t.intake:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "The tunnel closed before answering %s", req.Method)
	case <-t.dead:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "The tunnel closed before answering %s", req.Method)
	case <-timer.C:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client did not answer %s in time", req.Method)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case o := <-ch:
		if o.Err != nil {
			return nil, o.Err
		}
		return o.Result, nil
	case <-t.intake:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "The tunnel closed before answering %s", req.Method)
	case <-timer.C:
		t.cancelAsked(rawID, "The request timed out")
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client did not answer %s in time", req.Method)
	case <-ctx.Done():
		t.cancelAsked(rawID, "Cancelled by the server")
		return nil, ctx.Err()
	}
}

// cancelAsked tells the tunnel that a request it was asked is void.
func (t *Tunnel) cancelAsked(rawID json.RawMessage, reason string) {
	params := append(append([]byte(`{"requestId":`), rawID...), `,"reason":`...)
	params = append(rawjson.AppendString(params, reason), '}')
	t.notes.Push(wire.AppendNotification(nil, "notifications/cancelled", params))
}

func (t *Tunnel) Principal() string { return t.owner }

// Notify is the tunnel's eventSink: the child's unsolicited notifications
// that a direct client would get, restricted to its own resource
// subscriptions and log level.
func (t *Tunnel) Notify(n stdio.Notification) {
	if t.CrossModern() {
		t.crossNotify(n)
		return
	}
	switch n.Method {
	case "notifications/progress":
		return // for a token the Client no longer tracks
	case "notifications/resources/updated":
		raw, _ := rawjson.Member(n.Params, "uri")
		uri, _ := rawjson.StringValue(raw)
		t.mu.Lock()
		wanted := false
		for sub := range t.uris {
			if protocol.Covers(sub, uri) {
				wanted = true
				break
			}
		}
		t.mu.Unlock()
		if !wanted {
			return
		}
	case "notifications/message":
		t.mu.Lock()
		level := t.level
		t.mu.Unlock()
		if level != 0 {
			raw, _ := rawjson.Member(n.Params, "level")
			name, _ := rawjson.StringValue(raw)
			if convert.Level(name) < level {
				return
			}
		}
	}
	t.notes.Push(wire.AppendNotification(nil, n.Method, n.Params))
}

// stopIntake ends what the tunnel takes from the child: server requests
// (those waiting are answered -32603), notifications and listens.
func (t *Tunnel) stopIntake() {
	t.mu.Lock()
	if t.closing {
		t.mu.Unlock()
		return
	}
	t.closing = true
	listens := make([]*tunnelListen, 0, len(t.listens))
	for _, l := range t.listens {
		l.closed.Store(true)
		listens = append(listens, l)
	}
	clear(t.listens)
	subs := make([]*stdio.Subscription, 0, len(t.uriListens))
	for _, sub := range t.uriListens {
		subs = append(subs, sub)
	}
	clear(t.uriListens)
	t.mu.Unlock()
	close(t.intake)
	t.child().Relay.RemoveTunnel(t)
	for _, l := range listens {
		l.sub.Close()
	}
	for _, sub := range subs {
		sub.Close()
	}
	t.endParked()
}

// HalfClose ends the tunnel after the client closed its send side: its
// listens and subscriptions end, its other requests finish and are
// answered, then the stream ends with OK. fail maps the stream's end or
// the child's to the status the stream ends with.
func (t *Tunnel) HalfClose(ctx context.Context, fail func(error) error) error {
	t.stopIntake()
	waited := make(chan struct{})
	go func() { // ends when every request has returned
		t.wg.Wait()
		close(waited)
	}()
	var err error
	select {
	case <-waited:
	case <-ctx.Done():
		err = fail(ctx.Err())
	case <-t.child().Closed():
		err = fail(t.child().Err())
	case <-t.dead:
		err = t.writeErr
	}
	if err != nil {
		t.cancel()
		<-waited
		t.end(false)
		return err
	}
	t.end(true)
	return t.writeErr
}

// Abort ends the tunnel at once: its requests are cancelled (the Client
// tells the child), its listens and subscriptions end.
func (t *Tunnel) Abort() {
	t.cancel()
	t.stopIntake()
	t.wg.Wait()
	t.end(false)
}

// end releases the subscriptions and stops the writer, after it sent what
// is queued when flush is set. Every request goroutine has returned.
func (t *Tunnel) end(flush bool) {
	t.cancel()
	t.releaseURIs()
	t.mu.Lock()
	release := t.levelRelease
	t.levelRelease = nil
	t.mu.Unlock()
	if release != nil {
		release()
	}
	t.stop.Do(func() {
		if flush {
			close(t.flush)
		} else {
			close(t.quit)
		}
	})
	<-t.dead
}
