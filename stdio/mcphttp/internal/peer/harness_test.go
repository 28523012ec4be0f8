package peer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// wait bounds every wait of these tests, so that a failure fails instead
// of hanging until go test's own timeout. It is not a delay.
const wait = 10 * time.Second

var errConnClosed = errors.New("test conn closed")

// testConn is the server's end of a Raw, scripted by the test: what Raw
// sends arrives on sent, what the test pushes is what Recv returns, and
// Close makes Recv (and Send) fail.
type testConn struct {
	sent    chan []byte
	recv    chan []byte
	recvErr chan error
	closed  chan struct{}
	once    sync.Once

	mu      sync.Mutex
	sendErr error
	hook    func(msg []byte) // runs first in Send when set, before sendErr is read
}

func newTestConn() *testConn {
	return &testConn{
		sent: make(chan []byte, 1024), recv: make(chan []byte), recvErr: make(chan error, 1),
		closed: make(chan struct{}),
	}
}

func (c *testConn) Send(msg []byte) error {
	c.mu.Lock()
	hook := c.hook
	c.mu.Unlock()
	if hook != nil {
		hook(msg)
	}
	c.mu.Lock()
	err := c.sendErr
	c.mu.Unlock()
	if err != nil {
		return err
	}
	select {
	case <-c.closed:
		return errConnClosed
	default:
	}
	select {
	case c.sent <- bytes.Clone(msg):
		return nil
	case <-c.closed:
		return errConnClosed
	}
}

func (c *testConn) Recv() ([]byte, error) {
	select {
	case m := <-c.recv:
		return m, nil
	case err := <-c.recvErr:
		return nil, err
	case <-c.closed:
		return nil, errConnClosed
	}
}

func (c *testConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *testConn) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

func (c *testConn) setSendErr(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sendErr = err
}

func (c *testConn) setHook(h func([]byte)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hook = h
}

// next is the next message Raw sent, decoded.
func (c *testConn) next(t *testing.T) wire.Message {
	t.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case b := <-c.sent:
		if bytes.HasSuffix(b, []byte("\n")) {
			t.Errorf("a raw message ends in a newline: %q", b)
		}
		m, err := wire.Decode(b)
		if err != nil {
			t.Fatalf("Raw sent %s: %v", b, err)
		}
		return m
	case <-timer.C:
		t.Fatal("Raw sent nothing")
		return wire.Message{}
	}
}

// expect is next, which must be a message of method.
func (c *testConn) expect(t *testing.T, method string) wire.Message {
	t.Helper()
	m := c.next(t)
	if m.Method != method {
		t.Fatalf("Raw sent %s %s %s, want %s", m.Kind, m.Method, m.ID, method)
	}
	return m
}

// none checks that nothing Raw sent is waiting.
func (c *testConn) none(t *testing.T) {
	t.Helper()
	select {
	case b := <-c.sent:
		t.Errorf("Raw sent %s, want nothing", b)
	default:
	}
}

// push hands Raw's reader a message of the server's.
func (c *testConn) push(t *testing.T, msg string) {
	t.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case c.recv <- []byte(msg):
	case <-timer.C:
		t.Fatalf("Raw did not read %s", msg)
	}
}

// logBuf collects a Raw's log.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *logBuf) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *logBuf) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// rig is a Raw on a testConn, with the notifications it routed to
// OnNotification.
type rig struct {
	l     *Raw
	c     *testConn
	log   *logBuf
	notes chan stdio.Notification
}

// newRig starts a Raw; cfg's OnNotification, when nil, is the rig's. At
// cleanup it closes the Raw and fails t unless its reader is done within
// the wait.
func newRig(t *testing.T, cfg stdio.ClientConfig, connectedAs string) *rig {
	t.Helper()
	r := &rig{c: newTestConn(), log: &logBuf{}, notes: make(chan stdio.Notification, 1024)}
	if cfg.OnNotification == nil {
		cfg.OnNotification = func(n stdio.Notification) { r.notes <- n }
	}
	log := slog.New(slog.NewTextHandler(r.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r.l = NewRaw(r.c, log, cfg, connectedAs)
	t.Cleanup(func() {
		r.l.Close()
		waitDone(t, r.l.Done(), "the Raw's reader")
	})
	return r
}

func waitDone(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Fatal(what + " is not done")
	}
}

// note is the next notification routed to OnNotification.
func (r *rig) note(t *testing.T) stdio.Notification {
	t.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case n := <-r.notes:
		return n
	case <-timer.C:
		t.Fatal("no notification reached OnNotification")
		return stdio.Notification{}
	}
}

// barrier returns once the reader routed every message pushed before: it
// pushes a notification and waits for it at OnNotification, failing t if
// another comes first.
func (r *rig) barrier(t *testing.T) {
	t.Helper()
	r.c.push(t, `{"jsonrpc":"2.0","method":"test/barrier"}`)
	if n := r.note(t); n.Method != "test/barrier" {
		t.Fatalf("OnNotification got %s %s before the barrier", n.Method, n.Params)
	}
}

// sync checks that Raw sent nothing more before a notification the test
// sends now (a send of the test's goroutine is ordered after the others
// it made).
func (r *rig) sync(t *testing.T) {
	t.Helper()
	if err := r.l.Notify(t.Context(), "test/sync", nil, false); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	if m := r.c.next(t); m.Method != "test/sync" {
		t.Fatalf("Raw sent %s %s %s %s%s, want nothing more", m.Kind, m.Method, m.ID, m.Result, m.Error)
	}
}

// call is a request in flight: its Inflight and a channel finished closes.
type call struct {
	f        *Inflight
	finished chan struct{}
}

func begin(l Link, method, params string, dirty bool, opts *stdio.CallOptions) call {
	c := call{f: NewInflight(), finished: make(chan struct{})}
	var p json.RawMessage
	if params != "" {
		p = json.RawMessage(params)
	}
	var once sync.Once
	l.Begin(context.Background(), c.f, method, p, dirty, opts, func() { once.Do(func() { close(c.finished) }) })
	return c
}

// outcome is the call's outcome; the call must then have finished.
func (c call) outcome(t *testing.T) Outcome {
	t.Helper()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case out := <-c.f.Out:
		waitDone(t, c.finished, "finished")
		return out
	case <-timer.C:
		t.Fatal("the call has no outcome")
		return Outcome{}
	}
}

// pending checks that the call has no outcome yet.
func (c call) pending(t *testing.T) {
	t.Helper()
	select {
	case out := <-c.f.Out:
		t.Fatalf("the call ended early: %+v", out)
	default:
	}
}

func result(id, res string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":` + res + `}`
}

// clientInfo is the connectedAs of the rigs that listen.
const clientInfo = `{"name":"mcphttp-test","version":"1"}`

func subID(n int) string {
	return `"_meta":{"` + protocol.MetaSubscriptionID + `":` + strconv.Itoa(n) + `}`
}

func ackMsg(n int, notifications string) string {
	return `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":` +
		notifications + `,` + subID(n) + `}}`
}

func eventMsg(n int, uri string) string {
	return `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"` + uri + `",` + subID(n) + `}}`
}

// member is the decoded member key of the JSON object raw.
func member(t *testing.T, raw json.RawMessage, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return m[key]
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// waitTimer fires after the wait.
func waitTimer(t *testing.T) <-chan time.Time {
	timer := time.NewTimer(wait)
	t.Cleanup(func() { timer.Stop() })
	return timer.C
}
