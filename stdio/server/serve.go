package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Config defaults (docs/stdio.md, "Server").
const (
	defaultWriteTimeout     = 5 * time.Second
	defaultMaxLineBytes     = 2_000_000
	defaultMaxSubscriptions = 32
	defaultShutdownGrace    = 3 * time.Second
)

// progressWriteWait bounds how long a progress report or a request's
// notification waits for its turn to be written (docs/stdio.md,
// "Progress").
const progressWriteWait = 5 * time.Second

// Methods and keys that Serve itself understands.
const (
	initializeMethod   = "initialize"
	listenMethod       = "subscriptions/listen"
	initializedMethod  = "notifications/initialized"
	cancelledMethod    = "notifications/cancelled"
	acknowledgedMethod = "notifications/subscriptions/acknowledged"
)

var (
	// ErrOutputFailed wraps every output failure that ends [Serve]: a write
	// that timed out ([ErrWriteTimeout]), failed (the writer's error, such
	// as syscall.ENOSPC or syscall.EPIPE), was short (io.ErrShortWrite) or
	// panicked. Such a failure is terminal and never retried, because the
	// output may already hold part of the frame.
	ErrOutputFailed = errors.New("stdio: output failed")

	// ErrWriteTimeout is the cause of an output failure when one frame's
	// write took longer than Config.WriteTimeout.
	ErrWriteTimeout = errors.New("stdio: write timed out")

	// ErrCancelled is the context cause of a request, and the Close reason
	// of a listen stream, that the client cancelled with
	// notifications/cancelled. The error wraps it with the client's reason
	// when one was given: errors.Is(err, ErrCancelled) holds and err.Error()
	// ends with the reason.
	ErrCancelled = errors.New("stdio: cancelled by the client")
)

// Config configures [Serve]. Its zero value means the defaults, filled
// in by Serve; a negative size, count or WriteTimeout is invalid and makes
// Serve fail before it reads anything.
type Config struct {
	// WriteTimeout bounds the write of each frame (default 5 s). A write
	// that takes longer is a terminal output failure.
	WriteTimeout time.Duration
	// MaxLineBytes limits one input line, LF and any CR included (default
	// 2,000,000, the HTTP listener's body limit). A longer line is answered
	// with -32600 and id null as soon as it passes the limit, before its LF
	// is read, and is discarded, undecoded, in constant memory.
	MaxLineBytes int
	// MaxSubscriptions limits the subscriptions/listen streams open at once
	// on the connection (default 32).
	MaxSubscriptions int
	// MaxConcurrency is the number of requests that run at once (default
	// 32). A slot frees only when a handler returns, whatever happened to
	// its context.
	MaxConcurrency int
	// MaxQueue is the number of admitted requests that wait, first in
	// first out, for a slot (default 256; negative: no queue).
	MaxQueue int
	// RequestTimeout is each request's deadline, counted from admission,
	// so that time spent queued counts (default 30 s; negative: none).
	RequestTimeout time.Duration
	// Logger receives what Serve cannot send: handler panics with their
	// stacks, handler errors, source failures (default: slog text on
	// os.Stderr). It must never write to the protocol output.
	Logger *slog.Logger
	// ShutdownGrace is how long the requests still running may take to
	// finish once [Run] has received SIGINT or SIGTERM (default 3 s, under
	// the 5 s that mcpbridge serve and the Go SDK's CommandTransport wait
	// after SIGTERM before SIGKILL); those still running then are
	// cancelled. Serve itself does not use it.
	ShutdownGrace time.Duration

	// executor, set by tests only, runs the requests instead of the one
	// Serve makes from MaxConcurrency, MaxQueue and Logger and closes on
	// return. Serve never closes it; then MaxConcurrency and MaxQueue are
	// not used. If it closes while Serve runs, every pending request gets
	// -32603 and Serve returns errExecutorClosed.
	executor *executor
}

// normalize validates cfg and fills in the defaults, the one place where
// that happens.
func (cfg Config) normalize() (Config, error) {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"WriteTimeout", int64(cfg.WriteTimeout)},
		{"MaxLineBytes", int64(cfg.MaxLineBytes)},
		{"MaxSubscriptions", int64(cfg.MaxSubscriptions)},
		{"MaxConcurrency", int64(cfg.MaxConcurrency)},
		{"ShutdownGrace", int64(cfg.ShutdownGrace)},
	} {
		if f.v < 0 {
			return cfg, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("Invalid Config: %s is negative (%d)", f.name, f.v)}
		}
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = defaultWriteTimeout
	}
	if cfg.MaxLineBytes == 0 {
		cfg.MaxLineBytes = defaultMaxLineBytes
	}
	if cfg.MaxSubscriptions == 0 {
		cfg.MaxSubscriptions = defaultMaxSubscriptions
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = defaultRequestTimeout
	}
	if cfg.ShutdownGrace == 0 {
		cfg.ShutdownGrace = defaultShutdownGrace
	}
	if cfg.Logger == nil {
		cfg.Logger = stderrLogger()
	}
	return cfg, nil
}

// Serve serves rt over one newline-delimited JSON-RPC connection: it reads
// requests and notifications from in and writes responses and notifications
// to out, normally the process's stdin and the descriptor [TakeStdout]
// returns (docs/stdio.md, "Server"). It calls rt.NewSession once and serves
// that Session until it returns.
//
// One coordinator, Serve's own goroutine, owns framing and every piece of
// connection state; it never waits on a handler. A reader goroutine hands
// it one decoded line at a time; a writer goroutine performs each write,
// exactly one frame per Write call, one at a time, each bounded by
// WriteTimeout. Requests run on workers, at most Config.MaxConcurrency at
// once, with Config.MaxQueue more waiting; subscription streams each get a
// pump goroutine.
//
// Serve returns:
//   - nil at input EOF, once every admitted request has been answered
//     (open streams are closed at EOF without a terminal message); or the
//     read error, wrapped, when reading failed instead;
//   - an error wrapping [ErrOutputFailed] and its cause when a write timed
//     out or failed; all work is cancelled and nothing more is written;
//   - ctx.Err() when ctx ends; all work is cancelled and nothing more is
//     written;
//   - an error before reading anything when cfg is invalid.
//
// Serve never closes in or out. When they accept deadlines
// (SetReadDeadline/SetWriteDeadline return nil), Serve uses them, and no
// goroutine of its own outlives it; otherwise a reader blocked in Read, or
// a writer blocked in a timed-out Write, may outlive it and exits when that
// call returns, delivering nothing. A handler or stream source that ignores
// its ctx is waited for at most WriteTimeout after the end.
func Serve(ctx context.Context, rt Runtime, in io.Reader, out io.Writer, cfg Config) error {
	return serve(ctx, rt, in, out, cfg, nil)
}

// serve is Serve with a way to stop gracefully, which [Run] uses: once stop
// closes, serve stops reading in as if it had ended, and returns nil when
// the requests admitted until then have been answered, or an error once
// cfg.ShutdownGrace has passed with some still running, which are then
// cancelled. A nil stop never closes.
func serve(ctx context.Context, rt Runtime, in io.Reader, out io.Writer, cfg Config, stop <-chan struct{}) error {
	if rt == nil || in == nil || out == nil {
		return errors.New("stdio: Serve needs a Runtime, an input and an output")
	}
	cfg, err := cfg.normalize()
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c := &serveConn{
		cfg:        cfg,
		stop:       stop,
		log:        cfg.Logger,
		exec:       cfg.executor,
		in:         in,
		out:        out,
		lines:      make(chan inputEvent),
		frames:     make(chan *frameReq),
		writeCh:    make(chan []byte),
		writeRes:   make(chan error),
		done:       make(chan struct{}),
		readerDone: make(chan struct{}),
		writerDone: make(chan struct{}),
		wake:       make(chan struct{}, 1),
		execs:      make(map[string]*execution),
		subs:       make(map[string]*serveStream),
		calls:      make(map[int64]chan callResult),
	}
	if c.exec != nil {
		select {
		case <-c.exec.closing:
			return errExecutorClosed
		default:
		}
	} else {
		c.exec, err = newExecutor(executorConfig{
			MaxConcurrency: cfg.MaxConcurrency,
			MaxQueue:       cfg.MaxQueue,
			RequestTimeout: cfg.RequestTimeout,
			Logger:         cfg.Logger,
		})
		if err != nil {
			return err
		}
		c.ownsExec = true
	}
	if d, ok := in.(readDeadliner); ok && d.SetReadDeadline(time.Time{}) == nil {
		c.rdl = d
	}
	if d, ok := out.(writeDeadliner); ok && d.SetWriteDeadline(time.Time{}) == nil {
		c.wdl = d
	}
	c.sess = rt.NewSession(servePeer{c})
	if c.sess == nil {
		if c.ownsExec {
			_ = c.exec.Close()
		}
		return errors.New("stdio: Runtime.NewSession returned nil")
	}
	go c.readLoop()
	go c.writeLoop()
	err = c.run(ctx)
	c.shutdown(err)
	return err
}

type readDeadliner interface{ SetReadDeadline(time.Time) error }
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

// serveConn is the state of one Serve call.
type serveConn struct {
	cfg      Config
	stop     <-chan struct{} // closed to stop gracefully; nil under Serve
	log      *slog.Logger
	exec     *executor
	ownsExec bool
	sess     seam.Session
	in       io.Reader
	out      io.Writer
	rdl      readDeadliner  // nil unless in supports deadlines
	wdl      writeDeadliner // nil unless out supports deadlines

	lines      chan inputEvent // reader → coordinator, unbuffered
	frames     chan *frameReq  // producers → coordinator, unbuffered
	writeCh    chan []byte     // coordinator → writer
	writeRes   chan error      // writer → coordinator
	done       chan struct{}   // closed when the coordinator has stopped
	readerDone chan struct{}   // closed when the reader returns
	writerDone chan struct{}   // closed when the writer returns
	stopCause  error           // why the coordinator stopped; set before done closes
	wake       chan struct{}   // capacity 1: inbox has news
	inboxMu    sync.Mutex      // guards inbox
	inbox      []execAbort     // executor aborts, at most one per execution
	callSeq    atomic.Int64    // ids of server-to-client requests
	handlers   handlerTracker  // Serve's jobs inside the executor
	admitted   uint64          // admission counter, for ordering

	// Owned by the coordinator goroutine.
	execs   map[string]*execution   // admitted requests by id key
	subs    map[string]*serveStream // open listen streams by id key
	pumps   []*serveStream          // every stream whose pump started
	calls   map[int64]chan callResult
	version string // protocolVersion of the last initialize result
	eof     bool
	readErr error
	writing bool // the writer holds a frame whose Write has not returned
}

// inputEvent is what the reader hands over: one decoded line, an over-long
// line, or the end of input.
type inputEvent struct {
	msg       wire.Message
	decodeErr *jsonrpc.Error
	tooLong   *wire.LineTooLongError
	err       error
}

// execution is one admitted request, from admission to its outcome.
// Outcomes are tracked per execution, not per id, so that a reused id never
// gets an old execution's output.
type execution struct {
	key      string
	id       json.RawMessage
	method   string
	seq      uint64
	listen   bool
	req      *seam.Request
	progress *seam.ProgressReporter
	cancel   func(cause error) // from executor.Submit

	// Owned by the coordinator.
	live  bool  // admitted and without an outcome yet
	cause error // why it ended without a response, if it did
}

type execAbort struct {
	e     *execution
	cause error
}

// frameKind says what a producer hands to the coordinator.
type frameKind uint8

const (
	frameProgress frameKind = iota // progress or request-scoped notification
	frameFinal                     // an execution's response
	frameOpen                      // a listen's Source, with its acknowledgement
	frameEvent                     // a stream event
	frameEnd                       // a stream's terminal response
	frameCall                      // a server-to-client request
	frameForget                    // a server-to-client request given up
	frameNotify                    // an unsolicited notification
)

// frameReq carries one complete frame (or a Peer bookkeeping message) to the
// coordinator. The coordinator answers on done exactly once, for every
// frameReq it receives that has a done channel.
type frameReq struct {
	kind    frameKind
	frame   []byte
	exec    *execution
	sub     *serveStream
	src     seam.Source
	version string
	callID  int64
	callRes chan callResult
	done    chan error
}

var (
	// errStopped: Serve stopped before the frame was handed over.
	errServeStopped = errors.New("stdio: Serve has stopped")
	// errGone: the request or stream the frame belongs to has ended.
	errServeGone = errors.New("stdio: the request or stream has ended")
)

// readLoop is the input reader. It owns in and hands the coordinator one
// line at a time, at most one decoded line ahead.
func (c *serveConn) readLoop() {
	defer close(c.readerDone)
	r := wire.NewReader(c.in, c.cfg.MaxLineBytes)
	for {
		line, err := r.ReadLine()
		var ev inputEvent
		var tooLong *wire.LineTooLongError
		switch {
		case err == nil:
			ev = decodeInput(line)
		case errors.As(err, &tooLong):
			ev.tooLong = tooLong
		default:
			ev.err = err
		}
		select {
		case c.lines <- ev:
		case <-c.done:
			return
		}
		if ev.err != nil {
			return
		}
	}
}

// decodeInput decodes a copy of line (the Reader reuses its buffer) and
// compacts the raw members Serve passes on when the line was not canonical.
func decodeInput(line []byte) inputEvent {
	m, err := wire.Decode(bytes.Clone(line))
	ev := inputEvent{msg: m}
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			ev.decodeErr = (*jsonrpc.Error)(we)
		} else {
			ev.decodeErr = &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "Parse error", Cause: err}
		}
	}
	if m.Dirty {
		for _, raw := range []*json.RawMessage{&ev.msg.ID, &ev.msg.Params, &ev.msg.Result, &ev.msg.Error} {
			if *raw != nil {
				*raw, _ = rawjson.Compact(*raw) // valid: Decode checked it
			}
		}
	}
	return ev
}

// writeLoop is the output writer: it performs the writes the coordinator
// hands it, one at a time.
func (c *serveConn) writeLoop() {
	defer close(c.writerDone)
	for {
		select {
		case frame := <-c.writeCh:
			err := c.writeOnce(frame)
			select {
			case c.writeRes <- err:
			case <-c.done:
				return
			}
		case <-c.done:
			return
		}
	}
}

func (c *serveConn) writeOnce(frame []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("stdio: output writer panicked: %v", r)
		}
	}()
	n, err := c.out.Write(frame)
	if err == nil && n != len(frame) {
		err = io.ErrShortWrite
	}
	return err
}

// run is the coordinator loop.
func (c *serveConn) run(ctx context.Context) error {
	lines := c.lines
	stop := c.stop
	var grace <-chan time.Time // runs from the stop to the end of ShutdownGrace
	for {
		if c.eof && len(c.execs) == 0 {
			if c.readErr != nil {
				return fmt.Errorf("stdio: reading input: %w", c.readErr)
			}
			return nil
		}
		var err error
		select {
		case ev := <-lines:
			err = c.handleLine(ctx, ev)
			if c.eof {
				lines = nil
			}
		case fr := <-c.frames:
			err = c.handleFrame(ctx, fr)
		case <-c.wake:
			err = c.handleInbox(ctx)
		case <-c.exec.closing: // only an executor a test supplied closes under Serve
			err = c.executorClosed(ctx)
		case <-stop:
			stop = nil
			if !c.eof {
				c.endOfInput(io.EOF)
				lines = nil
			}
			c.log.Info("stdio: shutting down: input is no longer read", "running", len(c.execs), "grace", c.cfg.ShutdownGrace)
			t := time.NewTimer(c.cfg.ShutdownGrace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			n := len(c.execs)
			err = fmt.Errorf("stdio: cancelled %d %s still running at the end of the %v shutdown grace",
				n, plural(n, "request", "requests"), c.cfg.ShutdownGrace)
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil {
			return err
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeFrame writes one frame, inline, bounded by WriteTimeout. A failure
// is terminal: the error it returns ends the coordinator.
func (c *serveConn) writeFrame(ctx context.Context, frame []byte) error {
	if c.wdl != nil {
		_ = c.wdl.SetWriteDeadline(time.Now().Add(c.cfg.WriteTimeout))
	}
	c.writing = true
	c.writeCh <- frame // the writer is idle whenever the coordinator runs
	t := time.NewTimer(c.cfg.WriteTimeout)
	defer t.Stop()
	select {
	case err := <-c.writeRes:
		c.writing = false
		if err == nil {
			return nil
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = ErrWriteTimeout
		}
		return fmt.Errorf("%w: %w", ErrOutputFailed, err)
	case <-t.C:
		return fmt.Errorf("%w: %w", ErrOutputFailed, ErrWriteTimeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *serveConn) writeError(ctx context.Context, id json.RawMessage, e *jsonrpc.Error) error {
	return c.writeFrame(ctx, wire.AppendError(nil, id, (*wire.Error)(e)))
}

func serveInternal(message string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: message}
}

// capacityRefusal is a retryable -32603 refusal (docs/stdio.md,
// "Admission, ids and cancellation"); the bridge maps it to
// RESOURCE_EXHAUSTED.
func capacityRefusal(message string, limit int) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: message,
		Data: append(strconv.AppendInt([]byte(`{"retryable":true,"limit":`), int64(limit), 10), '}')}
}

func (c *serveConn) handleLine(ctx context.Context, ev inputEvent) error {
	switch {
	case ev.tooLong != nil:
		return c.lineTooLong(ctx, ev.tooLong)
	case ev.err != nil:
		c.endOfInput(ev.err)
		return nil
	case ev.decodeErr != nil:
		switch ev.msg.Kind {
		case wire.KindNotification: // never answered, even malformed
			return nil
		case wire.KindResponse:
			c.badResponse(&ev.msg)
			return nil
		}
		return c.writeError(ctx, ev.msg.ID, ev.decodeErr)
	}
	switch ev.msg.Kind {
	case wire.KindRequest:
		return c.admit(ctx, &ev.msg)
	case wire.KindNotification:
		c.notification(ctx, &ev.msg)
	case wire.KindResponse:
		c.response(&ev.msg)
	}
	return nil
}

// lineTooLong answers an over-long line: a request by its id when its
// first or last bytes show it (so that the client's call fails at once),
// a response by failing the server request it answers; anything else with
// an id-less -32600, as JSON-RPC has it for a message that cannot be read.
func (c *serveConn) lineTooLong(ctx context.Context, e *wire.LineTooLongError) error {
	msg := fmt.Sprintf("Line exceeds the %d-byte limit", c.cfg.MaxLineBytes)
	id, kind := e.Peek()
	switch kind {
	case wire.KindRequest:
		return c.writeError(ctx, id, jsonrpc.WithData(jsonrpc.CodeInvalidRequest, msg, map[string]int{"limit": c.cfg.MaxLineBytes}))
	case wire.KindResponse:
		if ch := c.takeCall(id); ch != nil {
			ch <- callResult{err: jsonrpc.WithData(jsonrpc.CodeInternalError, "The client's response e"+msg[1:], map[string]int{"limit": c.cfg.MaxLineBytes})}
			return nil
		}
	}
	return c.writeError(ctx, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg})
}

// endOfInput stops reading: streams close without a terminal message, and
// server-to-client requests can no longer be answered.
func (c *serveConn) endOfInput(err error) {
	c.eof = true
	if !errors.Is(err, io.EOF) {
		c.readErr = err
	}
	for _, s := range c.subs {
		c.closeSub(s, io.EOF)
	}
	c.failCalls()
}

// requestKey identifies an id for duplicate detection and cancellation: equal
// strings match whatever their escapes, and 1 never matches "1".
func requestKey(id json.RawMessage) string {
	if s, ok := rawjson.StringValue(id); ok {
		return "s" + s
	}
	if n, ok := wire.IntID(id); ok {
		return "i" + strconv.FormatInt(n, 10)
	}
	return "r" + string(id)
}

// admit hands a request to the executor (docs/stdio.md,
// "Admission, ids and cancellation").
func (c *serveConn) admit(ctx context.Context, m *wire.Message) error {
	key := requestKey(m.ID)
	if c.execs[key] != nil || c.subs[key] != nil {
		return c.writeError(ctx, m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Duplicate in-flight request id"))
	}
	token, terr := progressToken(m.Params)
	if terr != nil {
		return c.writeError(ctx, m.ID, terr)
	}
	c.admitted++
	e := &execution{key: key, id: m.ID, method: m.Method, seq: c.admitted, listen: m.Method == listenMethod}
	e.req = &seam.Request{ID: m.ID, Method: m.Method, Params: m.Params, Version: c.version}
	if token != nil && !e.listen {
		e.progress = seam.NewProgressReporter(token, func(ctx context.Context, frame []byte) error {
			return c.sendWithin(ctx, &frameReq{kind: frameProgress, exec: e, frame: frame}, progressWriteWait)
		})
		e.req.Progress = e.progress
	}
	e.req.Notify = func(ctx context.Context, method string, params json.RawMessage) error {
		frame, err := notifyFrame(method, params)
		if err != nil {
			return err
		}
		return c.sendWithin(ctx, &frameReq{kind: frameProgress, exec: e, frame: frame}, progressWriteWait)
	}
	cancel, err := c.exec.Submit(ctx, job{
		Run:     func(ctx context.Context) { c.runExec(ctx, e) },
		Timeout: c.cfg.RequestTimeout,
		OnAbort: func(cause error) { c.post(e, cause) },
	})
	switch {
	case err == nil:
		e.cancel = cancel
		e.live = true
		c.execs[key] = e
		return nil
	case errors.Is(err, seam.ErrCapacity):
		return c.writeError(ctx, m.ID, capacityRefusal("Execution capacity exhausted", c.exec.Limit()))
	case errors.Is(err, errExecutorClosed):
		if werr := c.writeError(ctx, m.ID, serveInternal("Request executor closed")); werr != nil {
			return werr
		}
		return c.executorClosed(ctx)
	default:
		c.log.Error("stdio: the executor refused a request", "method", m.Method, "id", string(m.ID), "error", err)
		return c.writeError(ctx, m.ID, serveInternal("Request executor unavailable"))
	}
}

// progressToken returns params._meta.progressToken, nil without one, and
// -32602 when it is not a bounded id (docs/stdio.md, "Ids and numbers").
func progressToken(params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	meta, ok := rawjson.Member(params, "_meta")
	if !ok || !rawjson.IsObject(meta) {
		return nil, nil
	}
	tok, ok := rawjson.Member(meta, "progressToken")
	if !ok {
		return nil, nil
	}
	if !wire.ValidID(tok) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams,
			"Invalid params: _meta.progressToken must be a string of at most %d bytes or an int64 integer", wire.MaxIDBytes)
	}
	return tok, nil
}

func notifyFrame(method string, params json.RawMessage) ([]byte, error) {
	if params != nil {
		var err error
		if params, err = rawjson.Compact(params); err != nil {
			return nil, fmt.Errorf("stdio: notification params: %w", err)
		}
	}
	return wire.AppendNotification(nil, method, params), nil
}

// finish ends an execution's life on the connection: its id is free again
// and its reporter is closed. It does not cancel it.
func (c *serveConn) finish(e *execution, cause error) {
	e.live = false
	e.cause = cause
	if c.execs[e.key] == e {
		delete(c.execs, e.key)
	}
	e.progress.Close()
}

// notification handles a client notification inline.
func (c *serveConn) notification(ctx context.Context, m *wire.Message) {
	switch m.Method {
	case initializedMethod:
	case cancelledMethod:
		c.cancelled(m.Params)
	default:
		defer func() {
			if r := recover(); r != nil {
				c.log.Error("stdio: Session.Notify panicked", "method", m.Method, "panic", r, "stack", string(debug.Stack()))
			}
		}()
		c.sess.Notify(ctx, m.Method, m.Params)
	}
}

// cancelled applies notifications/cancelled (docs/stdio.md,
// "Admission, ids and cancellation"). Malformed ones and unknown or
// finished ids are ignored; nothing is ever written.
func (c *serveConn) cancelled(params json.RawMessage) {
	if !rawjson.IsObject(params) {
		return
	}
	rid, ok := rawjson.Member(params, "requestId")
	if !ok || !wire.ValidID(rid) {
		return
	}
	cause := ErrCancelled
	if raw, ok := rawjson.Member(params, "reason"); ok {
		reason, ok := rawjson.StringValue(raw)
		if !ok {
			return
		}
		if reason != "" {
			cause = fmt.Errorf("%w: %s", ErrCancelled, reason)
		}
	}
	if meta, ok := rawjson.Member(params, "_meta"); ok && !rawjson.IsObject(meta) {
		return
	}
	key := requestKey(rid)
	if e := c.execs[key]; e != nil {
		c.finish(e, cause)
		e.cancel(cause)
		return
	}
	if s := c.subs[key]; s != nil {
		c.closeSub(s, cause)
	}
}

// handleFrame writes, or refuses, what a producer handed over.
func (c *serveConn) handleFrame(ctx context.Context, fr *frameReq) error {
	var err, reply error
	switch fr.kind {
	case frameProgress:
		if !fr.exec.live {
			reply = errServeGone
			break
		}
		err = c.writeFrame(ctx, fr.frame)
		reply = err
	case frameFinal:
		if !fr.exec.live {
			reply = errServeGone
			break
		}
		c.finish(fr.exec, nil)
		if fr.version != "" {
			c.version = fr.version
		}
		err = c.writeFrame(ctx, fr.frame)
		reply = err
	case frameOpen:
		err, reply = c.open(ctx, fr)
	case frameEvent:
		if !fr.sub.live {
			reply = errServeGone
			break
		}
		err = c.writeFrame(ctx, fr.frame)
		reply = err
	case frameEnd:
		if !fr.sub.live {
			reply = errServeGone
			break
		}
		c.dropSub(fr.sub)
		err = c.writeFrame(ctx, fr.frame)
		reply = err
	case frameCall:
		if c.eof {
			reply = peerClosed()
			break
		}
		c.calls[fr.callID] = fr.callRes
		err = c.writeFrame(ctx, fr.frame)
		reply = err
	case frameForget:
		delete(c.calls, fr.callID)
	case frameNotify:
		err = c.writeFrame(ctx, fr.frame)
		reply = err
	}
	if fr.done != nil {
		fr.done <- reply
	}
	return err
}

// handleInbox acts on what the executor reported: deadlines, panics that
// escaped Serve's own recovery, and its closing.
func (c *serveConn) handleInbox(ctx context.Context) error {
	c.inboxMu.Lock()
	events := c.inbox
	c.inbox = nil
	c.inboxMu.Unlock()
	for _, ev := range events {
		e := ev.e
		if !e.live {
			continue
		}
		switch {
		case errors.Is(ev.cause, errExecutorClosed):
			return c.executorClosed(ctx)
		case errors.Is(ev.cause, context.DeadlineExceeded):
			c.finish(e, ev.cause)
			if err := c.writeError(ctx, e.id, serveInternal("Request execution timed out")); err != nil {
				return err
			}
		default:
			c.finish(e, ev.cause)
			if err := c.writeError(ctx, e.id, serveInternal("Request worker failed")); err != nil {
				return err
			}
		}
	}
	return nil
}

// post queues an executor report for the coordinator without blocking:
// OnAbort must not block, and the inbox holds at most one report per
// execution.
func (c *serveConn) post(e *execution, cause error) {
	c.inboxMu.Lock()
	c.inbox = append(c.inbox, execAbort{e, cause})
	c.inboxMu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// executorClosed answers every pending request with -32603, in admission
// order, and ends Serve with errExecutorClosed (docs/stdio.md,
// "Admission, ids and cancellation").
func (c *serveConn) executorClosed(ctx context.Context) error {
	pending := make([]*execution, 0, len(c.execs))
	for _, e := range c.execs {
		pending = append(pending, e)
	}
	slices.SortFunc(pending, func(a, b *execution) int { return int(a.seq - b.seq) })
	for _, e := range pending {
		c.finish(e, errExecutorClosed)
		if err := c.writeError(ctx, e.id, serveInternal("Request executor closed")); err != nil {
			c.log.Error("stdio: answering requests after the executor closed", "error", err)
			break
		}
	}
	return errExecutorClosed
}

// shutdown stops everything after the coordinator loop ended with cause
// (nil after a clean EOF).
func (c *serveConn) shutdown(cause error) {
	reason := cause
	if reason == nil {
		reason = io.EOF
	}
	for _, e := range c.execs {
		c.finish(e, reason)
		e.cancel(reason)
	}
	for _, s := range c.subs {
		c.closeSub(s, reason)
	}
	c.failCalls()
	c.stopCause = reason
	idle := c.handlers.stop()
	close(c.done)

	// Goroutines that ignore their ctx are waited for at most WriteTimeout
	// in all; the reader and the writer, unblocked by deadlines, get a bound
	// of their own.
	wait := func(ch <-chan struct{}, until time.Time, what string) {
		t := time.NewTimer(time.Until(until))
		defer t.Stop()
		select {
		case <-ch:
		case <-t.C:
			c.log.Warn("stdio: Serve returns while a goroutine ignores its context", "goroutine", what)
		}
	}
	grace := time.Now().Add(c.cfg.WriteTimeout)
	for _, s := range c.pumps {
		wait(s.done, grace, "subscription source")
	}
	if c.ownsExec {
		_ = c.exec.Close()
	}
	wait(idle, grace, "request handler")
	if c.ownsExec {
		wait(c.exec.Done(), grace, "executor worker")
	}

	// The reader and the writer: with deadlines, unblock and await them;
	// without, one blocked in Read or in a timed-out Write is left to
	// return on its own (docs/stdio.md, "Goroutine ownership").
	grace = time.Now().Add(c.cfg.WriteTimeout)
	select {
	case <-c.readerDone:
	default:
		if c.rdl != nil {
			_ = c.rdl.SetReadDeadline(time.Unix(1, 0))
			wait(c.readerDone, grace, "input reader")
			_ = c.rdl.SetReadDeadline(time.Time{})
		}
	}
	switch {
	case !c.writing:
		<-c.writerDone
	case c.wdl != nil:
		_ = c.wdl.SetWriteDeadline(time.Unix(1, 0))
		wait(c.writerDone, grace, "output writer")
	}
	if c.wdl != nil {
		_ = c.wdl.SetWriteDeadline(time.Time{})
	}

	defer func() {
		if r := recover(); r != nil {
			c.log.Error("stdio: Session.Close panicked", "panic", r, "stack", string(debug.Stack()))
		}
	}()
	c.sess.Close()
}

// handlerTracker counts Serve's jobs that are inside Run, so that Serve can
// wait for them and none starts after Serve stopped.
type handlerTracker struct {
	mu      sync.Mutex
	busy    int
	stopped bool
	idle    chan struct{}
}

// enter reports whether a job may run; every true is paired with leave.
func (h *handlerTracker) enter() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return false
	}
	h.busy++
	return true
}

func (h *handlerTracker) leave() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.busy--
	if h.busy == 0 && h.idle != nil {
		close(h.idle)
		h.idle = nil
	}
}

// stop refuses new jobs and returns a channel closed once none runs.
func (h *handlerTracker) stop() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopped = true
	ch := make(chan struct{})
	if h.busy == 0 {
		close(ch)
	} else {
		h.idle = ch
	}
	return ch
}

// send hands fr to the coordinator and waits for its verdict. Once the
// coordinator has taken a frame it always answers, so only a frame that was
// never handed over fails with errStopped.
func (c *serveConn) send(fr *frameReq) error {
	return c.sendWithin(context.Background(), fr, 0)
}

// sendWithin is send for producers that may give up before their turn:
// when ctx ends, or after limit (zero: no limit). Nothing is written then.
func (c *serveConn) sendWithin(ctx context.Context, fr *frameReq, limit time.Duration) error {
	var expire <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		expire = t.C
	}
	if fr.kind != frameForget {
		fr.done = make(chan error, 1)
	}
	select {
	case c.frames <- fr:
	case <-ctx.Done():
		return ctx.Err()
	case <-expire:
		return fmt.Errorf("stdio: output busy: frame not written within %v", limit)
	case <-c.done:
		return errServeStopped
	}
	if fr.done == nil {
		return nil
	}
	return <-fr.done
}

// runExec is the Run of every request's job, on an executor worker.
func (c *serveConn) runExec(ctx context.Context, e *execution) {
	if !c.handlers.enter() {
		return
	}
	defer c.handlers.leave()
	if ctx.Err() != nil {
		return
	}
	if e.listen {
		c.runListen(ctx, e)
		return
	}
	result, panicked, err := c.callHandle(ctx, e.req)
	if ctx.Err() != nil {
		// Cancelled, past the deadline, or Serve or the executor stopping:
		// the outcome is decided elsewhere, and any result is late.
		return
	}
	fr := &frameReq{kind: frameFinal, exec: e}
	fr.frame, fr.version = c.finalFrame(e, result, panicked, err)
	_ = c.send(fr)
}

func (c *serveConn) callHandle(ctx context.Context, req *seam.Request) (result json.RawMessage, panicked bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("stdio: request handler panicked", "method", req.Method, "id", string(req.ID),
				"panic", r, "stack", string(debug.Stack()))
			panicked = true
		}
	}()
	result, err = c.sess.Handle(ctx, req)
	return result, false, err
}

// finalFrame builds an execution's response, and the protocol version to
// record when it answers initialize.
func (c *serveConn) finalFrame(e *execution, result json.RawMessage, panicked bool, err error) (frame []byte, version string) {
	switch {
	case panicked:
		return wire.AppendError(nil, e.id, (*wire.Error)(serveInternal("Request worker failed"))), ""
	case err != nil:
		return wire.AppendError(nil, e.id, (*wire.Error)(c.wireError(e, err))), ""
	}
	compact, cerr := rawjson.Compact(result)
	if cerr != nil || !rawjson.IsObject(compact) {
		c.log.Error("stdio: the handler returned an invalid result", "method", e.method, "id", string(e.id), "error", cerr)
		return wire.AppendError(nil, e.id, (*wire.Error)(serveInternal("Server produced an invalid result"))), ""
	}
	if e.method == initializeMethod {
		if v, ok := rawjson.Member(compact, "protocolVersion"); ok {
			version, _ = rawjson.StringValue(v)
		}
	}
	return wire.AppendResponse(nil, e.id, compact), version
}

// wireError is what a handler's error becomes on the wire: a *jsonrpc.Error
// as it is, anything else -32603 without detail.
func (c *serveConn) wireError(e *execution, err error) *jsonrpc.Error {
	var re *jsonrpc.Error
	if !errors.As(err, &re) {
		c.log.Warn("stdio: request handler failed", "method", e.method, "id", string(e.id), "error", err)
		return serveInternal("Internal error")
	}
	out := &jsonrpc.Error{Code: re.Code, Message: re.Message}
	if len(re.Data) > 0 {
		data, derr := rawjson.Compact(re.Data)
		if derr != nil {
			c.log.Error("stdio: the handler returned invalid error data", "method", e.method, "id", string(e.id), "error", derr)
			return serveInternal("Server produced an invalid result")
		}
		out.Data = data
	}
	return out
}
