package stdio

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/dropq"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// CallOptions tune one call. The zero value (or nil) means the defaults.
type CallOptions struct {
	// Timeout bounds the call: the wait for the writer, the write and the
	// response. Zero: ClientConfig.RequestTimeout.
	Timeout time.Duration
	// Progress, when set, receives the call's notifications/progress in
	// arrival order, in the caller's goroutine, always before Call
	// returns. The request gets a params._meta.progressToken of the
	// Client's own making: the call's id and 64 random bits, so that no
	// other request's params can name it.
	Progress func(Progress)
	// ResetTimeoutOnProgress restarts the timeout at each progress
	// notification, never past MaxTotalTimeout after the call started.
	ResetTimeoutOnProgress bool
	// MaxTotalTimeout caps ResetTimeoutOnProgress (default 600 s).
	MaxTotalTimeout time.Duration
	// Log, when set, receives the child's log messages
	// (notifications/message) that can be told to belong to this call, in
	// arrival order interleaved with progress, in the caller's goroutine,
	// before Call returns. MCP links a log message to no request
	// (docs/protocol.md, "Logging"): on a 2026-07-28 connection, where
	// servers log only for requests that set a log level, a log belongs to
	// the one call in flight that takes logs; on other connections, to the
	// call in flight when it is the only one. Other logs go to
	// ClientConfig.OnNotification.
	Log func(Notification)
	// Meta is merged into params._meta, last (it wins over stamped keys
	// and the params' own _meta). It must be a JSON object.
	Meta json.RawMessage
	// OnRequestID, when set, is called with the request's JSON-RPC id once
	// it is assigned, before the request is written (for tracing).
	OnRequestID func(id int64)
	// Verbatim sends the request as the caller gave it, on a connection
	// made by [Connect] too: no stamped _meta, no local refusal of a
	// method of the other era or of a conflicting protocol version, so
	// that the child answers as it would (a proxy of another MCP client
	// wants that). The progress token, when Progress is set, is still the
	// Client's own unless ProgressToken is set.
	Verbatim bool
	// ID, when set (a JSON string or integer), sends the request under
	// this id, the caller's own, instead of one of the Client's, as long
	// as no request in flight on the connection has it; its cancellation
	// names it too. A proxy whose client owns the whole connection (a
	// host's private child) sets it, so that the child sees the host's
	// ids. Otherwise the request goes under an id of the Client's.
	ID json.RawMessage
	// ProgressToken, with Progress and ID set, is the request's progress
	// token, the caller's own, in place of one the Client mints, as long
	// as no call in flight uses it; progress naming it goes to Progress
	// with the token unchanged. It is only for a connection that one
	// client owns: any request's params could name the token.
	ProgressToken json.RawMessage
}

// Progress is one notifications/progress for a call.
type Progress struct {
	// Progress is the params' progress value, increasing with each
	// notification of a call.
	Progress float64
	// Total is the params' total, nil when the child sent none.
	Total *float64
	// Message is the params' message, "" when the child sent none.
	Message string
	// Raw is the notification's params as sent.
	Raw json.RawMessage
}

// call is one request in flight.
type call struct {
	id       int64                          // its key in pending: the id it was sent under, or a negative key for one sent under the caller's own (raw)
	raw      json.RawMessage                // the caller's own id it was sent under; nil: id
	fwdKey   string                         // raw, canonical (canonicalID), the key of fwd; "" for none
	fwdToken string                         // the caller's own progress token, canonical, the key of fwdTokens; "" for none
	resp     chan response                  // one slot: exactly one sender removes the entry
	progress *dropq.Signalled[progressItem] // progress and attributed logs, in arrival order
	token    string                         // the progress token minted for it, decoded; "" without Progress
	size     int                            // the request line's length, LF included
	logs     bool                           // the call takes log messages
	few      bool                           // few calls were in flight when it started
}

// mintToken returns the progress token of call id: "<id>.<64 random bits>"
// as a JSON string. The id routes the child's progress back; the random
// part makes the token unguessable, so that params naming another call's
// token (a caller's forgery, or one a tool echoed) cannot inject progress
// into that call.
func mintToken(id int64) json.RawMessage {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	tok := append(make([]byte, 0, 40), '"')
	tok = strconv.AppendInt(tok, id, 10)
	tok = append(tok, '.')
	tok = hex.AppendEncode(tok, b[:])
	return append(tok, '"')
}

// tokenID returns the call id of a token mintToken made, and the token
// decoded, when raw has that shape.
func tokenID(raw json.RawMessage) (int64, string, bool) {
	s, ok := rawjson.StringValue(raw)
	if !ok || len(s) < 1+1+16 || s[len(s)-17] != '.' {
		return 0, "", false
	}
	id, ok := wire.IntID(json.RawMessage(s[:len(s)-17]))
	return id, s, ok
}

// Call sends a request and waits for its result. params is nil, a
// json.RawMessage or a value that marshals to a JSON object. The result is
// the child's "result" member as compact JSON; a JSON-RPC error is
// returned as an *jsonrpc.Error with the child's code, message and data. A tool
// result with isError true is a result, not an error.
//
// On a connection made by [Connect], a 2026-07-28 child's requests carry
// the required _meta, and methods of the other era are refused locally
// with -32601. subscriptions/listen is refused with -32602: use
// [Client.Listen].
func (c *Client) Call(ctx context.Context, method string, params any, opts *CallOptions) (json.RawMessage, error) {
	if method == "subscriptions/listen" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "use Listen for subscriptions/listen")
	}
	var o CallOptions
	if opts != nil {
		o = *opts
	}
	return c.call(ctx, method, params, &o)
}

// call is Call without the listen check.
func (c *Client) call(ctx context.Context, method string, params any, o *CallOptions) (json.RawMessage, error) {
	e := c.era.Load()
	if o.Verbatim {
		e = nil // sent as given
	}
	if err := e.refuse(method); err != nil {
		return nil, err
	}
	raw, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	cl := &call{resp: make(chan response, 1), logs: o.Log != nil}
	c.reserveID(cl, o)
	id := cl.id
	if o.OnRequestID != nil && cl.raw == nil {
		o.OnRequestID(id)
	}
	var token json.RawMessage
	switch {
	case cl.fwdToken != "":
		token = o.ProgressToken
	case o.Progress != nil:
		token = mintToken(id)
		cl.token = string(token[1 : len(token)-1]) // no escapes: digits, '.' and hex
	}
	p, err := e.params(raw, o.Meta, token)
	if err != nil {
		c.unreserve(cl)
		return nil, err
	}
	if o.Progress != nil || o.Log != nil {
		cl.progress = newProgressQueue()
	}
	var idb [20]byte
	f := newFrame()
	f.buf = wire.AppendRequest(f.buf, cl.wireID(idb[:0]), method, p)
	cl.size = len(f.buf)
	if limit := c.cfg.MaxRequestBytes; limit > 0 && cl.size > limit {
		f.release()
		c.unreserve(cl)
		return nil, requestTooLarge(cl.size, limit)
	}
	c.mu.Lock()
	if c.err != nil {
		e := c.err
		c.mu.Unlock()
		f.release()
		c.unreserve(cl)
		return nil, e
	}
	c.pending[id] = cl
	cl.few = len(c.pending) <= directMaxInFlight
	c.mu.Unlock()

	timeout := o.Timeout
	if timeout == 0 {
		timeout = c.cfg.RequestTimeout
	}
	var timerC <-chan time.Time
	var timer *time.Timer
	sent := time.Now()
	if timeout > 0 {
		timer = time.NewTimer(timeout)
		defer timer.Stop()
		timerC = timer.C
	}
	if ended, res, err := c.send(ctx, cl, f, sent, timeout, timerC, o); ended {
		return res, err
	}

	deadline := sent.Add(timeout)
	maxTotal := o.MaxTotalTimeout
	if maxTotal <= 0 {
		maxTotal = DefaultMaxTotalTimeout
	}
	limit := sent.Add(maxTotal)
	capped := false
	var progressC <-chan struct{}
	if cl.progress != nil {
		progressC = cl.progress.C()
	}
	for {
		select {
		case r := <-cl.resp:
			if err := c.deliver(cl, o); err != nil {
				return nil, err
			}
			if r.err != nil {
				return nil, r.err
			}
			return r.result, nil
		case <-progressC:
			last, err := c.deliverLast(cl, o)
			if err != nil {
				return nil, err
			}
			if o.ResetTimeoutOnProgress && timer != nil && !last.IsZero() {
				next := last.Add(timeout)
				if next.After(limit) {
					next, capped = limit, true
				}
				if next.After(deadline) {
					deadline = next
					timer.Reset(time.Until(deadline))
				}
			}
		case <-timerC:
			e := timeoutError(timeout)
			if capped {
				e = jsonrpc.WithData(jsonrpc.CodeRequestTimeout, "Maximum total timeout exceeded",
					map[string]int64{"maxTotalTimeoutMs": maxTotal.Milliseconds()})
			}
			return c.abandon(cl, true, e, o)
		case <-ctx.Done():
			return c.abandon(cl, true, ctxError(ctx), o)
		}
	}
}

// send writes a call's request, directly when it can, else through the
// writer. ended reports that the call is over (res and err are its
// outcome): the connection ended, the timeout or ctx came first (nothing
// was written, so nothing needs cancelling), or the write failed.
func (c *Client) send(ctx context.Context, cl *call, f *frame, sent time.Time, timeout time.Duration, timerC <-chan time.Time, o *CallOptions) (ended bool, res json.RawMessage, err error) {
	direct, werr := false, error(nil)
	if cl.few {
		direct, werr = c.writeDirect(ctx, f.buf, sent, timeout)
	}
	if direct {
		f.release()
		switch {
		case werr == nil:
			return false, nil, nil
		case errors.Is(werr, os.ErrDeadlineExceeded):
			e := timeoutError(timeout)
			if d, ok := ctx.Deadline(); ctx.Err() != nil || ok && (timeout <= 0 || !d.After(sent.Add(timeout))) {
				// ctx's deadline was the write's: it has passed, so
				// ctx ends at once if it has not yet, and the error is
				// ctx's rather than a timeout that never ran out.
				<-ctx.Done()
				e = ctxError(ctx)
			}
			res, err = c.abandon(cl, false, e, o)
			return true, res, err
		default:
			c.fail(c.connectionFailed(werr), false)
			r := <-cl.resp
			return true, nil, r.err
		}
	}
	select {
	case c.writes <- f:
		return false, nil, nil
	case r := <-cl.resp: // the connection ended first
		f.release()
		return true, nil, r.err
	case <-timerC:
		f.release()
		res, err = c.abandon(cl, false, timeoutError(timeout), o)
		return true, res, err
	case <-ctx.Done():
		f.release()
		res, err = c.abandon(cl, false, ctxError(ctx), o)
		return true, res, err
	}
}

// directMaxInFlight is how many calls may be in flight for a new one to
// write itself. Beyond it the writer's batching (many lines per system
// call) beats saving the hand-off.
const directMaxInFlight = 2

// pipeAtomic is the largest write a pipe takes whole or not at all
// (PIPE_BUF on Linux), so a deadline can interrupt it only before any byte
// is written.
const pipeAtomic = 4096

// deadliner is a writer whose writes can be bounded in time.
type deadliner interface{ SetWriteDeadline(time.Time) error }

// writeDirect writes a small frame from the caller's goroutine when no one
// else is writing, saving the hand-off to the writer (a goroutine switch
// per request). It reports false, having done nothing, when the frame must
// go through the writer: stdin takes no deadlines, the frame is large, or
// someone is writing (the writer then batches it with the others). The
// write is bounded by the call's timeout and ctx deadline; since the frame
// is at most pipeAtomic bytes, a deadline leaves it unwritten, never half
// written.
func (c *Client) writeDirect(ctx context.Context, buf []byte, sent time.Time, timeout time.Duration) (bool, error) {
	if c.direct == nil || len(buf) > pipeAtomic {
		return false, nil
	}
	select {
	case c.wlock <- struct{}{}:
	default:
		return false, nil
	}
	defer func() { <-c.wlock }()
	var deadline time.Time
	if timeout > 0 {
		deadline = sent.Add(timeout)
	}
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	if !deadline.IsZero() {
		c.direct.SetWriteDeadline(deadline)
		defer c.direct.SetWriteDeadline(time.Time{})
	}
	_, err := c.stdin.Write(buf)
	return true, err
}

func timeoutError(d time.Duration) *jsonrpc.Error {
	return jsonrpc.WithData(jsonrpc.CodeRequestTimeout, "Request timed out", map[string]int64{"timeoutMs": d.Milliseconds()})
}

func ctxError(ctx context.Context) *jsonrpc.Error {
	msg := "Request timed out"
	if errors.Is(ctx.Err(), context.Canceled) {
		msg = "Request cancelled"
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeRequestTimeout, Message: msg, Cause: context.Cause(ctx)}
}

// CancelReason is the cause to cancel a call's context with when the
// cancellation is someone else's (a bridge passing on its client's
// notifications/cancelled): the child's notifications/cancelled then
// carries Reason as it is, or no reason when Given is false, instead of
// the Client's own "Request cancelled". It is a context.Canceled.
type CancelReason struct {
	Reason string
	Given  bool
}

func (r CancelReason) Error() string { return "cancelled: " + r.Reason }

// Unwrap makes a CancelReason a context.Canceled.
func (r CancelReason) Unwrap() error { return context.Canceled }

// abandon gives up on a call with e, unless its outcome was decided first,
// and tells the child when the request had been written.
func (c *Client) abandon(cl *call, written bool, e *jsonrpc.Error, o *CallOptions) (json.RawMessage, error) {
	c.mu.Lock()
	mine := c.pending[cl.id] == cl
	if mine {
		c.forget(cl)
	}
	c.mu.Unlock()
	if !mine { // a response or the connection's end won the race
		r := <-cl.resp
		if err := c.deliver(cl, o); err != nil {
			return nil, err
		}
		if r.err != nil {
			return nil, r.err
		}
		return r.result, nil
	}
	if written {
		reason := CancelReason{Reason: e.Message, Given: true}
		errors.As(e.Cause, &reason) // a reason passed on: as it was given
		c.cancelRequest(cl.id, cl.raw, reason)
	}
	return nil, e
}

// cancelGrace bounds how long a cancellation notice waits for the writer.
const cancelGrace = 5 * time.Second

// cancelRequest sends notifications/cancelled for an abandoned request
// (the one sent under id, or under the caller's own raw id) from a
// goroutine of its own, so a slow child never holds the caller.
func (c *Client) cancelRequest(id int64, raw json.RawMessage, reason CancelReason) {
	n := notice{id: id, raw: raw}
	params := n.appendID([]byte(`{"requestId":`))
	if reason.Given {
		params = append(params, `,"reason":`...)
		params = rawjson.AppendString(params, reason.Reason)
	}
	params = append(params, '}')
	f := newFrame()
	f.buf = wire.AppendNotification(f.buf, "notifications/cancelled", params)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		f.release()
		return
	}
	// Until the writer takes it, Close writes the notice itself.
	c.cancelling = append(c.cancelling, n)
	c.mu.Unlock()
	errc := make(chan error, 1)
	f.errc = errc
	go func() {
		t := time.NewTimer(cancelGrace)
		defer t.Stop()
		select {
		case c.writes <- f:
			// Taken off the list only once written: a notice the writer
			// holds when the connection closes is written by Close.
			if err := <-errc; err != nil {
				return
			}
		case <-c.closing:
			f.release()
			return
		case <-t.C:
			f.release()
			c.log.Warn("stdio: gave up sending a cancellation", "id", id)
		}
		c.mu.Lock()
		if i := slices.IndexFunc(c.cancelling, func(o notice) bool { return o.id == id }); i >= 0 {
			c.cancelling = slices.Delete(c.cancelling, i, i+1)
		}
		c.mu.Unlock()
	}()
}

// Notify writes a notification and returns once the whole line is in the
// child's stdin pipe. It fails with -32000 on a closed or failed
// connection, and with -32001 (Cause ctx.Err(), nothing written) if ctx
// ends before the writer takes the line. Notifications get no stamped
// _meta.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	raw, err := marshalParams(params)
	if err != nil {
		return err
	}
	if e := c.terminal(); e != nil {
		return e
	}
	// errc is kept apart from f, which the writer releases once written.
	errc := make(chan error, 1)
	f := newFrame()
	f.buf, f.errc = wire.AppendNotification(f.buf, method, raw), errc
	select {
	case c.writes <- f:
	case <-c.closing:
		f.release()
		return c.terminal()
	case <-ctx.Done():
		f.release()
		return ctxError(ctx)
	}
	if err := <-errc; err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The stdio server connection failed", Cause: err}
	}
	return nil
}

// marshalParams turns Call's params into compact JSON text (nil for none).
// MCP params are always objects; anything else is refused with -32602.
func marshalParams(params any) (json.RawMessage, error) {
	out, err := marshalAny(params)
	if string(out) == "null" {
		return nil, nil // a nil map or pointer: no params
	}
	if err == nil && out != nil && !rawjson.IsObject(out) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "params must be a JSON object")
	}
	return out, err
}

func marshalAny(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if p == nil {
			return nil, nil
		}
		out, err := rawjson.Canonical(p)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "params are not valid JSON", Cause: err}
		}
		return out, nil
	default:
		out, err := rawjson.Marshal(p)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "params cannot be marshalled", Cause: err}
		}
		return out, nil
	}
}

// progressDepth bounds a call's undelivered progress notifications; the
// oldest is dropped first (progress is cumulative, so the newest matters).
const progressDepth = 64

type progressItem struct {
	raw json.RawMessage
	at  time.Time
	log bool // a notifications/message, not progress
}

// newProgressQueue hands a call's progress and logs from the reader to
// the waiting caller without ever blocking the reader. When it is full
// the oldest progress goes first: progress is cumulative, so an older one
// loses nothing the newer one does not say; a log message is dropped only
// when the queue holds nothing else.
func newProgressQueue() *dropq.Signalled[progressItem] {
	q := dropq.NewSignalled[progressItem](progressDepth, false)
	q.Q().Keep(func(it progressItem) bool { return it.log })
	return q
}

// deliver runs the callback for all queued progress.
func (c *Client) deliver(cl *call, o *CallOptions) error {
	_, err := c.deliverLast(cl, o)
	return err
}

// deliverLast runs the callback for queued progress and returns the arrival
// time of the newest. A panicking callback abandons the call.
func (c *Client) deliverLast(cl *call, o *CallOptions) (last time.Time, err error) {
	if cl.progress == nil {
		return time.Time{}, nil
	}
	for _, item := range cl.progress.Take() {
		it := item.V
		if it.log {
			if perr := safeCallback(func() { o.Log(Notification{Method: "notifications/message", Params: it.raw}) }); perr != nil {
				return last, c.callbackPanicked(cl, "Log callback panicked", perr)
			}
			continue
		}
		if o.Progress == nil {
			continue
		}
		p, ok := parseProgress(it.raw)
		if !ok {
			c.log.Debug("stdio: dropped malformed progress", "params", string(it.raw))
			continue
		}
		if perr := safeCallback(func() { o.Progress(p) }); perr != nil {
			return last, c.callbackPanicked(cl, "Progress callback panicked", perr)
		}
		last = it.at
	}
	return last, nil
}

// callbackPanicked abandons a call whose progress or log callback panicked.
func (c *Client) callbackPanicked(cl *call, msg string, perr error) *jsonrpc.Error {
	c.mu.Lock()
	if c.pending[cl.id] == cl {
		c.forget(cl)
		c.mu.Unlock()
		c.cancelRequest(cl.id, cl.raw, CancelReason{Reason: "Client stopped waiting", Given: true})
	} else {
		c.mu.Unlock()
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg, Cause: perr}
}

func safeCallback(fn func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: stack()}
		}
	}()
	fn()
	return nil
}

func parseProgress(raw json.RawMessage) (Progress, bool) {
	var w struct {
		Progress *float64 `json:"progress"`
		Total    *float64 `json:"total"`
		Message  string   `json:"message"`
	}
	if err := json.Unmarshal(raw, &w); err != nil || w.Progress == nil {
		return Progress{}, false
	}
	return Progress{Progress: *w.Progress, Total: w.Total, Message: w.Message, Raw: raw}, true
}

// notice is a notifications/cancelled to write for a request: the key it
// is in flight under, and the caller's own id it was sent under (nil:
// the key is the id).
type notice struct {
	id  int64
	raw json.RawMessage
}

// appendID appends the id the request was sent under.
func (n notice) appendID(dst []byte) []byte {
	if n.raw != nil {
		return append(dst, n.raw...)
	}
	return rawjson.AppendInt(dst, n.id)
}

// wireID appends the id the call is sent under.
func (cl *call) wireID(dst []byte) []byte {
	return notice{id: cl.id, raw: cl.raw}.appendID(dst)
}

// canonicalID is a JSON-RPC id or progress token as a key that two
// spellings of one value share: "i" and the integer, or "s" and the
// string decoded; ok is false for any other JSON.
func canonicalID(raw json.RawMessage) (string, bool) {
	if n, ok := wire.IntID(raw); ok {
		return "i" + strconv.FormatInt(n, 10), true
	}
	if s, ok := rawjson.StringValue(raw); ok {
		return "s" + s, true
	}
	return "", false
}

// reserveID gives cl the id it is sent under: the caller's own
// (CallOptions.ID) when no request in flight has it, under a negative key
// of its own, with the caller's progress token when no call in flight
// uses it; else the next of the Client's ids that no caller's own id in
// flight has.
func (c *Client) reserveID(cl *call, o *CallOptions) {
	if o.ID != nil {
		if k, ok := canonicalID(o.ID); ok {
			c.mu.Lock()
			free := c.fwd[k] == 0
			if n, isInt := wire.IntID(o.ID); free && isInt {
				free = c.pending[n] == nil
			}
			if free {
				c.fwdSeq--
				cl.id, cl.raw, cl.fwdKey = c.fwdSeq, o.ID, k
				c.fwd[k] = cl.id
				if o.Progress != nil && o.ProgressToken != nil {
					if t, ok := canonicalID(o.ProgressToken); ok && c.fwdTokens[t] == 0 {
						cl.fwdToken = t
						c.fwdTokens[t] = cl.id
					}
				}
				c.forwarded.Add(1)
			}
			c.mu.Unlock()
			if free {
				return
			}
		}
	}
	cl.id = c.nextID.Add(1)
	if c.forwarded.Load() == 0 {
		return
	}
	c.mu.Lock()
	for c.fwd["i"+strconv.FormatInt(cl.id, 10)] != 0 { // a caller's own id in flight
		cl.id = c.nextID.Add(1)
	}
	c.mu.Unlock()
}

// unreserve gives back the caller's own id and token of a call that was
// never sent.
func (c *Client) unreserve(cl *call) {
	if cl.fwdKey == "" {
		return
	}
	c.mu.Lock()
	c.forget(cl)
	c.mu.Unlock()
}

// forget removes a call from the calls in flight, and its caller's own
// id and token from theirs; c.mu is held.
func (c *Client) forget(cl *call) {
	delete(c.pending, cl.id)
	if cl.fwdKey != "" && c.fwd[cl.fwdKey] == cl.id {
		delete(c.fwd, cl.fwdKey)
		c.forwarded.Add(-1)
	}
	if cl.fwdToken != "" && c.fwdTokens[cl.fwdToken] == cl.id {
		delete(c.fwdTokens, cl.fwdToken)
	}
}

// inFlight returns the call in flight that raw names: one sent under the
// caller's own id, else under the Client's; c.mu is held.
func (c *Client) inFlight(raw json.RawMessage) *call {
	if len(c.fwd) > 0 {
		if k, ok := canonicalID(raw); ok {
			if key := c.fwd[k]; key != 0 {
				return c.pending[key]
			}
		}
	}
	if id, ok := wire.IntID(raw); ok {
		return c.pending[id]
	}
	return nil
}
