// Package peer is the HTTP adapter's link to a server (package
// stdio/mcphttp): the requests, notifications and listens a backend sends
// and what comes back, through a stdio.Client (Client, for a connection a
// StartFunc opened) or on a raw connection that carries whole JSON-RPC
// messages (Raw, for an OpenFunc's): there the adapter is the JSON-RPC
// peer itself, as a Client would be (ids of its own, cancellations, the
// server's requests answered through the client, listens), with no line
// encoding, no writer goroutine and no goroutine per call in between.
package peer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/dropq"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Conn is a raw connection that carries whole JSON-RPC messages
// (mcphttp.Conn, whose documentation is the contract).
type Conn interface {
	Send(msg []byte) error
	Recv() ([]byte, error)
	Close() error
}

// Outcome is how a request in flight ended: its result, or the error, and
// whether it was cancelled.
type Outcome struct {
	Result    json.RawMessage
	Err       error
	Cancelled bool
}

// trimLF drops a frame's newline: a raw connection carries messages
// without one.
func trimLF(b []byte) []byte { return bytes.TrimSuffix(b, []byte("\n")) }

// Link is a backend's connection to its server: a Client (StartFunc) or a
// raw connection (OpenFunc).
type Link interface {
	// Begin sends a request and returns it in flight; finished runs once
	// its outcome is decided. opts.ID sends it under the client's own id
	// when that is free. parent bounds a Client's call; the caller cancels
	// a raw one (Inflight.Cancel) when parent ends.
	Begin(parent context.Context, f *Inflight, method string, params json.RawMessage, dirty bool, opts *stdio.CallOptions, finished func())
	Notify(ctx context.Context, method string, params json.RawMessage, dirty bool) error
	Listen(ctx context.Context, filter json.RawMessage) (Subscription, error)
	// Failed is the error that ended the connection; nil while it is open.
	Failed() error
	Close()
	Done() <-chan struct{}
	Pid() int
	Signal(syscall.Signal) error
}

// Subscription is an open subscriptions/listen.
type Subscription interface {
	Accepted() json.RawMessage
	Next(ctx context.Context) (stdio.Event, error)
	Close() error
}

// Inflight is one request in flight on a link: its outcome comes on done,
// once; cancel abandons it with a cause (a stdio.CancelReason passes the
// client's reason on) at any time, also before the link has sent it.
type Inflight struct {
	Out chan Outcome // one slot

	mu    sync.Mutex
	stop  func(cause error) // set once the link has it in flight
	early error             // a cancel that came before
}

func NewInflight() *Inflight { return &Inflight{Out: make(chan Outcome, 1)} }

func (f *Inflight) Cancel(cause error) {
	if cause == nil {
		cause = context.Canceled
	}
	f.mu.Lock()
	stop := f.stop
	if stop == nil && f.early == nil {
		f.early = cause
	}
	f.mu.Unlock()
	if stop != nil {
		stop(cause)
	}
}

// arm hands the link's way of abandoning the request to cancel, and
// returns the cause of a cancel that came first.
func (f *Inflight) arm(stop func(cause error)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stop = stop
	return f.early
}

// Client is a link through a stdio.Client.
type Client struct {
	C  *stdio.Client
	WG *sync.WaitGroup // the adapter's: each call runs in a goroutine of its own
}

func (l Client) Begin(parent context.Context, f *Inflight, method string, params json.RawMessage, _ bool, opts *stdio.CallOptions, finished func()) {
	ctx, cancel := context.WithCancelCause(parent)
	if early := f.arm(cancel); early != nil {
		cancel(early)
	}
	l.WG.Add(1)
	go func() {
		defer l.WG.Done()
		defer cancel(nil)
		defer finished()
		res, err := l.C.Call(ctx, method, params, opts)
		f.Out <- Outcome{res, err, ctx.Err() != nil}
	}()
}

func (l Client) Notify(ctx context.Context, method string, params json.RawMessage, _ bool) error {
	return l.C.Notify(ctx, method, params)
}

func (l Client) Listen(ctx context.Context, filter json.RawMessage) (Subscription, error) {
	sub, err := l.C.Listen(ctx, filter, nil)
	if err != nil {
		return nil, err
	}
	return sub, nil
}

func (l Client) Failed() error                   { return l.C.Err() }
func (l Client) Close()                          { l.C.Close() }
func (l Client) Done() <-chan struct{}           { return l.C.Done() }
func (l Client) Pid() int                        { return l.C.Pid() }
func (l Client) Signal(sig syscall.Signal) error { return l.C.Signal(sig) }

// Bounds of a raw link, as a stdio.Client's defaults.
const (
	rawMaxServerRequests = stdio.DefaultMaxServerRequests
	rawListenBuffer      = stdio.DefaultMaxBuffer
	// rawCloseGrace bounds how long close waits to tell the server about
	// the requests it abandons.
	rawCloseGrace = time.Second
)

// Raw is the adapter's JSON-RPC peer on a Conn.
type Raw struct {
	conn      Conn
	log       *slog.Logger
	onRequest func(context.Context, stdio.ServerRequest) (json.RawMessage, error)
	onNote    func(stdio.Notification)
	// listenMeta is the _meta a listen carries: a 2026-07-28 connection's
	// (connected, as Connect would pin it); nil on any other.
	listenMeta []byte
	nextID     atomic.Int64
	ended      chan struct{} // closed once the reader returned
	closeOnce  sync.Once

	mu       sync.Mutex
	err      *jsonrpc.Error                // terminal; nil while open
	calls    map[string]*rawCall           // requests in flight, by the id they were sent under (canonicalID)
	subs     map[string]*rawSub            // open listens, by their id (canonicalID)
	handlers map[string]context.CancelFunc // the server's requests being answered, by raw id
	running  int
}

// rawCall is one request of the adapter's in flight on a Raw.
type rawCall struct {
	key      string
	id       json.RawMessage // the id it was sent under
	f        *Inflight
	finished func()

	// Guarded by Raw.mu.
	sending bool                // Begin's Send of the request is under way
	held    *stdio.CancelReason // the notice of a cancel that came meanwhile
}

func NewRaw(conn Conn, log *slog.Logger, cfg stdio.ClientConfig, connectedAs string) *Raw {
	l := &Raw{
		conn: conn, log: log, onRequest: cfg.OnServerRequest, onNote: cfg.OnNotification,
		ended: make(chan struct{}),
		calls: map[string]*rawCall{}, subs: map[string]*rawSub{}, handlers: map[string]context.CancelFunc{},
	}
	if connectedAs != "" {
		l.listenMeta = []byte(`{"` + protocol.MetaProtocolVersion + `":"` + protocol.Version20260728 + `","` +
			protocol.MetaClientCapabilities + `":{},"` + protocol.MetaClientInfo + `":` + connectedAs + `}`)
	}
	go l.read()
	return l
}

// idKey is a JSON-RPC id as a key that two spellings of one value share:
// "i" and the integer, or "s" and the string decoded.
func idKey(raw json.RawMessage) (string, bool) {
	if n, ok := wire.IntID(raw); ok {
		return "i" + strconv.FormatInt(n, 10), true
	}
	if s, ok := rawjson.StringValue(raw); ok {
		return "s" + s, true
	}
	return "", false
}

// reserve registers a request under the client's own id when it is given
// and free, else under the next id of the adapter's that is free; l.mu is
// held.
func (l *Raw) reserve(rc *rawCall, own json.RawMessage) {
	if own != nil {
		if k, ok := idKey(own); ok && l.calls[k] == nil && l.subs[k] == nil {
			rc.key, rc.id = k, own
			l.calls[k] = rc
			return
		}
	}
	for {
		n := l.nextID.Add(1)
		k := "i" + strconv.FormatInt(n, 10)
		if l.calls[k] == nil {
			rc.key, rc.id = k, rawjson.AppendInt(nil, n)
			l.calls[k] = rc
			return
		}
	}
}

func (l *Raw) Begin(_ context.Context, f *Inflight, method string, params json.RawMessage, dirty bool, opts *stdio.CallOptions, finished func()) {
	if dirty && params != nil {
		params, _ = rawjson.Compact(params) // valid: Decode checked it
	}
	rc := &rawCall{f: f, finished: finished}
	var own json.RawMessage
	if opts != nil {
		own = opts.ID
	}
	l.mu.Lock()
	if l.err != nil {
		e := l.err
		l.mu.Unlock()
		l.settle(rc, Outcome{Err: e})
		return
	}
	l.reserve(rc, own)
	rc.sending = true
	l.mu.Unlock()
	if early := f.arm(func(cause error) { l.abandon(rc, cause, true) }); early != nil {
		l.abandon(rc, early, false)
		return
	}
	err := l.conn.Send(trimLF(wire.AppendRequest(make([]byte, 0, len(params)+len(method)+48), rc.id, method, params)))
	l.mu.Lock()
	rc.sending = false
	held := rc.held
	l.mu.Unlock()
	if err != nil {
		l.fail(sendFailed(err))
		return
	}
	if held != nil { // cancelled while it was being sent: now the server has it
		l.cancelNotice(rc.id, *held)
	}
}

// settle decides a call's outcome.
func (l *Raw) settle(rc *rawCall, out Outcome) {
	rc.f.Out <- out
	if rc.finished != nil {
		rc.finished()
	}
}

// abandon gives up on a call for cause, telling the server when it was
// sent, unless its outcome was decided first. Whoever takes the call off
// the calls in flight settles it. While Begin is still sending the request
// the notice waits for Begin, which sends it once the request went out:
// on a Conn that several goroutines send on, it could otherwise overtake
// the request, and the server would ignore it and run the request anyway.
func (l *Raw) abandon(rc *rawCall, cause error, sent bool) {
	reason := stdio.CancelReason{Reason: "Request cancelled", Given: true}
	if errors.Is(cause, context.DeadlineExceeded) {
		reason.Reason = "Request timed out"
	}
	errors.As(cause, &reason) // a reason passed on: as it was given
	l.mu.Lock()
	if l.calls[rc.key] != rc {
		l.mu.Unlock()
		return
	}
	delete(l.calls, rc.key)
	if sent && rc.sending {
		rc.held, sent = &reason, false
	}
	l.mu.Unlock()
	if sent {
		l.cancelNotice(rc.id, reason)
	}
	l.settle(rc, Outcome{Err: &jsonrpc.Error{Code: jsonrpc.CodeRequestTimeout, Message: "Request cancelled", Cause: cause}, Cancelled: true})
}

// cancelNotice tells the server that the adapter abandoned its request id.
func (l *Raw) cancelNotice(id json.RawMessage, reason stdio.CancelReason) {
	if l.Failed() != nil {
		return
	}
	l.conn.Send(cancelMessage(id, reason))
}

func cancelMessage(id json.RawMessage, reason stdio.CancelReason) []byte {
	params := append([]byte(`{"requestId":`), id...)
	if reason.Given {
		params = rawjson.AppendString(append(params, `,"reason":`...), reason.Reason)
	}
	return trimLF(wire.AppendNotification(nil, "notifications/cancelled", append(params, '}')))
}

func sendFailed(err error) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The stdio server connection failed", Cause: err}
}

func (l *Raw) Notify(ctx context.Context, method string, params json.RawMessage, dirty bool) error {
	if dirty && params != nil {
		params, _ = rawjson.Compact(params)
	}
	if e := l.terminal(); e != nil {
		return e
	}
	if err := l.conn.Send(trimLF(wire.AppendNotification(nil, method, params))); err != nil {
		e := sendFailed(err)
		l.fail(e)
		return e
	}
	return nil
}

func (l *Raw) terminal() *jsonrpc.Error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

func (l *Raw) Failed() error {
	if e := l.terminal(); e != nil {
		return e
	}
	return nil
}

func (l *Raw) Done() <-chan struct{}       { return l.ended }
func (l *Raw) Pid() int                    { return 0 }
func (l *Raw) Signal(syscall.Signal) error { return errProcessDone }
func (l *Raw) sendAsync(msg []byte)        { go l.conn.Send(msg) }
func (l *Raw) replyError(id json.RawMessage, e *jsonrpc.Error) {
	l.sendAsync(trimLF(wire.AppendError(nil, id, &wire.Error{Code: e.Code, Message: e.Message, Data: e.Data})))
}

var errProcessDone = errors.New("mcphttp: a raw connection has no process")

// Close ends the connection: calls in flight and listens fail with -32000
// "Connection closed", the server hears of each abandoned request (within
// rawCloseGrace), and the Conn is closed.
func (l *Raw) Close() {
	l.closeOnce.Do(func() {
		ids := l.fail(&jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Connection closed"})
		if len(ids) > 0 {
			sent := make(chan struct{})
			go func() {
				defer close(sent)
				for _, id := range ids {
					if l.conn.Send(cancelMessage(id, stdio.CancelReason{Reason: "Connection closed", Given: true})) != nil {
						return
					}
				}
			}()
			t := time.NewTimer(rawCloseGrace)
			select {
			case <-sent:
			case <-t.C:
				l.log.Warn("mcphttp: could not tell the server about abandoned requests", "count", len(ids))
			}
			t.Stop()
		}
		l.conn.Close()
	})
}

// fail ends the connection with e unless it has already ended, and
// returns the ids of the requests it abandoned.
func (l *Raw) fail(e *jsonrpc.Error) []json.RawMessage {
	l.mu.Lock()
	if l.err != nil {
		l.mu.Unlock()
		return nil
	}
	l.err = e
	calls, subs, handlers := l.calls, l.subs, l.handlers
	l.calls, l.subs, l.handlers = map[string]*rawCall{}, map[string]*rawSub{}, map[string]context.CancelFunc{}
	l.mu.Unlock()
	var ids []json.RawMessage
	for _, rc := range calls {
		ids = append(ids, rc.id)
		l.settle(rc, Outcome{Err: e})
	}
	for _, s := range subs {
		s.end(e, true)
	}
	for _, cancel := range handlers {
		cancel()
	}
	return ids
}

// read owns Recv until the connection ends.
func (l *Raw) read() {
	defer close(l.ended)
	for {
		msg, err := l.conn.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				l.fail(&jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The stdio server exited", Cause: err})
			} else {
				l.fail(&jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The stdio server connection failed", Cause: err})
			}
			l.conn.Close()
			return
		}
		l.route(msg)
	}
}

// route dispatches one message of the server; it never waits for a
// caller or the server.
func (l *Raw) route(msg []byte) {
	m, err := wire.Decode(msg)
	if err != nil {
		l.log.Warn("mcphttp: skipped a message that is not JSON-RPC", "error", err)
		return
	}
	switch m.Kind {
	case wire.KindResponse:
		l.response(&m)
	case wire.KindRequest:
		l.serverRequest(&m)
	case wire.KindNotification:
		l.notification(&m)
	}
}

// kept is a member of a message Recv handed over: the adapter's to keep,
// compacted when the message held whitespace or invalid UTF-8.
func kept(raw json.RawMessage, dirty bool) json.RawMessage {
	if raw == nil || !dirty {
		return raw
	}
	out, _ := rawjson.Compact(raw) // valid: Decode checked it
	return out
}

func (l *Raw) response(m *wire.Message) {
	var out Outcome
	switch {
	case m.HasResult() == m.HasError():
		out.Err = &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Invalid JSON-RPC response"}
	case m.HasError():
		e, ok := wire.DecodeError(m.Error)
		out.Err = (*jsonrpc.Error)(e)
		if !ok {
			out.Err = &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Invalid JSON-RPC response"}
		}
	default:
		out.Result = kept(m.Result, m.Dirty)
	}
	key, ok := idKey(m.ID)
	var rc *rawCall
	var sub *rawSub
	if ok {
		l.mu.Lock()
		if rc = l.calls[key]; rc != nil {
			delete(l.calls, key)
		} else if sub = l.subs[key]; sub != nil {
			delete(l.subs, key)
		}
		l.mu.Unlock()
	}
	switch {
	case rc != nil:
		l.settle(rc, out)
	case sub != nil:
		sub.terminal(out)
	case m.NullID() && m.HasError():
		l.log.Warn("mcphttp: the server could not read a request and did not say which", "error", string(m.Error))
	default:
		l.log.Debug("mcphttp: dropped a response to an unknown or abandoned id", "id", string(m.ID))
	}
}

// serverRequest handles a request of the server as a stdio.Client does:
// ping is answered here, the rest by onRequest in a goroutine of its own,
// at most rawMaxServerRequests at once.
func (l *Raw) serverRequest(m *wire.Message) {
	id := m.ID
	if m.Method == "ping" {
		l.sendAsync(trimLF(wire.AppendResponse(nil, id, json.RawMessage(`{}`))))
		return
	}
	key := string(id)
	l.mu.Lock()
	switch _, dup := l.handlers[key]; {
	case l.err != nil:
		l.mu.Unlock()
		return
	case dup:
		l.mu.Unlock()
		l.replyError(id, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Duplicate server request id"))
		return
	case l.onRequest == nil:
		l.mu.Unlock()
		l.replyError(id, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s", m.Method))
		return
	case l.running >= rawMaxServerRequests:
		l.mu.Unlock()
		l.replyError(id, jsonrpc.WithData(jsonrpc.CodeInternalError,
			"Too many server requests in flight ("+strconv.Itoa(rawMaxServerRequests)+")",
			map[string]any{"retryable": true, "limit": rawMaxServerRequests}))
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	l.handlers[key] = cancel
	l.running++
	l.mu.Unlock()
	req := stdio.ServerRequest{ID: id, Method: m.Method, Params: kept(m.Params, m.Dirty)}
	go l.answer(ctx, cancel, key, req)
}

// answer runs onRequest and sends its answer, unless the server cancelled
// the request or the connection ended meanwhile.
func (l *Raw) answer(ctx context.Context, cancel context.CancelFunc, key string, req stdio.ServerRequest) {
	defer cancel()
	result, err := func() (res json.RawMessage, err error) {
		defer func() {
			if v := recover(); v != nil {
				l.log.Error("mcphttp: server request handler panicked", "method", req.Method, "panic", v)
				err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "Server request handler panicked")
			}
		}()
		return l.onRequest(ctx, req)
	}()
	l.mu.Lock()
	l.running--
	_, current := l.handlers[key]
	if current {
		delete(l.handlers, key)
	}
	l.mu.Unlock()
	if !current || ctx.Err() != nil {
		return
	}
	var msg []byte
	var e *jsonrpc.Error
	switch {
	case err == nil:
		out, cerr := rawjson.Compact(result)
		if cerr != nil {
			msg = wire.AppendError(nil, req.ID, (*wire.Error)(jsonrpc.Errorf(jsonrpc.CodeInternalError, "Server request handler returned an invalid result")))
		} else {
			msg = wire.AppendResponse(nil, req.ID, out)
		}
	case errors.As(err, &e):
		msg = wire.AppendError(nil, req.ID, &wire.Error{Code: e.Code, Message: e.Message, Data: e.Data})
	default:
		msg = wire.AppendError(nil, req.ID, (*wire.Error)(jsonrpc.Errorf(jsonrpc.CodeInternalError, "Server request handler failed")))
	}
	l.conn.Send(trimLF(msg))
}

// notification routes a notification of the server: a cancellation of its
// own request or the end of a listen, a listen's event, else onNote.
func (l *Raw) notification(m *wire.Message) {
	params := kept(m.Params, m.Dirty)
	if m.Method == "notifications/cancelled" {
		target, _ := rawjson.Member(params, "requestId")
		if l.cancelHandler(target) || l.endListen(target) {
			return
		}
	}
	if l.routeEvent(m.Method, params) {
		return
	}
	if l.onNote != nil {
		l.onNote(stdio.Notification{Method: m.Method, Params: params})
	}
}

func (l *Raw) cancelHandler(target json.RawMessage) bool {
	if target == nil {
		return false
	}
	l.mu.Lock()
	cancel, ok := l.handlers[string(target)]
	if ok {
		delete(l.handlers, string(target))
	}
	l.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// endListen handles the server's notifications/cancelled for a listen,
// which 2026-07-28 allows as a normal end.
func (l *Raw) endListen(target json.RawMessage) bool {
	key, ok := idKey(target)
	if !ok || target[0] == '"' {
		return false
	}
	l.mu.Lock()
	s := l.subs[key]
	if s != nil {
		delete(l.subs, key)
	}
	l.mu.Unlock()
	if s == nil {
		return false
	}
	s.end(io.EOF, false)
	return true
}

// routeEvent hands a notification that carries a listen's subscription id
// to the listen.
func (l *Raw) routeEvent(method string, params json.RawMessage) bool {
	l.mu.Lock()
	n := len(l.subs)
	l.mu.Unlock()
	if n == 0 {
		return false
	}
	meta, ok := rawjson.Member(params, "_meta")
	if !ok {
		return false
	}
	raw, _ := rawjson.Member(meta, protocol.MetaSubscriptionID)
	if _, isInt := wire.IntID(raw); !isInt {
		return false
	}
	key, _ := idKey(raw)
	l.mu.Lock()
	s := l.subs[key]
	l.mu.Unlock()
	if s == nil {
		return false
	}
	if method == "notifications/subscriptions/acknowledged" {
		s.ack(params)
		return true
	}
	s.push(stdio.Event{Method: method, Params: params})
	return true
}

// rawSub is a listen on a Raw.
type rawSub struct {
	l      *Raw
	key    string
	id     json.RawMessage
	events *dropq.Stream[stdio.Event] // the events and the listen's end
	acked  chan struct{}

	accepted json.RawMessage // guarded by events' lock
}

func (l *Raw) Listen(ctx context.Context, filter json.RawMessage) (Subscription, error) {
	if e := l.terminal(); e != nil {
		return nil, e
	}
	if l.listenMeta == nil {
		return nil, jsonrpc.WithData(jsonrpc.CodeMethodNotFound, "subscriptions/listen needs protocol version 2026-07-28",
			map[string]string{"method": "subscriptions/listen", "protocolVersion": ""})
	}
	f, err := rawjson.Compact(filter)
	if err != nil || !rawjson.IsObject(f) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "the listen filter must be a JSON object")
	}
	params := append(append(append(append([]byte(`{"notifications":`), f...), `,"_meta":`...), l.listenMeta...), '}')
	n := l.nextID.Add(1)
	s := &rawSub{l: l, id: rawjson.AppendInt(nil, n), key: "i" + strconv.FormatInt(n, 10),
		events: dropq.NewStream[stdio.Event](rawListenBuffer, false), acked: make(chan struct{})}
	l.mu.Lock()
	if l.err != nil {
		e := l.err
		l.mu.Unlock()
		return nil, e
	}
	for l.calls[s.key] != nil { // a client's own id in flight
		n = l.nextID.Add(1)
		s.id, s.key = rawjson.AppendInt(nil, n), "i"+strconv.FormatInt(n, 10)
	}
	l.subs[s.key] = s
	l.mu.Unlock()
	if err := l.conn.Send(trimLF(wire.AppendRequest(nil, s.id, "subscriptions/listen", params))); err != nil {
		e := sendFailed(err)
		l.fail(e)
		return nil, e
	}
	for {
		select {
		case <-s.acked:
			s.events.Lock()
			accepted, early := s.accepted, s.events.Q().Len() > 0
			s.events.Unlock()
			if !rawjson.IsObject(accepted) {
				e := &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Invalid acknowledgement"}
				s.abort(e, "Invalid acknowledgement")
				return nil, e
			}
			if early {
				s.events.Wake()
			}
			return s, nil
		case <-s.events.C():
			endErr, ended := s.events.CloseIfEnded()
			if !ended {
				continue
			}
			if e, ok := endErr.(*jsonrpc.Error); ok {
				return nil, e
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The subscription ended before it was acknowledged"}
		case <-ctx.Done():
			e := &jsonrpc.Error{Code: jsonrpc.CodeRequestTimeout, Message: "Request cancelled", Cause: context.Cause(ctx)}
			s.abort(e, e.Message)
			return nil, e
		}
	}
}

func (s *rawSub) Accepted() json.RawMessage {
	s.events.Lock()
	defer s.events.Unlock()
	return s.accepted
}

func (s *rawSub) Next(ctx context.Context) (stdio.Event, error) {
	it, err := s.events.Next(ctx, subscriptionClosed, func(ctx context.Context) error {
		return &jsonrpc.Error{Code: jsonrpc.CodeRequestTimeout, Message: "Request cancelled", Cause: context.Cause(ctx)}
	})
	if err != nil {
		return stdio.Event{}, err
	}
	ev := it.V
	ev.Dropped = it.Dropped
	return ev, nil
}

// subscriptionClosed is Next's error after Close, as stdio.Subscription's.
func subscriptionClosed() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Subscription closed"}
}

// Close ends the listen: queued events are discarded and, unless the
// stream already ended, the server is told.
func (s *rawSub) Close() error {
	first, wasOpen := s.events.Close()
	if !first {
		return nil
	}
	if s.l.forget(s) && wasOpen {
		s.l.cancelNotice(s.id, stdio.CancelReason{Reason: "Closed by the client", Given: true})
	}
	return nil
}

// forget removes a listen from the open ones and reports whether it was
// there on an open connection.
func (l *Raw) forget(s *rawSub) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.subs[s.key] != s {
		return false
	}
	delete(l.subs, s.key)
	return l.err == nil
}

// abort forgets a listen that failed before listen returned, and tells
// the server.
func (s *rawSub) abort(e *jsonrpc.Error, reason string) {
	mine := s.l.forget(s)
	s.events.Abort(e)
	if mine {
		s.l.cancelNotice(s.id, stdio.CancelReason{Reason: reason, Given: true})
	}
}

func (s *rawSub) push(ev stdio.Event) { s.events.PushLive(ev) }

func (s *rawSub) ack(params json.RawMessage) {
	s.events.Lock()
	defer s.events.Unlock()
	select {
	case <-s.acked:
		return // a second acknowledgement is ignored
	default:
	}
	s.accepted, _ = rawjson.Member(params, "notifications")
	close(s.acked)
}

func (s *rawSub) end(err error, discard bool) { s.events.End(err, discard) }

// terminal handles the response to the listen, which ends the stream.
func (s *rawSub) terminal(out Outcome) {
	if out.Err != nil {
		s.end(out.Err, false)
		return
	}
	rt, ok := rawjson.Member(out.Result, "resultType")
	if v, _ := rawjson.StringValue(rt); ok && v != "complete" {
		s.end(&jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The subscription ended with resultType " + v}, false)
		return
	}
	s.end(io.EOF, false)
}
