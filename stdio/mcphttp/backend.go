package mcphttp

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcphttp/internal/peer"
)

// backend is one connection (a child's Client, or a raw Conn) and the
// HTTP streams its unsolicited messages may go to.
type backend struct {
	a      *Adapter
	name   string
	legacy bool         // a 2025 session's child
	link   peer.Link    // set before the backend is published
	used   atomic.Int64 // when a stream last opened or closed, in unix nanoseconds

	mu       sync.Mutex
	inflight []*stream                // POST streams of requests in flight, oldest first
	get      *stream                  // a 2025 session's GET stream, if open
	calls    map[string]*callEntry    // requests in flight by the HTTP client's raw id
	answers  map[string]chan reply    // the child's requests awaiting the client, by raw id
	progress map[string]progressRoute // progress tokens of calls in flight, by the token the child sees
	opened   chan struct{}            // closed (and replaced) when a stream opens
}

// streamWait bounds how long a 2025 child's request waits for a stream
// of its client to carry it: a server that asks at the start of a session
// (roots/list right after initialized) asks before the client's GET
// stream is open.
const streamWait = 10 * time.Second

// progressRoute is where the progress of one call goes, under which token.
type progressRoute struct {
	st    *stream
	token json.RawMessage // the client's
}

func newBackend(a *Adapter, name string, legacy bool) *backend {
	return &backend{
		a:        a,
		name:     name,
		legacy:   legacy,
		calls:    make(map[string]*callEntry),
		answers:  make(map[string]chan reply),
		progress: make(map[string]progressRoute),
		opened:   make(chan struct{}),
	}
}

// streamOpened wakes the requests waiting for a stream; b.mu is held.
func (b *backend) streamOpened() {
	close(b.opened)
	b.opened = make(chan struct{})
}

// callEntry lets a client's notifications/cancelled reach a call, with
// its reason. A nil cancel marks an id two calls share: a cancel for it is
// ambiguous and dropped.
type callEntry struct {
	cancel func(cause error)
}

// reply is the client's response to one of the child's requests.
type reply struct {
	result json.RawMessage
	err    *jsonrpc.Error
}

// stream is an HTTP response that messages are routed to. Only its
// handler writes to the response; everyone else offers it messages.
type stream struct {
	mu       sync.Mutex
	queued   [][]byte      // encoded messages not yet written, at most streamBuffer
	ready    chan struct{} // one slot: fires after a message is queued
	done     chan struct{} // closed when the handler stops writing
	sse      bool          // the client accepts SSE, so messages can precede the response
	logLevel bool          // 2026: the request set a logLevel
}

// newStream is a stream with nothing queued. Most requests' streams carry
// nothing but their response, so the queue grows only as messages come,
// rather than every request paying for streamBuffer slots.
func newStream(sse, logLevel bool) *stream {
	return &stream{ready: make(chan struct{}, 1), done: make(chan struct{}), sse: sse, logLevel: logLevel}
}

// take returns the messages queued, oldest first, and empties the queue.
func (s *stream) take() [][]byte {
	s.mu.Lock()
	q := s.queued
	s.queued = nil
	s.mu.Unlock()
	return q
}

// offer queues msg without blocking. It reports false when the stream has
// ended or its buffer is full; a full buffer means a client that stopped
// reading, and its message is dropped.
func (s *stream) offer(msg []byte) bool {
	select {
	case <-s.done:
		return false
	default:
	}
	s.mu.Lock()
	if len(s.queued) >= streamBuffer {
		s.mu.Unlock()
		return false
	}
	s.queued = append(s.queued, msg)
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default: // a signal is pending: the handler takes this message with it
	}
	return true
}

// withdraw takes msg out of the queue of a stream that has ended, and
// reports whether it was there: never written to the client.
func (s *stream) withdraw(msg []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, q := range s.queued {
		if len(q) > 0 && len(msg) > 0 && &q[0] == &msg[0] {
			s.queued = slices.Delete(s.queued, i, i+1)
			return true
		}
	}
	return false
}

// touch marks the backend as used now.
func (b *backend) touch() { b.used.Store(time.Now().UnixNano()) }

// idleSince reports whether the backend has had no stream open since
// before cutoff.
func (b *backend) idleSince(cutoff time.Time) bool {
	b.mu.Lock()
	busy := len(b.inflight) > 0 || b.get != nil
	b.mu.Unlock()
	return !busy && b.used.Load() < cutoff.UnixNano()
}

// open registers a request's stream as in flight.
func (b *backend) open(sse, logLevel bool) *stream {
	st := newStream(sse, logLevel)
	b.touch()
	b.mu.Lock()
	b.inflight = append(b.inflight, st)
	b.streamOpened()
	b.mu.Unlock()
	return st
}

// close ends a stream opened by open or openGet.
func (b *backend) close(st *stream) {
	b.touch()
	b.mu.Lock()
	b.inflight = slices.DeleteFunc(b.inflight, func(s *stream) bool { return s == st })
	if b.get == st {
		b.get = nil
	}
	b.mu.Unlock()
	close(st.done)
}

// openGet registers a session's GET stream; there is at most one.
func (b *backend) openGet() (*stream, bool) {
	b.touch()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.get != nil {
		return nil, false
	}
	b.get = newStream(true, false)
	b.streamOpened()
	return b.get, true
}

// trackProgress routes the progress of a call to st until the returned
// func runs. The child sees a token of the adapter's in place of the
// client's, unique across every call, which the Client passes on untouched:
// a string token is not one of its own.
func (b *backend) trackProgress(params, token json.RawMessage, st *stream) (json.RawMessage, func()) {
	mine := rawjson.AppendString(nil, "mcphttp-"+strconv.FormatInt(b.a.tokens.Add(1), 10))
	key := string(mine)
	b.mu.Lock()
	b.progress[key] = progressRoute{st: st, token: token}
	b.mu.Unlock()
	return setMeta(params, "progressToken", mine), func() {
		b.mu.Lock()
		delete(b.progress, key)
		b.mu.Unlock()
	}
}

// keepProgress routes the progress of a call to st under the client's own
// token, which reaches the child as it is, until the returned func runs;
// ok is false when a call in flight has that token already (the client
// reused it), and the call then gets a token of the adapter's
// (trackProgress).
func (b *backend) keepProgress(token json.RawMessage, st *stream) (func(), bool) {
	key := string(token)
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, used := b.progress[key]; used {
		return nil, false
	}
	b.progress[key] = progressRoute{st: st, token: token}
	return func() {
		b.mu.Lock()
		delete(b.progress, key)
		b.mu.Unlock()
	}, true
}

// track makes a call cancellable by its client id until the returned func
// runs.
func (b *backend) track(id json.RawMessage, cancel func(cause error)) func() {
	key := string(id)
	e := &callEntry{cancel: cancel}
	b.mu.Lock()
	if _, dup := b.calls[key]; dup {
		e = &callEntry{}
	}
	b.calls[key] = e
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		if b.calls[key] == e {
			delete(b.calls, key)
		}
		b.mu.Unlock()
	}
}

// cancelCall handles the client's notifications/cancelled: the call's ctx
// ends, and the Client tells the child, with the client's reason (or
// none, as the client gave none).
func (b *backend) cancelCall(params json.RawMessage) {
	id, _ := rawjson.Member(params, "requestId")
	var reason stdio.CancelReason
	if raw, ok := rawjson.Member(params, "reason"); ok {
		reason.Reason, reason.Given = rawjson.StringValue(raw)
	}
	b.mu.Lock()
	e := b.calls[string(id)]
	b.mu.Unlock()
	if e != nil && e.cancel != nil {
		e.cancel(reason)
	}
}

// newest returns the newest in-flight stream that can carry messages other
// than its response (its client accepts SSE), preferring one whose request
// set a logLevel when logs is true. Called with b.mu held.
func (b *backend) newest(logs bool) *stream {
	var fallback *stream
	for i := len(b.inflight) - 1; i >= 0; i-- {
		st := b.inflight[i]
		switch {
		case !st.sse:
		case !logs || st.logLevel:
			return st
		case fallback == nil:
			fallback = st
		}
	}
	return fallback
}

// notification routes what the Client did not claim (OnNotification; it
// runs on the Client's reader and must not block), in the order the child
// wrote it. Progress goes by token to its call's stream. Logs go to the newest
// request in flight: in 2026 one that set a logLevel if any, else any, so
// that a server which logs unasked is seen rather than hidden. The rest go
// to a 2025 session's GET stream. Whatever has nowhere to go is dropped.
func (b *backend) notification(n stdio.Notification) {
	params := n.Params
	b.mu.Lock()
	var target *stream
	switch n.Method {
	case "notifications/progress":
		tok, _ := rawjson.Member(params, "progressToken")
		route, ok := b.progress[string(tok)]
		if !ok {
			b.mu.Unlock()
			// A finished call's, or a token the client never gave:
			// progress is only for requests in flight.
			b.a.log.Debug("mcphttp: dropped progress for no call in flight", "child", b.name, "token", string(tok))
			return
		}
		target = route.st
		if p, err := rawjson.SetMember(params, "progressToken", route.token); err == nil {
			params = p
		}
	case "notifications/message":
		target = b.newest(!b.legacy)
	}
	if target == nil && b.legacy {
		target = b.get
	}
	b.mu.Unlock()
	msg := wire.AppendNotification(nil, n.Method, params)
	if target == nil || !target.offer(trimLF(msg)) {
		b.a.log.Debug("mcphttp: dropped a notification from the child", "child", b.name, "method", n.Method)
	}
}

// serverRequest carries a request of the child's to the client
// (OnServerRequest; it runs in a goroutine of the Client's). In a 2025
// session it goes to the newest POST in flight, else to the GET stream, and
// the client's answer (a POSTed response with the same id) is returned. A
// 2026 child may send no requests at all: it is shown on the newest stream,
// so that the client sees the violation, and refused with -32601.
func (b *backend) serverRequest(ctx context.Context, req stdio.ServerRequest) (json.RawMessage, error) {
	msg := trimLF(wire.AppendRequest(nil, req.ID, req.Method, req.Params))
	key := string(req.ID)
	ch := make(chan reply, 1)
	b.mu.Lock()
	target := b.newest(false)
	if b.legacy {
		if target == nil {
			target = b.get
		}
		b.answers[key] = ch
	}
	b.mu.Unlock()
	if !b.legacy {
		if target != nil {
			target.offer(msg)
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: a 2026-07-28 server sends no requests (%s)", req.Method)
	}
	defer func() {
		b.mu.Lock()
		if b.answers[key] == ch {
			delete(b.answers, key)
		}
		b.mu.Unlock()
	}()
	if target == nil {
		target = b.awaitStream(ctx)
	}
	if target == nil || !target.offer(msg) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "No client stream is open to carry %s", req.Method)
	}
	// The stream that carries the request may end before the client
	// answers: a short POST (a task's poll) that was the newest when the
	// request came. If the request was written, the client has it and
	// POSTs its answer whenever it comes; if it was still queued, it goes
	// out on another stream.
	done := target.done
	for {
		select {
		case r := <-ch:
			if r.err != nil {
				return nil, r.err
			}
			return r.result, nil
		case <-done:
			if !target.withdraw(msg) {
				done = nil // written: only the answer, or ctx, ends the wait
				continue
			}
			b.mu.Lock()
			target = b.newest(false)
			if target == nil {
				target = b.get
			}
			b.mu.Unlock()
			if target == nil {
				target = b.awaitStream(ctx)
			}
			if target == nil || !target.offer(msg) {
				return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client's stream closed before it answered %s", req.Method)
			}
			done = target.done
		case <-ctx.Done():
			return nil, ctx.Err() // cancelled by the child or closed: nothing is written
		}
	}
}

// awaitStream waits, at most streamWait, for a stream of a 2025 session
// that can carry a request of the child's: the newest POST in flight, else
// the GET stream.
func (b *backend) awaitStream(ctx context.Context) *stream {
	t := time.NewTimer(streamWait)
	defer t.Stop()
	for {
		b.mu.Lock()
		target := b.newest(false)
		if target == nil {
			target = b.get
		}
		opened := b.opened
		b.mu.Unlock()
		if target != nil {
			return target
		}
		select {
		case <-opened:
		case <-t.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// answer hands the client's response to the child's request with its id. A
// response to an unknown id is ignored.
func (b *backend) answer(m *wire.Message) {
	r := reply{}
	switch {
	case m.HasError():
		e, ok := wire.DecodeError(m.Error)
		r.err = (*jsonrpc.Error)(e)
		if !ok {
			r.err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client sent an invalid error")
		}
	default:
		res, err := rawjson.Compact(m.Result)
		if err != nil {
			r.err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "The client sent an invalid result")
		}
		r.result = res
	}
	b.mu.Lock()
	ch := b.answers[string(m.ID)]
	delete(b.answers, string(m.ID))
	b.mu.Unlock()
	if ch != nil {
		ch <- r
	}
}

// forward sends the request m to b's child and streams back what belongs
// to it: its progress (under the client's token), the logs and requests the
// backend routes to it, and its response under the client's id. Everything
// the child writes reaches the stream in the child's order, the response
// last.
//
// In 2026 the call's ctx is the request's, so a client that goes away
// cancels it. In 2025 it is the session's: disconnection is not
// cancellation there (only notifications/cancelled is), so the call runs on
// and its result is dropped.
func (a *Adapter) forward(w http.ResponseWriter, r *http.Request, b *backend, server string, m *wire.Message, mv *metaView, parent context.Context, modern bool) {
	id := clone(m.ID)
	params := m.Params
	resp := a.newResponder(w, r, modern)
	st := b.open(resp.allowSSE, modern && mv.logLevel)
	defer b.close(st)

	// A 2025 session's connection is its client's own: the request
	// reaches the server under the client's id and progress token, as if
	// the client had launched the server, wherever they are free on the
	// connection. A caller's 2026 connection carries independent requests,
	// whose ids and tokens may meet: the adapter makes them unique.
	var opts *stdio.CallOptions
	switch {
	case b.legacy:
		opts = &stdio.CallOptions{ID: id}
	case modern:
		// The shared connection carries only requests its Client would
		// send unchanged (sharedCanCarry), the raw one every other: there
		// is nothing to stamp, so the Client need not look.
		opts = &stdio.CallOptions{Verbatim: true}
	}
	untrackProgress := func() {}
	if token, ok := mv.progressToken(); ok {
		kept := false
		if b.legacy {
			untrackProgress, kept = b.keepProgress(clone(token), st)
		}
		if !kept {
			params, untrackProgress = b.trackProgress(params, clone(token), st)
		}
	}
	f := peer.NewInflight()
	untrack := b.track(id, f.Cancel)
	b.link.Begin(parent, f, m.Method, params, m.Dirty, opts, func() {
		untrack()
		untrackProgress()
	})

	for {
		select {
		case <-st.ready:
			for _, msg := range st.take() {
				resp.event(msg)
			}
		case out := <-f.Out:
			for _, msg := range st.take() {
				resp.event(msg)
			}
			if out.Cancelled || a.ctx.Err() != nil {
				// Cancelled by the client, its disconnection or Close: a
				// cancelled request gets no response.
				return
			}
			if modern && m.Method == "tools/list" && out.Err == nil {
				a.paramsOf(server).learn(out.Result)
			}
			resp.final(id, out.Result, out.Err)
			return
		case <-parent.Done():
			// The client left (2026), the session ended or Close: the
			// call is abandoned and gets no response.
			f.Cancel(context.Cause(parent))
			<-f.Out
			return
		case <-a.ctx.Done():
			f.Cancel(context.Cause(a.ctx)) // Close
			<-f.Out
			return
		case <-r.Context().Done():
			if modern { // parent ends with r
				f.Cancel(context.Cause(parent))
				<-f.Out
			}
			// In 2025 the call runs on, its result dropped.
			return
		}
	}
}

// call sends a request of the adapter's own and waits for its outcome,
// abandoning it when ctx ends.
func (b *backend) call(ctx context.Context, method string, params json.RawMessage, dirty bool) (json.RawMessage, error) {
	f := peer.NewInflight()
	b.link.Begin(ctx, f, method, params, dirty, nil, func() {})
	select {
	case out := <-f.Out:
		return out.Result, out.Err
	case <-ctx.Done():
		f.Cancel(context.Cause(ctx))
		out := <-f.Out
		return out.Result, out.Err
	}
}
