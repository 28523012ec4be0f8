package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// serveWait bounds every wait of a test for an event. It is generous: the
// machine may be loaded, and under testing/synctest it only fires on a
// deadlock.
const serveWait = 30 * time.Second

// fakeRuntime is the Runtime (and Session) of the server tests. Requests are
// dispatched by method name to small fixtures; tests override handle,
// listen or notify where they need to.
type fakeRuntime struct {
	handle func(ctx context.Context, req *seam.Request) (json.RawMessage, error)
	listen func(ctx context.Context, req *seam.Request) (seam.Source, error)
	notify func(ctx context.Context, method string, params json.RawMessage)
	info   json.RawMessage

	events chan handlerEvent // what handlers did, for tests to wait on

	mu       sync.Mutex
	gates    map[string]chan struct{}
	peer     seam.Peer
	sessions int
	closed   int

	running, maxRunning atomic.Int32
}

// handlerEvent reports a handler's start or end; err is context.Cause of
// its ctx at the end, nil if it was live.
type handlerEvent struct {
	id, what string
	err      error
}

func newFakeRuntime() *fakeRuntime {
	return &fakeRuntime{
		events: make(chan handlerEvent, 10000),
		gates:  make(map[string]chan struct{}),
		info:   json.RawMessage(`{"name":"test-server","version":"1.0.0"}`),
	}
}

func (rt *fakeRuntime) NewSession(p seam.Peer) seam.Session {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.peer = p
	rt.sessions++
	return rt
}

func (rt *fakeRuntime) Close() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.closed++
}

func (rt *fakeRuntime) ServerInfo() json.RawMessage { return rt.info }

func (rt *fakeRuntime) Notify(ctx context.Context, method string, params json.RawMessage) {
	if rt.notify != nil {
		rt.notify(ctx, method, params)
	}
}

func (rt *fakeRuntime) Listen(ctx context.Context, req *seam.Request) (seam.Source, error) {
	if rt.listen != nil {
		return rt.listen(ctx, req)
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found")
}

// gate returns the channel that "block" and "ignore" requests naming key
// wait for; open releases them.
func (rt *fakeRuntime) gate(key string) chan struct{} {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	g, ok := rt.gates[key]
	if !ok {
		g = make(chan struct{})
		rt.gates[key] = g
	}
	return g
}

func (rt *fakeRuntime) open(key string) { close(rt.gate(key)) }

// waitEvent waits for the next handler event with the given what.
func (rt *fakeRuntime) waitEvent(tb testing.TB, what string) handlerEvent {
	tb.Helper()
	return rt.waitFor(tb, what, func(handlerEvent) bool { return true })
}

// waitFor waits for the next handler event with the given what that ok
// accepts, skipping others.
func (rt *fakeRuntime) waitFor(tb testing.TB, what string, ok func(handlerEvent) bool) handlerEvent {
	tb.Helper()
	timer := time.NewTimer(serveWait)
	defer timer.Stop()
	for {
		select {
		case ev := <-rt.events:
			if ev.what == what && ok(ev) {
				return ev
			}
		case <-timer.C:
			tb.Fatalf("no matching handler %q event within %v", what, serveWait)
		}
	}
}

// drainEvents returns the events not yet consumed.
func (rt *fakeRuntime) drainEvents() []handlerEvent {
	var evs []handlerEvent
	for {
		select {
		case ev := <-rt.events:
			evs = append(evs, ev)
		default:
			return evs
		}
	}
}

// event records what a handler did; past the buffer (fuzzing,
// benchmarks) events are dropped.
func (rt *fakeRuntime) event(ev handlerEvent) {
	select {
	case rt.events <- ev:
	default:
	}
}

// fixtureParams are the params the fixtures understand.
type fixtureParams struct {
	MS      int       `json:"ms"`
	Gate    string    `json:"gate"`
	Steps   []float64 `json:"steps"`
	Total   *float64  `json:"total"`
	Outcome string    `json:"outcome"`
	Version string    `json:"protocolVersion"`
	Text    string    `json:"text"`
}

func (rt *fakeRuntime) Handle(ctx context.Context, req *seam.Request) (json.RawMessage, error) {
	n := rt.running.Add(1)
	defer rt.running.Add(-1)
	for {
		m := rt.maxRunning.Load()
		if n <= m || rt.maxRunning.CompareAndSwap(m, n) {
			break
		}
	}
	rt.event(handlerEvent{id: string(req.ID), what: "start"})
	defer func() { rt.event(handlerEvent{id: string(req.ID), what: "end", err: context.Cause(ctx)}) }()
	if rt.handle != nil {
		return rt.handle(ctx, req)
	}
	return rt.fixture(ctx, req)
}

// fixture dispatches a request to the fixture its method names.
func (rt *fakeRuntime) fixture(ctx context.Context, req *seam.Request) (json.RawMessage, error) {
	var p fixtureParams
	if req.Params != nil {
		_ = json.Unmarshal(req.Params, &p)
	}
	switch req.Method {
	case "echo":
		if req.Params == nil {
			return json.RawMessage(`{}`), nil
		}
		return req.Params, nil
	case "sleep": // honours ctx
		select {
		case <-time.After(time.Duration(p.MS) * time.Millisecond):
			return json.RawMessage(fmt.Sprintf(`{"slept":%d}`, p.MS)), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "nap": // ignores ctx
		time.Sleep(time.Duration(p.MS) * time.Millisecond)
		return json.RawMessage(fmt.Sprintf(`{"slept":%d}`, p.MS)), nil
	case "block": // waits for its gate, honouring ctx
		select {
		case <-rt.gate(p.Gate):
			return json.RawMessage(`{"released":true}`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "ignore": // waits for its gate, ignoring ctx
		<-rt.gate(p.Gate)
		return json.RawMessage(`{"released":true}`), nil
	case "panic":
		panic("boom: secret detail")
	case "fail":
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Bad thing", Data: json.RawMessage(`{ "why" : "x" }`)}
	case "internal":
		return nil, errors.New("secret detail")
	case "invalid":
		return json.RawMessage(`{not json`), nil
	case "array":
		return json.RawMessage(`[1,2]`), nil
	case "initialize":
		return json.RawMessage(fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{}}`, p.Version)), nil
	case "version":
		return json.RawMessage(fmt.Sprintf(`{"version":%q}`, req.Version)), nil
	case "progress":
		for _, s := range p.Steps {
			if err := req.Progress.Report(ctx, s, p.Total, ""); err != nil {
				return nil, err
			}
		}
		switch p.Outcome {
		case "error":
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Progress failed")
		case "input_required":
			return json.RawMessage(`{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list","params":{}}}}`), nil
		}
		return json.RawMessage(`{"resultType":"complete","done":true}`), nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found")
}

// fakeSource is a Source fed by the test through events; closing events
// ends it normally.
type fakeSource struct {
	accepted json.RawMessage
	events   chan fakeEvent
	pulls    atomic.Int32
	onPull   func(n int32) // optional, called at each pull
	closed   chan error    // receives the Close reason; capacity 1
	closes   atomic.Int32
}

type fakeEvent struct {
	method string
	params json.RawMessage
	err    error
}

func newFakeSource(accepted string) *fakeSource {
	return &fakeSource{
		accepted: json.RawMessage(accepted),
		events:   make(chan fakeEvent),
		closed:   make(chan error, 1),
	}
}

func (s *fakeSource) Accepted() json.RawMessage { return s.accepted }

func (s *fakeSource) Next(ctx context.Context) (string, json.RawMessage, error) {
	n := s.pulls.Add(1)
	if s.onPull != nil {
		s.onPull(n)
	}
	select {
	case ev, ok := <-s.events:
		if !ok {
			return "", nil, io.EOF
		}
		return ev.method, ev.params, ev.err
	case <-ctx.Done():
		return "", nil, ctx.Err()
	}
}

func (s *fakeSource) Close(reason error) {
	if s.closes.Add(1) == 1 {
		s.closed <- reason
	}
}

// waitClosed returns the reason of the source's Close.
func (s *fakeSource) waitClosed(tb testing.TB) error {
	tb.Helper()
	select {
	case err := <-s.closed:
		s.closed <- err // keep it for later checks
		return err
	case <-time.After(serveWait):
		tb.Fatalf("source not closed within %v", serveWait)
		return nil
	}
}

// frameWriter sits between Serve and the output pipe. It checks that every
// Write is exactly one frame (one LF, at the end) and that no two Writes
// overlap, and it lets tests block or fail chosen writes.
type frameWriter struct {
	w        io.Writer
	inflight atomic.Int32
	writes   atomic.Int64
	hook     atomic.Pointer[func(frame []byte) error]

	mu       sync.Mutex
	problems []string
}

func (cw *frameWriter) setHook(f func(frame []byte) error) { cw.hook.Store(&f) }

func (cw *frameWriter) Write(p []byte) (int, error) {
	if n := cw.inflight.Add(1); n != 1 {
		cw.problem("%d Writes in flight at once", n)
	}
	defer cw.inflight.Add(-1)
	cw.writes.Add(1)
	if len(p) == 0 || p[len(p)-1] != '\n' || bytes.Count(p, []byte{'\n'}) != 1 || bytes.IndexByte(p, '\r') >= 0 {
		cw.problem("Write is not exactly one frame: %.200q", p)
	}
	if h := cw.hook.Load(); h != nil && *h != nil {
		if err := (*h)(p); err != nil {
			return 0, err
		}
	}
	return cw.w.Write(p)
}

func (cw *frameWriter) problem(format string, args ...any) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	cw.problems = append(cw.problems, fmt.Sprintf(format, args...))
}

func (cw *frameWriter) check(tb testing.TB) {
	tb.Helper()
	cw.mu.Lock()
	defer cw.mu.Unlock()
	for _, p := range cw.problems {
		tb.Error(p)
	}
}

// logBuffer is a bytes.Buffer for logs written from several goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serveHarness runs Serve over io.Pipe pairs: the test writes input lines and
// reads output lines.
type serveHarness struct {
	tb     testing.TB
	rt     *fakeRuntime
	out    *frameWriter
	logs   *logBuffer
	in     *io.PipeWriter
	inR    *io.PipeReader
	lines  chan string
	errc   chan error
	cancel context.CancelFunc

	err      error
	returned bool
}

func startServe(tb testing.TB, rt *fakeRuntime, cfg Config) *serveHarness {
	tb.Helper()
	return startServeStop(tb, rt, cfg, nil)
}

// startServeStop is startServe with the graceful stop that Run uses: stop
// closing stops Serve as a signal stops Run.
func startServeStop(tb testing.TB, rt *fakeRuntime, cfg Config, stop <-chan struct{}) *serveHarness {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &serveHarness{
		tb: tb, rt: rt, in: inW, inR: inR, cancel: cancel,
		out:   &frameWriter{w: outW},
		logs:  &logBuffer{},
		lines: make(chan string, 10000),
		errc:  make(chan error, 1),
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(h.logs, nil))
	}
	go func() {
		defer close(h.lines)
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			h.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	go func() {
		err := serve(ctx, rt, inR, h.out, cfg, stop)
		outW.Close()
		h.errc <- err
	}()
	tb.Cleanup(func() {
		cancel()
		inW.Close()
		h.wait()
		outR.Close()
		for range h.lines {
		}
		h.out.check(tb)
	})
	return h
}

// send writes raw input, normally one line with its LF.
func (h *serveHarness) send(s string) {
	h.tb.Helper()
	if _, err := io.WriteString(h.in, s); err != nil {
		h.tb.Fatalf("writing input: %v", err)
	}
}

// sendLine writes one line and its LF.
func (h *serveHarness) sendLine(line string) { h.tb.Helper(); h.send(line + "\n") }

// next returns the next output line.
func (h *serveHarness) next() string {
	h.tb.Helper()
	select {
	case line, ok := <-h.lines:
		if !ok {
			h.tb.Fatalf("output ended; Serve returned %v", h.wait())
		}
		return line
	case <-time.After(serveWait):
		h.tb.Fatalf("no output line within %v", serveWait)
	}
	return ""
}

// nextMsg returns the next output line, decoded and checked.
func (h *serveHarness) nextMsg() outMsg {
	h.tb.Helper()
	return parseOut(h.tb, h.next())
}

// eof closes the input.
func (h *serveHarness) eof() { h.in.Close() }

// wait returns Serve's result, waiting for it.
func (h *serveHarness) wait() error {
	if !h.returned {
		select {
		case h.err = <-h.errc:
			h.returned = true
		case <-time.After(serveWait):
			h.tb.Fatalf("Serve did not return within %v", serveWait)
		}
	}
	return h.err
}

// rest waits for Serve to return and returns the lines not yet read.
func (h *serveHarness) rest() []string {
	h.tb.Helper()
	h.wait()
	var out []string
	for line := range h.lines {
		out = append(out, line)
	}
	return out
}

// quiet checks that no output line is waiting.
func (h *serveHarness) quiet() {
	h.tb.Helper()
	select {
	case line, ok := <-h.lines:
		if ok {
			h.tb.Fatalf("unexpected output %s", line)
		}
	default:
	}
}

// outMsg is one output message.
type outMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *outError       `json:"error"`
	line    string
}

type outError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// parseOut decodes an output line and checks that it is one valid JSON-RPC
// response or notification.
func parseOut(tb testing.TB, line string) outMsg {
	tb.Helper()
	m, err := wire.Decode([]byte(line))
	if err != nil {
		tb.Fatalf("output %s is not a valid JSON-RPC message: %v", line, err)
	}
	if m.Kind != wire.KindResponse && m.Kind != wire.KindNotification {
		tb.Fatalf("output %s is neither a response nor a notification", line)
	}
	if m.Kind == wire.KindResponse && m.HasResult() == m.HasError() {
		tb.Fatalf("output %s has both or neither of result and error", line)
	}
	var w outMsg
	if err := json.Unmarshal([]byte(line), &w); err != nil {
		tb.Fatalf("output %s: %v", line, err)
	}
	w.line = line
	return w
}

// reqLine builds a request line; id is an int or a string.
func reqLine(id any, method, params string) string {
	var idText string
	switch v := id.(type) {
	case string:
		b, _ := json.Marshal(v)
		idText = string(b)
	default:
		idText = fmt.Sprint(v)
	}
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, idText, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, idText, method, params)
}

func notifLine(method, params string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params)
}

func cancelLine(id any, reason string) string {
	idb, _ := json.Marshal(id)
	if reason == "" {
		return notifLine("notifications/cancelled", fmt.Sprintf(`{"requestId":%s}`, idb))
	}
	return notifLine("notifications/cancelled", fmt.Sprintf(`{"requestId":%s,"reason":%q}`, idb, reason))
}

// errorLine is the exact frame of an error response.
func errorLine(id string, code int, message, data string) string {
	if data != "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q,"data":%s}}`, id, code, message, data)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, message)
}

// serveString runs Serve over a fixed input and returns its output lines.
func serveString(tb testing.TB, rt *fakeRuntime, cfg Config, input string) ([]string, error) {
	tb.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	var out bytes.Buffer
	cw := &frameWriter{w: &out}
	err := Serve(context.Background(), rt, strings.NewReader(input), cw, cfg)
	cw.check(tb)
	s := out.String()
	if s == "" {
		return nil, err
	}
	if !strings.HasSuffix(s, "\n") {
		tb.Errorf("output does not end in LF: %q", s)
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n"), err
}
