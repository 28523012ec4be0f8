package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/internal/lifeline"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Defaults of ClientConfig and CallOptions.
const (
	DefaultClientMaxLineBytes = 16 << 20
	DefaultRequestTimeout     = 30 * time.Second
	DefaultMaxTotalTimeout    = 600 * time.Second
	DefaultMaxServerRequests  = 16
)

// ClientConfig tunes a [Client]: its limits, its default timeout and the
// callbacks for what the child sends on its own. The zero value of each
// field means its default; negative sizes are invalid.
type ClientConfig struct {
	// MaxLineBytes is the longest stdout line accepted, LF included
	// (default 16 MiB). A longer line is discarded as it arrives, in
	// constant memory; when it was the response to a call (its id shows in
	// its first or last bytes: [wire] keeps both), that call fails at once
	// with -32603 and [ErrTooLarge] as the Cause.
	MaxLineBytes int
	// MaxRequestBytes, when positive, is the longest request line (LF
	// included) the child accepts: its own line limit. A call whose request
	// is longer is refused locally with -32600 and [ErrTooLarge] as the
	// Cause, before anything is written. Zero: no limit of the Client's.
	MaxRequestBytes int
	// RequestTimeout is the default per-call timeout (default 30 s).
	// Negative: only the caller's ctx bounds calls.
	RequestTimeout time.Duration
	// OnServerRequest answers requests the child sends (sampling,
	// elicitation, roots, …). Each runs in its own goroutine under a ctx
	// that ends at Close, on terminal failure, or when the child cancels
	// it. Return the result, or an *jsonrpc.Error to answer with that error. With
	// no handler every server request but ping gets -32601.
	OnServerRequest func(ctx context.Context, req ServerRequest) (json.RawMessage, error)
	// ExitFence, when set, is asked once the child has exited which fence
	// of its sandbox ended it ("" for none), for ExitError.Fence (package
	// stdio/sandbox's Fences.ExitFence).
	ExitFence func(*ExitError) string
	// MaxServerRequests bounds the handlers running at once (default 16).
	// A request over the limit is answered -32603 without running.
	MaxServerRequests int
	// OnNotification receives notifications that no call or subscription
	// claims. It runs on the reader goroutine and must not block.
	// Default: dropped (logged at Debug).
	OnNotification func(Notification)
	// Logger receives skipped lines, drops and late messages
	// (default slog.Default()).
	Logger *slog.Logger
	// Counters, when set, receives running totals of the traffic with the
	// child (for metrics). One Counters may serve the Clients of a
	// server's successive children, so that its totals survive restarts.
	Counters *Counters
	// Reaper runs the command under a reaper (package stdio/reaper), so
	// that none of its descendants outlives the command or this process,
	// however this process dies; docs/stdio.md, "Reapers". It
	// needs Linux and a call of reaper.Main at the start of main, and
	// Start refuses it otherwise. Default: off.
	Reaper bool
}

// normalize fills in defaults and checks the configuration.
func (cfg *ClientConfig) normalize() error {
	switch {
	case cfg.MaxLineBytes < 0:
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid ClientConfig: MaxLineBytes is negative")
	case cfg.MaxLineBytes == 0:
		cfg.MaxLineBytes = DefaultClientMaxLineBytes
	}
	if cfg.MaxRequestBytes < 0 {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid ClientConfig: MaxRequestBytes is negative")
	}
	switch {
	case cfg.MaxServerRequests < 0:
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid ClientConfig: MaxServerRequests is negative")
	case cfg.MaxServerRequests == 0:
		cfg.MaxServerRequests = DefaultMaxServerRequests
	}
	if cfg.Reaper && !lifeline.Available() {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid ClientConfig: Reaper needs Linux and reaper.Main called first thing in main")
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return nil
}

// Notification is a notification from the child that nothing claimed.
type Notification struct {
	// Method is the notification's method.
	Method string
	// Params is its params as sent, nil when absent.
	Params json.RawMessage
}

// Client runs one stdio MCP server as a child process and talks JSON-RPC
// with it. All methods are safe for concurrent use: any number of
// goroutines may have calls in flight at once, correlated by id.
//
// A Client started with [Start] sends exactly what it is given; [Connect]
// adds version negotiation and, for a 2026-07-28 child, the _meta every
// request must carry. The Client never restarts, signals or kills its
// child on its own; see [Client.Close] and [Client.Signal].
type Client struct {
	cfg    ClientConfig
	log    *slog.Logger
	cmd    *exec.Cmd // nil for an in-process connection (tests)
	stdin  io.WriteCloser
	stdout io.ReadCloser
	wait   func() *os.ProcessState
	tail   *tailWriter
	pipe   *os.File // the write end of the child's stdin; nil for Open
	pid    int      // the command's process id
	pgid   int      // the process group Signal signals

	writes  chan *frame   // unbuffered hand-off to the writer
	wlock   chan struct{} // one slot: whoever holds it writes to stdin
	direct  deadliner     // stdin, when callers may write to it themselves
	replies chan []byte   // the reader's own answers (ping, refusals), bounded
	closing chan struct{} // closed at Close or terminal failure
	exited  chan struct{} // closed once the child is reaped
	eof     chan struct{} // closed once the reader saw EOF or a read error
	done    chan struct{} // closed once reader, writer and waiter returned
	live    atomic.Int32  // goroutines left before done closes

	nextID    atomic.Int64
	forwarded atomic.Int32        // len(fwd), read without mu
	era       atomic.Pointer[era] // set once by Connect; nil on a raw Client
	written   atomic.Int64        // bytes written to stdin, counted once each write returned

	mu         sync.Mutex
	pending    map[int64]*call
	fwd        map[string]int64 // calls sent under their caller's own id: the id, canonical, to the key in pending
	fwdTokens  map[string]int64 // of those, the callers' own progress tokens, canonical, to the key in pending
	fwdSeq     int64            // the last key of such a call (negative)
	subs       map[int64]*Subscription
	handlers   map[string]context.CancelFunc // running server requests by raw id
	cancelling []notice                      // abandoned requests whose notice is not yet written
	err        *jsonrpc.Error                // terminal error; nil while healthy
	state      *os.ProcessState
	lifeline   *os.File // the reaper's lifeline until it is closed; nil without a reaper

	running   int // server-request handlers running
	stdinOnce sync.Once
	answered  atomic.Int64 // the longest request line the child has answered
	skipped   atomic.Int64 // lines that were not JSON-RPC messages
	lastWarn  atomic.Int64 // unix nanos of the last skipped-line warning
}

type frame struct {
	buf  []byte
	errc chan error // for Notify: the result of the write
}

// framePool recycles frames and their buffers: a call's request frame is
// built, written and released without an allocation in the steady state.
var framePool = sync.Pool{New: func() any { return &frame{buf: make([]byte, 0, 512)} }}

func newFrame() *frame {
	f := framePool.Get().(*frame)
	f.buf, f.errc = f.buf[:0], nil
	return f
}

// release returns f to the pool once nothing refers to it any more.
func (f *frame) release() {
	if cap(f.buf) <= 64<<10 {
		framePool.Put(f)
	}
}

// Start runs cmd as a stdio MCP server and returns a Client for it. It
// sends nothing to the child. ctx bounds start-up only: cancelling it later
// leaves the child running (cmd must not come from exec.CommandContext).
//
// cmd is as exec.Command made it: Path, Args, Env, Dir and Stderr are the
// caller's. Its Stdin and Stdout must be nil: Start connects them to pipes
// of its own. Start puts the child in a process group of its own (and, on
// Linux, asks the kernel to kill it when the starting thread's process
// dies), keeping the rest of cmd.SysProcAttr, and sets WaitDelay to 2 s
// when it is zero. A Stderr that is not an *os.File is drained by a
// goroutine of exec.Cmd's, and its last 4 KiB are kept for [ExitError].
//
// With cfg.Reaper, Start rewrites cmd to run a reaper (package
// stdio/reaper) that runs the command, and returns once the reaper has
// started it: cmd.Process is then the reaper, which leads the process
// group, gets cmd.SysProcAttr and exits as the command did.
//
// A command that cannot be found fails with -32000 "Executable not found"
// (its Cause matches exec.ErrNotFound or fs.ErrNotExist); any other start
// failure with -32000 "Could not start the stdio server".
func Start(ctx context.Context, cmd *exec.Cmd, cfg ClientConfig) (*Client, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	if cmd == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "stdio: Start needs a command")
	}
	if err := ctx.Err(); err != nil {
		return nil, startFailed(err)
	}
	s, err := spawn(ctx, cmd, cfg.Reaper)
	if err != nil {
		return nil, err
	}
	wait := func() *os.ProcessState {
		_ = cmd.Wait() // the status is in ProcessState
		return cmd.ProcessState
	}
	c := newClient(cfg, s.stdin, s.stdout, wait)
	c.cmd, c.tail, c.pipe, c.pid, c.pgid, c.lifeline = cmd, s.tail, s.stdin, s.pid, s.pgid, s.lifeline
	if s.stdin.SetWriteDeadline(time.Time{}) == nil {
		c.direct = s.stdin
	}
	c.log = cfg.Logger.With("pid", s.pid)
	c.live.Store(3)
	go c.reader()
	go c.writer()
	go c.waiter()
	return c, nil
}

// Open returns a Client over a connection that is not a child process of
// its own: what the Client writes to in is the server's input, what it
// reads from out the server's output, one JSON-RPC message per line as
// over a child's pipes (an in-process tunnel, a socket). It sends nothing.
//
// The connection ends when out does (EOF or an error), or at Close, which
// closes in; the Client closes out once it is done reading. There is no
// process: Pid is 0, ExitState nil, and Signal returns os.ErrProcessDone.
// Done is closed once out has ended and the Client's goroutines returned.
// Close sends no notifications/cancelled unless in takes write deadlines
// (SetWriteDeadline), since the write could block; whoever serves the
// other end sees in close and ends what is in flight.
func Open(in io.WriteCloser, out io.ReadCloser, cfg ClientConfig) (*Client, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	if in == nil || out == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "stdio: Open needs both directions of the connection")
	}
	var c *Client
	c = newClient(cfg, in, out, func() *os.ProcessState {
		<-c.eof // the connection's end is the "exit"
		return nil
	})
	if d, ok := in.(deadliner); ok && d.SetWriteDeadline(time.Time{}) == nil {
		c.direct = d
	}
	c.live.Store(3)
	go c.reader()
	go c.writer()
	go c.waiter()
	return c, nil
}

// newClient builds a Client over the child's pipes; wait blocks until the
// child is reaped. The caller starts the goroutines.
func newClient(cfg ClientConfig, stdin io.WriteCloser, stdout io.ReadCloser, wait func() *os.ProcessState) *Client {
	if n := cfg.Counters; n != nil {
		stdin = countingWriter{stdin, &n.BytesOut}
		stdout = countingReader{stdout, &n.BytesIn}
	}
	c := &Client{
		cfg:       cfg,
		log:       cfg.Logger,
		stdout:    stdout,
		wait:      wait,
		writes:    make(chan *frame),
		wlock:     make(chan struct{}, 1),
		replies:   make(chan []byte, cfg.MaxServerRequests),
		closing:   make(chan struct{}),
		exited:    make(chan struct{}),
		eof:       make(chan struct{}),
		done:      make(chan struct{}),
		pending:   make(map[int64]*call),
		fwd:       make(map[string]int64),
		fwdTokens: make(map[string]int64),
		subs:      make(map[int64]*Subscription),
		handlers:  make(map[string]context.CancelFunc),
	}
	c.stdin = writtenWriter{stdin, &c.written}
	return c
}

// writtenWriter adds each write's bytes to n once the write returned: then
// they are in the pipe, for the child to take ([Client.inputTaken]).
type writtenWriter struct {
	io.WriteCloser
	n *atomic.Int64
}

func (w writtenWriter) Write(p []byte) (int, error) {
	n, err := w.WriteCloser.Write(p)
	w.n.Add(int64(n))
	return n, err
}

// inputTaken reports whether the child has taken off its stdin every byte
// written to it so far, of at least one write; known is false when that
// cannot be seen (a connection made by Open, or a system where a pipe's
// unread bytes cannot be counted).
func (c *Client) inputTaken() (taken, known bool) {
	if c.pipe == nil {
		return false, false
	}
	if c.written.Load() == 0 {
		return false, true
	}
	n, ok := unread(c.pipe)
	return ok && n == 0, ok
}

// goroutineDone is called by the reader, the writer and the waiter as they
// return; the last one closes done.
func (c *Client) goroutineDone() {
	if c.live.Add(-1) == 0 {
		close(c.done)
	}
}

// Done is closed once the child has been reaped and the Client's reader,
// writer and waiter goroutines have returned.
func (c *Client) Done() <-chan struct{} { return c.done }

// Closed is closed once the connection has ended: Close was called, or the
// child exited, closed its output or could not be written to. [Client.Err]
// then says why. It comes before Done, which also waits for the child to
// be reaped (a descendant holding the child's stdout can delay that
// indefinitely); a supervisor restarts on Closed and escalates until Done.
func (c *Client) Closed() <-chan struct{} { return c.closing }

// Err returns the error that ended the connection, or nil while it is
// healthy.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		return nil
	}
	return c.err
}

// Pid returns the child's process id: the command's, also under a
// reaper.
func (c *Client) Pid() int { return c.pid }

// ExitState returns the child's state once it has been reaped, else nil.
// Under a reaper it is the reaper's, which exits as the command did.
func (c *Client) ExitState() *os.ProcessState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Signal sends sig to the child's process group (the child, or its
// reaper, leads its own group, so a launcher and its descendants are
// signalled together). It returns os.ErrProcessDone once the group is
// gone. The Client never calls it on its own.
//
// Under a reaper, the first SIGKILL closes the reaper's lifeline instead:
// the reaper then kills the command and every descendant, those that left
// the group too, and exits as the command did. (A group SIGKILL would kill
// the reaper before it could.) A later SIGKILL, and any once the reaper
// has been reaped, goes to the group.
func (c *Client) Signal(sig syscall.Signal) error {
	if c.cmd == nil {
		return os.ErrProcessDone
	}
	if sig == syscall.SIGKILL && c.closeLifeline() {
		return nil
	}
	err := syscall.Kill(-c.pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// closeLifeline closes the reaper's lifeline and reports whether it was
// open: once closed, the reaper kills what is left of the command and
// exits.
func (c *Client) closeLifeline() bool {
	c.mu.Lock()
	l := c.lifeline
	c.lifeline = nil
	c.mu.Unlock()
	if l == nil {
		return false
	}
	l.Close()
	return true
}

// Close ends the connection: it refuses new work, fails calls in flight and
// open subscriptions with -32000 "Connection closed", cancels server-request
// handlers (their answers are never written), tells the child with
// notifications/cancelled about every request it abandons (calls in
// flight, and calls abandoned earlier whose notice was still queued), and
// closes the child's stdin. Many servers finish the work in hand at EOF;
// the notices stop it first. It neither waits for the child nor signals
// it: an MCP server exits at EOF, and [Client.Done] says when it has.
// Close is idempotent and returns nil; it blocks only while the notices
// are written, at most closeNoticeGrace (a child that does not read its
// stdin loses them).
func (c *Client) Close() error {
	c.fail(&jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Connection closed"}, true)
	return nil
}

// closeNoticeGrace bounds how long Close waits to write its cancellations.
const closeNoticeGrace = time.Second

// writeCancellations writes notifications/cancelled for ids straight to
// stdin, once the writer has stopped: one Write, bounded by
// closeNoticeGrace. Without a stdin that takes deadlines (an in-process
// pipe) nothing is written, since the write could block Close.
func (c *Client) writeCancellations(ids []notice) {
	if len(ids) == 0 || c.direct == nil {
		return
	}
	var buf []byte
	for _, id := range ids {
		params := id.appendID([]byte(`{"requestId":`))
		params = append(params, `,"reason":"Connection closed"}`...)
		buf = wire.AppendNotification(buf, "notifications/cancelled", params)
	}
	t := time.NewTimer(closeNoticeGrace)
	defer t.Stop()
	select {
	case c.wlock <- struct{}{}:
	case <-t.C:
		c.log.Warn("stdio: could not tell the server about abandoned requests", "count", len(ids))
		return
	}
	defer func() { <-c.wlock }()
	c.direct.SetWriteDeadline(time.Now().Add(closeNoticeGrace))
	if _, err := c.stdin.Write(buf); err != nil {
		c.log.Warn("stdio: could not tell the server about abandoned requests", "count", len(ids), "error", err)
	}
}

// fail ends the connection with e unless it has already ended. discard
// (Close) drops queued subscription events instead of delivering them.
func (c *Client) fail(e *jsonrpc.Error, discard bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = e
	pending := c.pending
	c.pending = nil
	subs := c.subs
	c.subs = nil
	handlers := c.handlers
	c.handlers = nil
	c.fwd, c.fwdTokens = map[string]int64{}, map[string]int64{}
	c.forwarded.Store(0)
	var notices []notice
	if discard { // Close: the child is alive and is told what was abandoned
		notices = c.cancelling
		for _, cl := range pending {
			notices = append(notices, notice{id: cl.id, raw: cl.raw})
		}
	}
	c.cancelling = nil
	close(c.closing)
	c.mu.Unlock()

	for _, cl := range pending {
		cl.resp <- response{err: e}
	}
	for _, s := range subs {
		s.end(e, discard)
	}
	for _, cancel := range handlers {
		cancel()
	}
	c.writeCancellations(notices)
	c.closeStdin()
}

func (c *Client) closeStdin() {
	c.stdinOnce.Do(func() { c.stdin.Close() })
}

// terminal returns the error that ended the connection, if any.
func (c *Client) terminal() *jsonrpc.Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// writeBatch bounds how many bytes of frames already waiting the writer
// joins into one Write.
const writeBatch = 64 << 10

// writer owns the child's stdin until the connection ends. It takes one
// frame, then whatever other frames are already waiting (up to
// writeBatch bytes), and writes them with one Write: a frame is never
// split, and under load one system call carries many lines. Started by
// Start.
func (c *Client) writer() {
	defer c.goroutineDone()
	batch := make([]byte, 0, writeBatch)
	var waiting []chan error
	for {
		var f *frame
		select {
		case f = <-c.writes:
		case buf := <-c.replies:
			f = &frame{buf: buf}
		case <-c.closing:
			return
		}
		out := f.buf
		waiting = append(waiting[:0], f.errc)
		batch = batch[:0]
		if len(c.writes) == 0 {
			// Yield once before writing a lone frame: callers that the
			// same burst of responses woke are runnable and queue their
			// next frames meanwhile, so one write carries them all
			// (grpc-go's loopy writer does the same). +15% requests/s at
			// 64 in flight in BenchmarkThroughput; the direct path of
			// one or two calls in flight never comes here.
			runtime.Gosched()
		}
	more:
		for len(out) < writeBatch {
			var next *frame
			select {
			case next = <-c.writes:
			case buf := <-c.replies:
				next = &frame{buf: buf}
			default:
				break more
			}
			if len(batch) == 0 {
				batch = append(batch, out...)
			}
			batch = append(batch, next.buf...)
			waiting = append(waiting, next.errc)
			next.release()
			out = batch
		}
		var err error
		select {
		case c.wlock <- struct{}{}:
			_, err = c.stdin.Write(out)
			<-c.wlock
		case <-c.closing:
			err = os.ErrClosed
		}
		f.release() // its bytes were written, or copied into batch
		for _, errc := range waiting {
			if errc != nil {
				errc <- err
			}
		}
		if cap(batch) > 2*writeBatch { // a huge frame joined a batch
			batch = make([]byte, 0, writeBatch)
		}
		if err != nil {
			c.fail(c.connectionFailed(err), false)
			return
		}
	}
}

// exitWindow is how long after the child's exit the reader may still wait
// for EOF (a descendant may hold stdout) before the connection ends, and
// how long after EOF the exit status is awaited.
const exitWindow = time.Second

// waiter is the sole caller of cmd.Wait. Started by Start.
func (c *Client) waiter() {
	defer c.goroutineDone()
	state := c.wait()
	c.closeLifeline() // the reaper, if any, is gone; the descriptor is not
	c.mu.Lock()
	c.state = state
	c.mu.Unlock()
	close(c.exited)
	t := time.NewTimer(exitWindow)
	defer t.Stop()
	select {
	case <-c.eof: // the reader ends the connection with the status
	case <-t.C:
		c.fail(c.exitedError(io.EOF), false)
	}
}

// connectionFailed is the terminal error of a failed write to the child:
// a child that died breaks its stdin before it is reaped, so its exit
// status is awaited (at most exitWindow) and reported when it comes, as
// for EOF; otherwise the write error is.
func (c *Client) connectionFailed(err error) *jsonrpc.Error {
	if c.cmd != nil && c.terminal() == nil {
		t := time.NewTimer(exitWindow)
		defer t.Stop()
		select {
		case <-c.exited:
			return c.exitedError(err)
		case <-t.C:
		case <-c.closing:
		}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The stdio server connection failed", Cause: err}
}

// exitedError is the terminal error of a child that went away: its exit
// status when known, else cause.
func (c *Client) exitedError(cause error) *jsonrpc.Error {
	c.mu.Lock()
	state := c.state
	c.mu.Unlock()
	if state != nil {
		x := exitError(state, c.tail)
		if c.cfg.ExitFence != nil {
			x.Fence = c.cfg.ExitFence(x)
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The stdio server exited", Cause: x}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The stdio server exited", Cause: cause}
}

// reader owns the child's stdout until EOF, also after Close, so that a
// flushing child can finish. Started by Start.
func (c *Client) reader() {
	defer c.goroutineDone()
	defer c.stdout.Close()
	lr := wire.NewReader(c.stdout, c.cfg.MaxLineBytes)
	for {
		line, err := lr.ReadLine()
		var tooLong *wire.LineTooLongError
		switch {
		case err == nil:
			c.route(line, lr.Detach())
		case errors.As(err, &tooLong):
			c.tooLong(tooLong)
		default:
			close(c.eof)
			t := time.NewTimer(exitWindow)
			select {
			case <-c.exited:
			case <-t.C:
			}
			t.Stop()
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
				c.fail(c.exitedError(err), false)
			} else {
				c.fail(&jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "The stdio server connection failed", Cause: err}, false)
			}
			return
		}
	}
}

// skip logs a line that is not a JSON-RPC message, at most once a second.
func (c *Client) skip(line []byte, why error) {
	c.skipped.Add(1)
	if n := c.cfg.Counters; n != nil {
		n.LinesSkipped.Add(1)
	}
	now := time.Now().UnixNano()
	last := c.lastWarn.Load()
	if now-last < int64(time.Second) || !c.lastWarn.CompareAndSwap(last, now) {
		return
	}
	if len(line) > 256 {
		line = line[:256]
	}
	c.log.Warn("stdio: skipped a line that is not a JSON-RPC message", "line", string(line), "error", why)
}

// route dispatches one line from the child. It runs on the reader and never
// blocks on a caller. kept says the line is route's to keep (a huge line
// the Reader let go of), so a response's result need not be copied.
func (c *Client) route(line []byte, kept bool) {
	m, err := wire.Decode(line)
	if err != nil {
		c.skip(line, err)
		return
	}
	switch m.Kind {
	case wire.KindResponse:
		c.routeResponse(&m, kept)
	case wire.KindRequest:
		c.serverRequest(&m)
	case wire.KindNotification:
		c.routeNotification(&m)
	}
}

// owned copies a raw member out of the reader's buffer, compacting it when
// the line held whitespace or invalid UTF-8, so callers always get one
// canonical line's worth of JSON.
func owned(raw json.RawMessage, dirty bool) json.RawMessage {
	if raw == nil {
		return nil
	}
	if dirty {
		out, _ := rawjson.Compact(raw) // valid: Decode checked it
		return out
	}
	return append(json.RawMessage(nil), raw...)
}

func (c *Client) routeResponse(m *wire.Message, kept bool) {
	id, isInt := wire.IntID(m.ID)
	if !isInt && c.forwarded.Load() == 0 {
		if m.NullID() && m.HasError() {
			c.unreadable(m.Error)
			return
		}
		c.log.Debug("stdio: dropped a response to an unknown id", "id", string(m.ID))
		return
	}
	var r response
	switch {
	case m.HasResult() == m.HasError():
		r.err = &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Invalid JSON-RPC response"}
	case m.HasError():
		e, ok := wire.DecodeError(m.Error)
		r.err = (*jsonrpc.Error)(e)
		if !ok {
			r.err = &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Invalid JSON-RPC response"}
		}
	case kept && !m.Dirty: // the line is ours: no copy of a huge result
		r.result = m.Result[:len(m.Result):len(m.Result)]
	default:
		r.result = owned(m.Result, m.Dirty)
	}
	c.mu.Lock()
	cl := c.inFlight(m.ID)
	if cl != nil {
		c.forget(cl)
	}
	var sub *Subscription
	if isInt && cl == nil {
		sub = c.subs[id]
	}
	c.mu.Unlock()
	switch {
	case cl != nil:
		if r.err == nil || r.err.Code != jsonrpc.CodeConnectionClosed {
			c.noteAnswered(cl.size)
		}
		cl.resp <- r
	case sub != nil:
		sub.terminal(r)
	case m.NullID() && m.HasError():
		c.unreadable(m.Error)
	default:
		c.log.Debug("stdio: dropped a response to an unknown or abandoned id", "id", string(m.ID))
	}
}

// response is the outcome the reader (or a terminal failure) hands a call.
type response struct {
	result json.RawMessage
	err    *jsonrpc.Error
}

// logTaker returns the call a log message belongs to, if one can be told
// (docs/protocol.md, "Logging"): on a 2026-07-28 connection, where a server
// logs only for requests that set a log level, the one call in flight that
// takes logs; otherwise the call in flight when it is the only one and
// takes logs.
func (c *Client) logTaker() *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	var taker *call
	if e := c.era.Load(); e != nil && e.modern {
		for _, cl := range c.pending {
			if cl.logs {
				if taker != nil {
					return nil
				}
				taker = cl
			}
		}
		return taker
	}
	if len(c.pending) == 1 {
		for _, cl := range c.pending {
			if cl.logs {
				taker = cl
			}
		}
	}
	return taker
}

// routeNotification hands a notification to the call, subscription or
// server request it concerns, else to OnNotification.
func (c *Client) routeNotification(m *wire.Message) {
	switch m.Method {
	case "notifications/progress":
		tok, _ := rawjson.Member(m.Params, "progressToken")
		if c.forwarded.Load() > 0 {
			if k, ok := canonicalID(tok); ok {
				c.mu.Lock()
				var cl *call
				if key := c.fwdTokens[k]; key != 0 {
					cl = c.pending[key]
				}
				c.mu.Unlock()
				if cl != nil {
					cl.progress.Push(progressItem{raw: owned(m.Params, m.Dirty), at: time.Now()})
					return
				}
			}
		}
		if id, token, ok := tokenID(tok); ok && id > 0 && id <= c.nextID.Load() {
			c.mu.Lock()
			cl := c.pending[id]
			c.mu.Unlock()
			if cl != nil && cl.token != "" && cl.token == token {
				cl.progress.Push(progressItem{raw: owned(m.Params, m.Dirty), at: time.Now()})
			}
			// Progress for a finished or abandoned call is dropped:
			// real servers keep sending after a cancel. So is progress
			// whose random part does not match: a forged token.
			return
		}
	case "notifications/message":
		if cl := c.logTaker(); cl != nil {
			cl.progress.Push(progressItem{raw: owned(m.Params, m.Dirty), at: time.Now(), log: true})
			return
		}
	case "notifications/cancelled":
		target, _ := rawjson.Member(m.Params, "requestId")
		if c.cancelServerRequest(target) || c.endSubscription(target) {
			return
		}
	}
	if c.routeEvent(m) {
		return
	}
	if c.cfg.OnNotification != nil {
		c.cfg.OnNotification(Notification{Method: m.Method, Params: owned(m.Params, m.Dirty)})
		return
	}
	c.log.Debug("stdio: dropped a notification", "method", m.Method)
}
