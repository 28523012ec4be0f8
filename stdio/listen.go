package stdio

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/dropq"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Overflow says which events a full subscription buffer drops.
type Overflow int

const (
	// DropOldest discards the oldest queued event to make room.
	DropOldest Overflow = iota
	// DropNewest discards the arriving event.
	DropNewest
)

// DefaultMaxBuffer is ListenOptions.MaxBuffer's default.
const DefaultMaxBuffer = 100

// ListenOptions tune a subscription. The zero value means the defaults.
type ListenOptions struct {
	// Timeout bounds the wait for the acknowledgement (default: the
	// Client's RequestTimeout).
	Timeout time.Duration
	// MaxBuffer bounds the events not yet taken by Next (default 100).
	MaxBuffer int
	// Overflow says what a full buffer drops (default DropOldest).
	Overflow Overflow
	// Meta is merged into the listen request's params._meta, after the
	// stamped keys (as CallOptions.Meta is). It must be a JSON object.
	Meta json.RawMessage
	// Verbatim sends no stamped _meta: the request's _meta is Meta alone
	// (as CallOptions.Verbatim).
	Verbatim bool
}

// Event is one notification of a subscription, with its _meta intact.
type Event struct {
	// Method is the notification's method, e.g.
	// "notifications/resources/updated".
	Method string
	// Params is its params as sent, subscription id in _meta included.
	Params json.RawMessage
	// Dropped counts events the buffer discarded while this one was
	// queued: just before it (DropOldest) or just after it (DropNewest).
	// Each drop is reported once.
	Dropped int
}

// Subscription is an open subscriptions/listen stream of a 2026-07-28
// connection. Its events are read with Next, by one goroutine at a time;
// Close may be called from any goroutine.
type Subscription struct {
	c  *Client
	id int64

	next sync.Mutex // serialises Next

	// events holds the queued events and the stream's end (io.EOF for a
	// normal end, else a *jsonrpc.Error), fires its signal when something
	// changed, and its lock guards accepted.
	events   *dropq.Stream[Event]
	accepted json.RawMessage
	acked    chan struct{} // closed at the acknowledgement
}

// Listen opens a subscriptions/listen stream with filter as its
// notifications object (for example {"toolsListChanged":true,
// "resourceSubscriptions":["file:///a"]}) and waits for the server's
// acknowledgement. On a legacy connection it returns -32601 and sends
// nothing.
//
// Events, the acknowledgement and the stream's end are routed by the
// subscription id (the listen request's id). Failures before the
// acknowledgement keep nothing open: a JSON-RPC error is returned as the
// server sent it; a stream that ends first gives -32000; a timeout gives
// -32001 and a cancellation to the server.
func (c *Client) Listen(ctx context.Context, filter json.RawMessage, opts *ListenOptions) (*Subscription, error) {
	var o ListenOptions
	if opts != nil {
		o = *opts
	}
	if err := c.terminal(); err != nil { // a dead connection says so first (docs/stdio.md, scenario 24)
		return nil, err
	}
	e := c.era.Load()
	if e == nil || !e.modern {
		version := ""
		if e != nil {
			version = e.version
		}
		return nil, jsonrpc.WithData(jsonrpc.CodeMethodNotFound, "subscriptions/listen needs protocol version 2026-07-28",
			map[string]string{"method": "subscriptions/listen", "protocolVersion": version})
	}
	switch {
	case o.MaxBuffer < 0:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid ListenOptions: MaxBuffer is negative")
	case o.MaxBuffer == 0:
		o.MaxBuffer = DefaultMaxBuffer
	}
	if o.Timeout == 0 {
		o.Timeout = c.cfg.RequestTimeout
	}
	f, err := rawjson.Compact(filter)
	if err != nil || !rawjson.IsObject(f) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "the listen filter must be a JSON object")
	}
	stamp := e
	if o.Verbatim {
		stamp = nil
	}
	params, err := stamp.params(append(append([]byte(`{"notifications":`), f...), '}'), o.Meta, nil)
	if err != nil {
		return nil, err
	}
	s := &Subscription{
		c: c, id: c.nextID.Add(1), events: dropq.NewStream[Event](o.MaxBuffer, o.Overflow == DropNewest),
		acked: make(chan struct{}),
	}
	buf := wire.AppendRequest(nil, rawjson.AppendInt(nil, s.id), "subscriptions/listen", params)
	if limit := c.cfg.MaxRequestBytes; limit > 0 && len(buf) > limit {
		return nil, requestTooLarge(len(buf), limit)
	}
	c.mu.Lock()
	if c.err != nil {
		e := c.err
		c.mu.Unlock()
		return nil, e
	}
	c.subs[s.id] = s
	c.mu.Unlock()

	var timerC <-chan time.Time
	if o.Timeout > 0 {
		t := time.NewTimer(o.Timeout)
		defer t.Stop()
		timerC = t.C
	}
	select {
	case c.writes <- &frame{buf: buf}:
	case <-c.closing:
		return nil, c.terminal()
	case <-timerC:
		s.drop()
		return nil, timeoutError(o.Timeout)
	case <-ctx.Done():
		s.drop()
		return nil, ctxError(ctx)
	}
wait:
	for {
		select {
		case <-s.acked:
			break wait
		case <-s.events.C(): // an early event, or the end of the stream
			endErr, ended := s.events.CloseIfEnded()
			if !ended {
				continue
			}
			if e, ok := endErr.(*jsonrpc.Error); ok {
				return nil, e
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The subscription ended before it was acknowledged"}
		case <-timerC:
			e := timeoutError(o.Timeout)
			s.abort(e, "Acknowledgement timed out")
			return nil, e
		case <-ctx.Done():
			e := ctxError(ctx)
			s.abort(e, e.Message)
			return nil, e
		}
	}
	s.events.Lock()
	accepted, early := s.accepted, s.events.Q().Len() > 0
	s.events.Unlock()
	if !rawjson.IsObject(accepted) {
		e := &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Invalid acknowledgement"}
		s.abort(e, "Invalid acknowledgement")
		return nil, e
	}
	if early { // events that came before the acknowledgement are first
		s.events.Wake()
	}
	return s, nil
}

// ID returns the subscription id: the listen request's JSON-RPC id.
func (s *Subscription) ID() int64 { return s.id }

// Accepted returns the notifications object of the acknowledgement: the
// filter as the server honours it, possibly narrower than requested.
func (s *Subscription) Accepted() json.RawMessage {
	s.events.Lock()
	defer s.events.Unlock()
	return s.accepted
}

// Next returns the next event. After the last queued event, a normal end of
// the stream gives io.EOF and a failure its *jsonrpc.Error, on every later call too;
// after Close it gives -32000. A ctx that ends gives -32001 and leaves the
// queue untouched.
func (s *Subscription) Next(ctx context.Context) (Event, error) {
	s.next.Lock()
	defer s.next.Unlock()
	it, err := s.events.Next(ctx, subscriptionClosed, func(ctx context.Context) error { return ctxError(ctx) })
	if err != nil {
		return Event{}, err
	}
	ev := it.V
	ev.Dropped = it.Dropped
	return ev, nil
}

// subscriptionClosed is Next's error after Close.
func subscriptionClosed() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Subscription closed"}
}

// Close ends the subscription: it discards queued events and, unless the
// stream already ended, sends notifications/cancelled for it. It is
// idempotent and returns nil.
func (s *Subscription) Close() error {
	first, wasOpen := s.events.Close()
	if !first {
		return nil
	}
	s.c.mu.Lock()
	if s.c.subs[s.id] == s {
		delete(s.c.subs, s.id)
	}
	healthy := s.c.err == nil
	s.c.mu.Unlock()
	if wasOpen && healthy {
		s.c.cancelRequest(s.id, nil, CancelReason{Reason: "Closed by the client", Given: true})
	}
	return nil
}

// drop forgets a subscription whose request was never written.
func (s *Subscription) drop() {
	s.c.mu.Lock()
	if s.c.subs[s.id] == s {
		delete(s.c.subs, s.id)
	}
	s.c.mu.Unlock()
}

// abort forgets a subscription that failed before Listen returned, and
// tells the server.
func (s *Subscription) abort(e *jsonrpc.Error, reason string) {
	s.c.mu.Lock()
	mine := s.c.subs[s.id] == s
	if mine {
		delete(s.c.subs, s.id)
	}
	healthy := s.c.err == nil
	s.c.mu.Unlock()
	s.events.Abort(e)
	if mine && healthy {
		s.c.cancelRequest(s.id, nil, CancelReason{Reason: reason, Given: true})
	}
}

// push queues an event from the reader, dropping by the overflow policy.
func (s *Subscription) push(ev Event) { s.events.PushLive(ev) }

// ack records the acknowledgement.
func (s *Subscription) ack(params json.RawMessage) {
	s.events.Lock()
	select {
	case <-s.acked:
		s.events.Unlock()
		return // a second acknowledgement is ignored
	default:
	}
	s.accepted, _ = rawjson.Member(params, "notifications")
	close(s.acked)
	s.events.Unlock()
}

// end finishes the stream with err (io.EOF for a normal end). Queued events
// stay deliverable unless discard is set.
func (s *Subscription) end(err error, discard bool) { s.events.End(err, discard) }

// terminal handles the response to the listen request, which ends the
// stream: a complete result normally, an error with that error, an
// input_required result with -32000.
func (s *Subscription) terminal(r response) {
	s.c.mu.Lock()
	if s.c.subs[s.id] == s {
		delete(s.c.subs, s.id)
	}
	s.c.mu.Unlock()
	switch {
	case r.err != nil:
		s.end(r.err, false)
	default:
		rt, ok := rawjson.Member(r.result, "resultType")
		if v, _ := rawjson.StringValue(rt); ok && v != "complete" {
			s.end(&jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The subscription ended with resultType " + v}, false)
			return
		}
		s.end(io.EOF, false)
	}
}

// endSubscription handles the child's notifications/cancelled for a listen
// id, which 2026-07-28 allows as a normal end.
func (c *Client) endSubscription(target json.RawMessage) bool {
	id, ok := wire.IntID(target)
	if !ok {
		return false
	}
	c.mu.Lock()
	s := c.subs[id]
	if s != nil {
		delete(c.subs, id)
	}
	c.mu.Unlock()
	if s == nil {
		return false
	}
	s.end(io.EOF, false)
	return true
}

// routeEvent hands a notification carrying a subscription id to its
// subscription.
func (c *Client) routeEvent(m *wire.Message) bool {
	c.mu.Lock()
	n := len(c.subs)
	c.mu.Unlock()
	if n == 0 {
		return false
	}
	meta, ok := rawjson.Member(m.Params, "_meta")
	if !ok {
		return false
	}
	raw, _ := rawjson.Member(meta, protocol.MetaSubscriptionID)
	id, ok := wire.IntID(raw)
	if !ok {
		return false
	}
	c.mu.Lock()
	s := c.subs[id]
	c.mu.Unlock()
	if s == nil {
		return false
	}
	params := owned(m.Params, m.Dirty)
	if m.Method == "notifications/subscriptions/acknowledged" {
		s.ack(params)
		return true
	}
	s.push(Event{Method: m.Method, Params: params})
	return true
}
