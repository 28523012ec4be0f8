// Package fanout is everything of one child that is not a call of its
// own (docs/architecture.md, "Subscribe" and "Requests from a legacy
// child"): the Relay, which fans the child's unsolicited notifications out
// to the streams and tunnels that may have them (attributed ones to their
// principal only), shares a legacy child's resource subscriptions by
// reference count, and routes the child's requests to a tunnel or to the
// streams that opted in; the Listens a 2026 child's Subscribe streams
// share; and a legacy child's logging level (ChildLevel). Every queue in
// it is bounded, and what happens when one is full is written where it is
// declared.
package fanout

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// StreamBuffer bounds the events a Subscribe stream (and a tunnel's
// unsolicited notifications) may have waiting for the gRPC client. When it
// is full the oldest event is discarded and the next one sent carries the
// count in `dropped` (2026 children: the stdio Subscription buffer does the
// same with the same bound).
const StreamBuffer = 64

// Relay is everything of one child that is not a call of its own: the
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
//  3. a request about a task (its _meta's related-task) that a tunnel's
//     translation created (BindTask): to that tunnel.
//  4. the most recently opened Connect tunnel on the child: forwarded into
//     it under a bridge-minted id (tunnel.ask).
//  5. the opted-in streams (streamReg with optIn): offered as a
//     ServerRequest, answered by RespondToServerRequest; the lone call in
//     flight alone when it is an opted-in stream.
//  6. nobody: -32601 at once; but roots/list on the bridge's own
//     connection to a legacy child (NoRootsAlone) is answered no roots.
//
// Bounds: the stdio Client runs at most MaxServerRequests handlers at once
// (more are refused -32603 with retryable) and every one of them waits at
// most ServerRequestTimeout, so pending and every per-stream queue, which
// is sized to that limit, can never overflow.
type Relay struct {
	Server  string
	roots   json.RawMessage // the ListRootsResult answered for roots/list; nil: not configured
	Timeout time.Duration
	limit   int // the stdio Client's MaxServerRequests
	log     *slog.Logger
	client  atomic.Pointer[stdio.Client]

	// Private is a tunnel's own child's relay, set before the child
	// serves: a request the child sends before its tunnel is attached (a
	// server that asks at once, roots/list right after initialized) waits
	// for the tunnel, at most privateWait, instead of finding nobody.
	Private  bool
	attached chan struct{} // closed (and replaced) by AddTunnel, under mu

	// secure: callers are authenticated, so a request from the child
	// goes only to callers of the principal whose calls are in flight
	// (serverreq.go); otherwise every caller is the same anonymous one.
	secure bool

	// Settle is the child's logging level keeper's (loglevel.go): a call
	// is about to go out. Set before the child serves; nil: none.
	Settle func()

	// Owner, when set, is the one principal the child serves (a tunnel's
	// private child): everything it sends unsolicited is that
	// principal's, whatever is in flight. Set before the child serves.
	Owner string

	// NoRootsAlone, set for a child the bridge itself connects (a shared
	// or pool child, a session's child), answers the child's roots/list
	// with no roots when no caller is there to ask: the bridge declared
	// roots to it, and a client with no workspace open has none, rather
	// than a roots/list it does not know (-32601). A tunnel's private
	// child, which has its host's own capabilities, gets no such answer.
	// Set before Hook.
	NoRootsAlone bool

	mu      sync.Mutex
	calls   int                        // calls in flight on the child that the bridge knows of
	owners  map[string]int             // calls in flight by principal name
	streams map[*StreamReg]struct{}    // registered call and opted-in streams
	tunnels []Tunnel                   // open Connect tunnels, oldest first
	sinks   map[Sink]struct{}          // receivers of unsolicited notifications
	uris    map[string]*uriSub         // legacy resources/subscribe, reference-counted
	pending map[string]*pendingRequest // server requests offered on streams, by minted id
	tasks   map[string]Tunnel          // the tunnel whose translation created each task (BindTask)
	expect  int                        // calls that may create a task to be bound (ExpectTask)
	bound   chan struct{}              // closed (and replaced) by BindTask and each expectation's end
}

// NewRelay is the relay of a child of server. roots is the roots/list
// answer (nil: not configured); timeout bounds each server request's
// wait for an answer.
func NewRelay(server string, roots json.RawMessage, timeout time.Duration, secure bool, log *slog.Logger) *Relay {
	r := &Relay{
		Server: server, Timeout: timeout, limit: stdio.DefaultMaxServerRequests, log: log, secure: secure,
		owners:  map[string]int{},
		streams: map[*StreamReg]struct{}{}, sinks: map[Sink]struct{}{},
		uris: map[string]*uriSub{}, pending: map[string]*pendingRequest{}, tasks: map[string]Tunnel{},
		attached: make(chan struct{}), bound: make(chan struct{}),
	}
	if roots != nil {
		r.roots = append(append(json.RawMessage(`{"roots":`), roots...), '}')
	}
	return r
}

// Hook installs the relay's callbacks in the configuration of the child it
// serves.
func (r *Relay) Hook(cfg stdio.ClientConfig) stdio.ClientConfig {
	cfg.OnServerRequest = r.onServerRequest
	if r.NoRootsAlone {
		cfg.OnServerRequest = r.rootsOrNone
	}
	cfg.OnNotification = r.onNotification
	if cfg.MaxServerRequests > 0 {
		r.limit = cfg.MaxServerRequests
	}
	return cfg
}

// noRoots is the roots/list answer of a relay with no caller to ask.
var noRoots = json.RawMessage(`{"roots":[]}`)

// rootsOrNone is onServerRequest, but for a roots/list that nobody could
// be asked (the relay's own -32601, not a caller's answer): no roots
// (NoRootsAlone).
func (r *Relay) rootsOrNone(ctx context.Context, req stdio.ServerRequest) (json.RawMessage, error) {
	res, err := r.onServerRequest(ctx, req)
	if req.Method != "roots/list" || err == nil {
		return res, err
	}
	if c := r.client.Load(); c != nil && protocol.Modern(c.Protocol()) {
		return res, err // a 2026 child sends no requests: roots/list is unknown
	}
	var e *jsonrpc.Error
	if errors.As(err, &e) && e.Code == jsonrpc.CodeMethodNotFound && e.Message == MethodNotFound(req.Method).Message {
		return noRoots, nil
	}
	return res, err
}

// Attach records the child's Client once stdio.Connect negotiated it.
// Until then the relay asks nobody: the Client's era is written by
// Connect without synchronisation, so its Protocol may not be read
// before Connect returned (the atomic store publishes it).
func (r *Relay) Attach(c *stdio.Client) { r.client.Store(c) }

// Enter counts a call in flight on the child, by the principal of ctx,
// for the rules that a lone opted-in call is the cause of a server request
// and that a request goes only to the principal whose calls are in flight.
// Every path that calls the child uses it: defer c.relay.Enter(ctx)().
func (r *Relay) Enter(ctx context.Context) (leave func()) {
	who := access.CallerID(ctx)
	r.mu.Lock()
	r.countCall(who, 1)
	r.mu.Unlock()
	if r.Settle != nil {
		r.Settle()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			r.countCall(who, -1)
			r.mu.Unlock()
		})
	}
}

// countCall adds delta calls in flight of who; r.mu is held. The count by
// principal is kept only where it routes anything (a secure relay).
func (r *Relay) countCall(who string, delta int) {
	r.calls += delta
	if !r.secure {
		return
	}
	if r.owners[who] += delta; r.owners[who] == 0 {
		delete(r.owners, who)
	}
}

// Load is how busy a child is: calls in flight and attached streams and
// tunnels.
func (r *Relay) Load() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls + len(r.streams) + len(r.sinks)
}

// InFlight returns the principals with calls in flight on a secure relay;
// ok is false on one that is not.
func (r *Relay) InFlight() (who []string, ok bool) {
	if !r.secure {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for w := range r.owners {
		who = append(who, w)
	}
	return who, true
}

// owner is the principal a request from the child belongs to: the one
// whose calls are in flight. ok is false when that cannot be told (no call
// in flight, or calls of several principals) on a secure relay; r.mu is
// held.
func (r *Relay) owner() (who string, ok bool) {
	if !r.secure {
		return "", true
	}
	if r.Owner != "" {
		return r.Owner, true
	}
	if len(r.owners) != 1 {
		return "", false
	}
	for who := range r.owners {
		return who, true
	}
	return "", false
}

// tunnel returns the tunnel to ask: the most recent one whose 2026 client
// has a call in flight that may ask (crossera.go), else the most recently
// opened one that takes server requests as requests. A 2026 client with no
// such call can take none.
func (r *Relay) tunnel() Tunnel {
	r.mu.Lock()
	defer r.mu.Unlock()
	who, ok := r.owner()
	if !ok {
		return nil
	}
	for i := len(r.tunnels) - 1; i >= 0; i-- {
		if t := r.tunnels[i]; t.Principal() == who && t.TakesRequests() && t.Asking() {
			return t
		}
	}
	for i := len(r.tunnels) - 1; i >= 0; i-- {
		if t := r.tunnels[i]; t.Principal() == who && t.TakesRequests() && !t.CrossModern() {
			return t
		}
	}
	return nil
}

func (r *Relay) AddTunnel(t Tunnel) {
	r.mu.Lock()
	r.tunnels = append(r.tunnels, t)
	r.sinks[t] = struct{}{}
	close(r.attached)
	r.attached = make(chan struct{})
	r.mu.Unlock()
}

// privateWait bounds how long a private child's request waits for its
// tunnel to be attached.
const privateWait = 10 * time.Second

// awaitTunnel returns the tunnel to ask (tunnel), waiting for one to be
// attached, at most privateWait or until ctx ends; nil if none comes.
func (r *Relay) awaitTunnel(ctx context.Context) Tunnel {
	t := time.NewTimer(privateWait)
	defer t.Stop()
	for {
		if tun := r.tunnel(); tun != nil {
			return tun
		}
		r.mu.Lock()
		attached := r.attached
		r.mu.Unlock()
		select {
		case <-attached:
		case <-t.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

func (r *Relay) RemoveTunnel(t Tunnel) {
	r.mu.Lock()
	for i, x := range r.tunnels {
		if x == t {
			r.tunnels = append(r.tunnels[:i], r.tunnels[i+1:]...)
			break
		}
	}
	delete(r.sinks, t)
	for id, x := range r.tasks {
		if x == t {
			delete(r.tasks, id)
		}
	}
	r.mu.Unlock()
}

// maxBoundTasks bounds the tasks bound to tunnels on one child; past it
// the binding is not kept, and the task's requests are routed as any
// other request of the child is.
const maxBoundTasks = 4096

// BindTask routes the child's requests about task id (those whose _meta
// names it as their related task, 2025-11-25) to t: a tunnel that
// translates a 2026 client's task into the legacy child's, and takes the
// task's questions as its input requests. The binding ends with the
// tunnel.
func (r *Relay) BindTask(id string, t Tunnel) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.tasks) < maxBoundTasks {
		r.tasks[id] = t
	}
	r.signalBound()
}

// signalBound wakes the requests waiting for a binding; r.mu is held.
func (r *Relay) signalBound() {
	close(r.bound)
	r.bound = make(chan struct{})
}

// ExpectTask announces a call that may create a task its caller will
// bind: until done, a request about a task not bound yet waits for the
// binding (at most taskBindWait), since a task's work may ask before the
// call that created it is answered.
func (r *Relay) ExpectTask() (done func()) {
	r.mu.Lock()
	r.expect++
	r.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			r.expect--
			r.signalBound()
			r.mu.Unlock()
		})
	}
}

// taskBindWait bounds a request's wait for its task's binding.
const taskBindWait = 2 * time.Second

// taskTunnel is the tunnel bound to the task a request of the child
// names as its related task, nil for none: waiting, while a call that
// may bind it is out (ExpectTask), at most taskBindWait.
func (r *Relay) taskTunnel(ctx context.Context, params json.RawMessage) Tunnel {
	id := protocol.RelatedTask(params)
	if id == "" {
		return nil
	}
	timer := time.NewTimer(taskBindWait)
	defer timer.Stop()
	for {
		r.mu.Lock()
		t, expect, bound := r.tasks[id], r.expect, r.bound
		r.mu.Unlock()
		if t != nil || expect == 0 {
			return t
		}
		select {
		case <-bound:
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// Sink receives the child's unsolicited notifications from the
// relay. notify runs on the stdio Client's reader goroutine: it must not
// block. principal is the caller the sink serves (access.CallerID).
type Sink interface {
	Notify(n stdio.Notification)
	Principal() string
}

// Tunnel is a Connect tunnel on the child, as the relay sees it: a
// sink of its notifications that may also be asked the child's requests.
type Tunnel interface {
	Sink
	// TakesRequests reports whether it can still answer server requests.
	TakesRequests() bool
	// Asking reports a 2026 client's call in flight that may ask for
	// input (an input round takes the request).
	Asking() bool
	// CrossModern reports a 2026 client in front of a legacy child: it
	// takes requests only as input rounds.
	CrossModern() bool
	// Ask forwards a request of the child under the minted id and waits
	// for the answer, at most timeout.
	Ask(ctx context.Context, id string, req stdio.ServerRequest, timeout time.Duration) (json.RawMessage, error)
}

// attributed are the unsolicited notifications that stem from a caller's
// call rather than from the server's shared state: a log message, and
// progress whose token no call tracks any more. Like a server request
// (serverreq.go), such a notification belongs to the principal whose
// calls are in flight on the child; on a secure relay it reaches only
// that principal's sinks, and none when that cannot be told (no call in
// flight, or calls of several principals). List changes and resource
// updates are the server's own state and reach every sink that asked.
var attributed = map[string]bool{"notifications/message": true, "notifications/progress": true}

// onNotification is ClientConfig.OnNotification: it fans a notification
// out to the sinks it may reach, in arrival order.
func (r *Relay) onNotification(n stdio.Notification) {
	r.mu.Lock()
	who, restricted := "", false
	if attributed[n.Method] && r.secure {
		var known bool
		if who, known = r.owner(); !known {
			r.mu.Unlock()
			return // it cannot be told whose it is: it goes to no one
		}
		restricted = true
	}
	sinks := make([]Sink, 0, len(r.sinks))
	for s := range r.sinks {
		if !restricted || s.Principal() == who {
			sinks = append(sinks, s)
		}
	}
	r.mu.Unlock()
	for _, s := range sinks {
		s.Notify(n)
	}
}

func (r *Relay) AddSink(s Sink) {
	r.mu.Lock()
	r.sinks[s] = struct{}{}
	r.mu.Unlock()
}

func (r *Relay) RemoveSink(s Sink) {
	r.mu.Lock()
	delete(r.sinks, s)
	r.mu.Unlock()
}

// uriSub is one URI the relay subscribed on a legacy child.
type uriSub struct {
	refs    int
	leaving bool          // resources/unsubscribe is on its way
	ready   chan struct{} // closed when the child answered (un)subscribe
	err     error         // the subscribe's failure
}

// SubscribeURI takes a reference on uri, sending resources/subscribe when
// it is the first. It returns the child's error for a refused subscribe;
// on success the caller must release the reference with unsubscribeURI.
// The child call is not bound to ctx (other subscribers may wait for it),
// only to timeout.
func (r *Relay) SubscribeURI(ctx context.Context, c *stdio.Client, uri string, timeout time.Duration) error {
	for {
		r.mu.Lock()
		e := r.uris[uri]
		if e == nil {
			e = &uriSub{refs: 1, ready: make(chan struct{})}
			r.uris[uri] = e
			r.mu.Unlock()
			err := r.uriCall(ctx, c, "resources/subscribe", uri, timeout)
			r.mu.Lock()
			e.err = err
			if err != nil {
				delete(r.uris, uri)
			}
			close(e.ready)
			r.mu.Unlock()
			return err
		}
		ready, leaving := e.ready, e.leaving
		if !leaving {
			e.refs++
		}
		r.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			if !leaving {
				r.release(c, uri, e, timeout)
			}
			return ctx.Err()
		}
		if leaving {
			continue // subscribe afresh once the unsubscribe is through
		}
		if e.err != nil {
			return e.err // the entry is gone; the reference went with it
		}
		return nil
	}
}

// UnsubscribeURI releases a reference taken by subscribeURI, sending
// resources/unsubscribe when it was the last.
func (r *Relay) UnsubscribeURI(c *stdio.Client, uri string, timeout time.Duration) {
	r.mu.Lock()
	e := r.uris[uri]
	r.mu.Unlock()
	if e != nil {
		r.release(c, uri, e, timeout)
	}
}

func (r *Relay) release(c *stdio.Client, uri string, e *uriSub, timeout time.Duration) {
	r.mu.Lock()
	if r.uris[uri] != e || e.leaving {
		r.mu.Unlock()
		return
	}
	e.refs--
	if e.refs > 0 {
		r.mu.Unlock()
		return
	}
	// refs reaches 0 only after the subscribe was answered: its sender
	// holds a reference until then.
	e.leaving = true
	e.ready = make(chan struct{})
	r.mu.Unlock()
	if err := r.uriCall(context.Background(), c, "resources/unsubscribe", uri, timeout); err != nil {
		r.log.Info("mcpbridge: resources/unsubscribe failed", "uri", uri, "error", err)
	}
	r.mu.Lock()
	delete(r.uris, uri)
	close(e.ready)
	r.mu.Unlock()
}

// uriCall sends resources/subscribe or resources/unsubscribe for uri.
func (r *Relay) uriCall(ctx context.Context, c *stdio.Client, method, uri string, timeout time.Duration) error {
	defer r.Enter(ctx)()
	params := append(rawjson.AppendString([]byte(`{"uri":`), uri), '}')
	_, err := c.Call(context.WithoutCancel(ctx), method, json.RawMessage(params), &stdio.CallOptions{Timeout: timeout})
	return err
}
