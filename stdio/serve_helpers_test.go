package stdio

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

	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// waitLimit bounds every wait of a test for an event. It is generous: the
// machine may be loaded, and under testing/synctest it only fires on a
// deadlock.
const waitLimit = 30 * time.Second

// testRuntime is the Runtime (and Session) of the server tests. Requests are
// dispatched by method name to small fixtures; tests override handle,
// listen or notify where they need to.
type testRuntime struct {
	handle func(ctx context.Context, req *Request) (json.RawMessage, error)
	listen func(ctx context.Context, req *Request) (Source, error)
	notify func(ctx context.Context, method string, params json.RawMessage)
	info   json.RawMessage

	events chan handlerEvent // what handlers did, for tests to wait on

	mu       sync.Mutex
	gates    map[string]chan struct{}
	peer     Peer
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

func newRuntime() *testRuntime {
	return &testRuntime{
		events: make(chan handlerEvent, 10000),
		gates:  make(map[string]chan struct{}),
		info:   json.RawMessage(`{"name":"test-server","version":"1.0.0"}`),
	}
}

func (rt *testRuntime) NewSession(p Peer) Session {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.peer = p
	rt.sessions++
	return rt
}

func (rt *testRuntime) Close() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.closed++
}

func (rt *testRuntime) ServerInfo() json.RawMessage { return rt.info }

func (rt *testRuntime) Notify(ctx context.Context, method string, params json.RawMessage) {
	if rt.notify != nil {
		rt.notify(ctx, method, params)
	}
}

func (rt *testRuntime) Listen(ctx context.Context, req *Request) (Source, error) {
	if rt.listen != nil {
		return rt.listen(ctx, req)
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found")
}

// gate returns the channel that "block" and "ignore" requests naming key
// wait for; open releases them.
func (rt *testRuntime) gate(key string) chan struct{} {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	g, ok := rt.gates[key]
	if !ok {
		g = make(chan struct{})
		rt.gates[key] = g
	}
	return g
}

func (rt *testRuntime) open(key string) { close(rt.gate(key)) }

// waitEvent waits for the next handler event with the given what.
func (rt *testRuntime) waitEvent(tb testing.TB, what string) handlerEvent {
	tb.Helper()
	return rt.waitFor(tb, what, func(handlerEvent) bool { return true })
}

// waitFor waits for the next handler event with the given what that ok
// accepts, skipping others.
func (rt *testRuntime) waitFor(tb testing.TB, what string, ok func(handlerEvent) bool) handlerEvent {
	tb.Helper()
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	for {
		select {
		case ev := <-rt.events:
			if ev.what == what && ok(ev) {
				return ev
			}
		case <-timer.C:
			tb.Fatalf("no matching handler %q event within %v", what, waitLimit)
		}
	}
}

// drainEvents returns the events not yet consumed.
func (rt *testRuntime) drainEvents() []handlerEvent {
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
func (rt *testRuntime) event(ev handlerEvent) {
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

func (rt *testRuntime) Handle(ctx context.Context, req *Request) (json.RawMessage, error) {
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
func (rt *testRuntime) fixture(ctx context.Context, req *Request) (json.RawMessage, error) {
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

// testSource is a Source fed by the test through events; closing events
// ends it normally.
type testSource struct {
	accepted json.RawMessage
	events   chan testEvent
	pulls    atomic.Int32
	onPull   func(n int32) // optional, called at each pull
	closed   chan error    // receives the Close reason; capacity 1
	closes   atomic.Int32
}

type testEvent struct {
	method string
	params json.RawMessage
	err    error
}

func newSource(accepted string) *testSource {
	return &testSource{
		accepted: json.RawMessage(accepted),
		events:   make(chan testEvent),
		closed:   make(chan error, 1),
	}
}

func (s *testSource) Accepted() json.RawMessage { return s.accepted }

func (s *testSource) Next(ctx context.Context) (string, json.RawMessage, error) {
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

func (s *testSource) Close(reason error) {
	if s.closes.Add(1) == 1 {
		s.closed <- reason
	}
}

// waitClosed returns the reason of the source's Close.
func (s *testSource) waitClosed(tb testing.TB) error {
	tb.Helper()
	select {
	case err := <-s.closed:
		s.closed <- err // keep it for later checks
		return err
	case <-time.After(waitLimit):
		tb.Fatalf("source not closed within %v", waitLimit)
		return nil
	}
}

// checkWriter sits between Serve and the output pipe. It checks that every
// Write is exactly one frame (one LF, at the end) and that no two Writes
// overlap, and it lets tests block or fail chosen writes.
type checkWriter struct {
	w        io.Writer
	inflight atomic.Int32
	writes   atomic.Int64
	hook     atomic.Pointer[func(frame []byte) error]

	mu       sync.Mutex
	problems []string
}

func (cw *checkWriter) setHook(f func(frame []byte) error) { cw.hook.Store(&f) }

func (cw *checkWriter) Write(p []byte) (int, error) {
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

func (cw *checkWriter) problem(format string, args ...any) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	cw.problems = append(cw.problems, fmt.Sprintf(format, args...))
}

func (cw *checkWriter) check(tb testing.TB) {
	tb.Helper()
	cw.mu.Lock()
	defer cw.mu.Unlock()
	for _, p := range cw.problems {
		tb.Error(p)
	}
}

// syncBuffer is a bytes.Buffer for logs written from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// harness runs Serve over io.Pipe pairs: the test writes input lines and
// reads output lines.
type harness struct {
	tb     testing.TB
	rt     *testRuntime
	out    *checkWriter
	logs   *syncBuffer
	in     *io.PipeWriter
	inR    *io.PipeReader
	lines  chan string
	errc   chan error
	cancel context.CancelFunc

	err      error
	returned bool
}

func startServe(tb testing.TB, rt *testRuntime, cfg ServerConfig) *harness {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &harness{
		tb: tb, rt: rt, in: inW, inR: inR, cancel: cancel,
		out:   &checkWriter{w: outW},
		logs:  &syncBuffer{},
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
		err := Serve(ctx, rt, inR, h.out, cfg)
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
func (h *harness) send(s string) {
	h.tb.Helper()
	if _, err := io.WriteString(h.in, s); err != nil {
		h.tb.Fatalf("writing input: %v", err)
	}
}

// sendLine writes one line and its LF.
func (h *harness) sendLine(line string) { h.tb.Helper(); h.send(line + "\n") }

// next returns the next output line.
func (h *harness) next() string {
	h.tb.Helper()
	select {
	case line, ok := <-h.lines:
		if !ok {
			h.tb.Fatalf("output ended; Serve returned %v", h.wait())
		}
		return line
	case <-time.After(waitLimit):
		h.tb.Fatalf("no output line within %v", waitLimit)
	}
	return ""
}

// nextMsg returns the next output line, decoded and checked.
func (h *harness) nextMsg() wire {
	h.tb.Helper()
	return parse(h.tb, h.next())
}

// eof closes the input.
func (h *harness) eof() { h.in.Close() }

// wait returns Serve's result, waiting for it.
func (h *harness) wait() error {
	if !h.returned {
		select {
		case h.err = <-h.errc:
			h.returned = true
		case <-time.After(waitLimit):
			h.tb.Fatalf("Serve did not return within %v", waitLimit)
		}
	}
	return h.err
}

// rest waits for Serve to return and returns the lines not yet read.
func (h *harness) rest() []string {
	h.tb.Helper()
	h.wait()
	var out []string
	for line := range h.lines {
		out = append(out, line)
	}
	return out
}

// quiet checks that no output line is waiting.
func (h *harness) quiet() {
	h.tb.Helper()
	select {
	case line, ok := <-h.lines:
		if ok {
			h.tb.Fatalf("unexpected output %s", line)
		}
	default:
	}
}

// wire is one output message.
type wire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *wireError      `json:"error"`
	line    string
}

type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// parse decodes an output line and checks that it is one valid JSON-RPC
// response or notification.
func parse(tb testing.TB, line string) wire {
	tb.Helper()
	m, err := jsonrpc.Decode([]byte(line))
	if err != nil {
		tb.Fatalf("output %s is not a valid JSON-RPC message: %v", line, err)
	}
	if m.Kind != jsonrpc.KindResponse && m.Kind != jsonrpc.KindNotification {
		tb.Fatalf("output %s is neither a response nor a notification", line)
	}
	if m.Kind == jsonrpc.KindResponse && m.HasResult() == m.HasError() {
		tb.Fatalf("output %s has both or neither of result and error", line)
	}
	var w wire
	if err := json.Unmarshal([]byte(line), &w); err != nil {
		tb.Fatalf("output %s: %v", line, err)
	}
	w.line = line
	return w
}

// req builds a request line; id is an int or a string.
func req(id any, method, params string) string {
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

func notif(method, params string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params)
}

func cancelLine(id any, reason string) string {
	idb, _ := json.Marshal(id)
	if reason == "" {
		return notif("notifications/cancelled", fmt.Sprintf(`{"requestId":%s}`, idb))
	}
	return notif("notifications/cancelled", fmt.Sprintf(`{"requestId":%s,"reason":%q}`, idb, reason))
}

// errorLine is the exact frame of an error response.
func errorLine(id string, code int, message, data string) string {
	if data != "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q,"data":%s}}`, id, code, message, data)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, message)
}

// serveString runs Serve over a fixed input and returns its output lines.
func serveString(tb testing.TB, rt *testRuntime, cfg ServerConfig, input string) ([]string, error) {
	tb.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	var out bytes.Buffer
	cw := &checkWriter{w: &out}
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
