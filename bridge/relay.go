package bridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio"
)

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

	// secure: callers are authenticated, so a request from the child
	// goes only to callers of the principal whose calls are in flight
	// (serverreq.go); otherwise every caller is the same anonymous one.
	secure bool

	// settle is the child's logging level keeper's (loglevel.go): a call
	// is about to go out. Set before the child serves; nil: none.
	settle func()

	mu      sync.Mutex
	calls   int                        // calls in flight on the child that the bridge knows of
	owners  map[string]int             // calls in flight by principal name
	streams map[*streamReg]struct{}    // registered call and opted-in streams
	tunnels []tunnelSink               // open Connect tunnels, oldest first
	sinks   map[eventSink]struct{}     // receivers of unsolicited notifications
	uris    map[string]*uriSub         // legacy resources/subscribe, reference-counted
	pending map[string]*pendingRequest // server requests offered on streams, by minted id
}

// newRelay is the relay of a child of server. roots is the roots/list
// answer (nil: not configured); timeout bounds each server request's
// wait for an answer.
func newRelay(server string, roots json.RawMessage, timeout time.Duration, secure bool, log *slog.Logger) *relay {
	r := &relay{
		server: server, timeout: timeout, limit: stdio.DefaultMaxServerRequests, log: log, secure: secure,
		owners:  map[string]int{},
		streams: map[*streamReg]struct{}{}, sinks: map[eventSink]struct{}{},
		uris: map[string]*uriSub{}, pending: map[string]*pendingRequest{},
	}
	if roots != nil {
		r.roots = append(append(json.RawMessage(`{"roots":`), roots...), '}')
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

// enter counts a call in flight on the child, by the principal of ctx,
// for the rules that a lone opted-in call is the cause of a server request
// and that a request goes only to the principal whose calls are in flight.
// Every path that calls the child uses it: defer c.relay.enter(ctx)().
func (r *relay) enter(ctx context.Context) (leave func()) {
	who := access.CallerID(ctx)
	r.mu.Lock()
	r.countCall(who, 1)
	r.mu.Unlock()
	if r.settle != nil {
		r.settle()
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
func (r *relay) countCall(who string, delta int) {
	r.calls += delta
	if !r.secure {
		return
	}
	if r.owners[who] += delta; r.owners[who] == 0 {
		delete(r.owners, who)
	}
}

// inFlight returns the principals with calls in flight on a secure relay;
// ok is false on one that is not.
func (r *relay) inFlight() (who []string, ok bool) {
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
func (r *relay) owner() (who string, ok bool) {
	if !r.secure {
		return "", true
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
func (r *relay) tunnel() tunnelSink {
	r.mu.Lock()
	defer r.mu.Unlock()
	who, ok := r.owner()
	if !ok {
		return nil
	}
	for i := len(r.tunnels) - 1; i >= 0; i-- {
		if t := r.tunnels[i]; t.principal() == who && t.takesRequests() && t.asking() {
			return t
		}
	}
	for i := len(r.tunnels) - 1; i >= 0; i-- {
		if t := r.tunnels[i]; t.principal() == who && t.takesRequests() && !t.crossModern() {
			return t
		}
	}
	return nil
}

func (r *relay) addTunnel(t tunnelSink) {
	r.mu.Lock()
	r.tunnels = append(r.tunnels, t)
	r.sinks[t] = struct{}{}
	r.mu.Unlock()
}

func (r *relay) removeTunnel(t tunnelSink) {
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

// eventSink receives the child's unsolicited notifications from the
// relay. notify runs on the stdio Client's reader goroutine: it must not
// block. principal is the caller the sink serves (access.CallerID).
type eventSink interface {
	notify(n stdio.Notification)
	principal() string
}

// tunnelSink is a Connect tunnel on the child, as the relay sees it: a
// sink of its notifications that may also be asked the child's requests.
type tunnelSink interface {
	eventSink
	// takesRequests reports whether it can still answer server requests.
	takesRequests() bool
	// asking reports a 2026 client's call in flight that may ask for
	// input (an input round takes the request).
	asking() bool
	// crossModern reports a 2026 client in front of a legacy child: it
	// takes requests only as input rounds.
	crossModern() bool
	// ask forwards a request of the child under the minted id and waits
	// for the answer, at most timeout.
	ask(ctx context.Context, id string, req stdio.ServerRequest, timeout time.Duration) (json.RawMessage, error)
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
func (r *relay) onNotification(n stdio.Notification) {
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
	sinks := make([]eventSink, 0, len(r.sinks))
	for s := range r.sinks {
		if !restricted || s.principal() == who {
			sinks = append(sinks, s)
		}
	}
	r.mu.Unlock()
	for _, s := range sinks {
		s.notify(n)
	}
}

func (r *relay) addSink(s eventSink) {
	r.mu.Lock()
	r.sinks[s] = struct{}{}
	r.mu.Unlock()
}

func (r *relay) removeSink(s eventSink) {
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

// subscribeURI takes a reference on uri, sending resources/subscribe when
// it is the first. It returns the child's error for a refused subscribe;
// on success the caller must release the reference with unsubscribeURI.
// The child call is not bound to ctx (other subscribers may wait for it),
// only to timeout.
func (r *relay) subscribeURI(ctx context.Context, c *stdio.Client, uri string, timeout time.Duration) error {
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

// unsubscribeURI releases a reference taken by subscribeURI, sending
// resources/unsubscribe when it was the last.
func (r *relay) unsubscribeURI(c *stdio.Client, uri string, timeout time.Duration) {
	r.mu.Lock()
	e := r.uris[uri]
	r.mu.Unlock()
	if e != nil {
		r.release(c, uri, e, timeout)
	}
}

func (r *relay) release(c *stdio.Client, uri string, e *uriSub, timeout time.Duration) {
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
func (r *relay) uriCall(ctx context.Context, c *stdio.Client, method, uri string, timeout time.Duration) error {
	defer r.enter(ctx)()
	params := append(rawjson.AppendString([]byte(`{"uri":`), uri), '}')
	_, err := c.Call(context.WithoutCancel(ctx), method, json.RawMessage(params), &stdio.CallOptions{Timeout: timeout})
	return err
}
