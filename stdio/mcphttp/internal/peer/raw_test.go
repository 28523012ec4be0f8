package peer

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// asError is err as a *jsonrpc.Error, failing t when it is not one.
func asError(t *testing.T, err error) *jsonrpc.Error {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *jsonrpc.Error", err, err)
	}
	return e
}

// TestRawCall: a request goes out under Raw's own ids, compacted when
// dirty, and the response's result (compacted) is its outcome.
func TestRawCall(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, "")
	c1 := begin(r.l, "tools/call", `{ "name" : "x" }`, true, nil)
	m := r.c.next(t)
	if m.Kind != wire.KindRequest || m.Method != "tools/call" || string(m.ID) != "1" || string(m.Params) != `{"name":"x"}` {
		t.Fatalf("sent %s %s id %s params %s, want request tools/call id 1 params {\"name\":\"x\"}", m.Kind, m.Method, m.ID, m.Params)
	}
	c2 := begin(r.l, "tools/list", "", false, nil)
	m = r.c.next(t)
	if m.Method != "tools/list" || string(m.ID) != "2" || m.Params != nil {
		t.Fatalf("sent %s id %s params %s, want tools/list id 2 without params", m.Method, m.ID, m.Params)
	}
	c1.pending(t)
	r.c.push(t, `{"jsonrpc":"2.0","id":2,"result":{ "tools" : [] }}`)
	if out := c2.outcome(t); string(out.Result) != `{"tools":[]}` || out.Err != nil || out.Cancelled {
		t.Errorf("second call: %+v, want result {\"tools\":[]}", out)
	}
	c1.pending(t)
	r.c.push(t, result("1", `{"ok":true}`))
	if out := c1.outcome(t); string(out.Result) != `{"ok":true}` || out.Err != nil || out.Cancelled {
		t.Errorf("first call: %+v, want result {\"ok\":true}", out)
	}
	r.sync(t) // nothing else was sent: no cancellation
}

// TestRawCallError: an error response is the outcome's *jsonrpc.Error, its
// code, message and data as sent.
func TestRawCallError(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, "")
	c := begin(r.l, "tools/call", `{}`, false, nil)
	m := r.c.next(t)
	r.c.push(t, string(wire.AppendError(nil, m.ID, &wire.Error{Code: -32602, Message: "bad", Data: json.RawMessage(`{"x":1}`)})))
	out := c.outcome(t)
	e := asError(t, out.Err)
	if e.Code != -32602 || e.Message != "bad" || string(e.Data) != `{"x":1}` || out.Result != nil || out.Cancelled {
		t.Errorf("outcome %+v (error %+v), want -32602 bad data {\"x\":1}", out, e)
	}
}

// TestRawInvalidResponse: a response with both result and error, or an
// error that is not a JSON-RPC error object, fails its call with -32000
// "Invalid JSON-RPC response".
func TestRawInvalidResponse(t *testing.T) {
	for name, resp := range map[string]string{
		"both":       `{"jsonrpc":"2.0","id":ID,"result":{},"error":{"code":1,"message":"m"}}`,
		"string":     `{"jsonrpc":"2.0","id":ID,"error":"broken"}`,
		"no message": `{"jsonrpc":"2.0","id":ID,"error":{"code":1}}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, stdio.ClientConfig{}, "")
			c := begin(r.l, "ping", "", false, nil)
			m := r.c.next(t)
			r.c.push(t, replaceID(resp, string(m.ID)))
			e := asError(t, c.outcome(t).Err)
			if e.Code != jsonrpc.CodeConnectionClosed || e.Message != "Invalid JSON-RPC response" {
				t.Errorf("error %d %q, want -32000 Invalid JSON-RPC response", e.Code, e.Message)
			}
			if r.l.Failed() != nil {
				t.Errorf("an invalid response ended the link: %v", r.l.Failed())
			}
		})
	}
}

func replaceID(msg, id string) string {
	for i := 0; i+2 <= len(msg); i++ {
		if msg[i:i+2] == "ID" {
			return msg[:i] + id + msg[i+2:]
		}
	}
	return msg
}

// TestRawOwnID: a call goes out under the client's own id when no call or
// listen has it, else under Raw's next free id; 1 and "1" are different
// ids, and the response reaches the call that sent its id.
func TestRawOwnID(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, "")
	ids := []string{`"a"`, `"a"`, `2`, ``, `"1"`, `null`}
	want := []string{`"a"`, `1`, `2`, `3`, `"1"`, `4`}
	calls := make([]call, len(ids))
	for i, id := range ids {
		var opts *stdio.CallOptions
		if id != "" {
			opts = &stdio.CallOptions{ID: json.RawMessage(id)}
		}
		calls[i] = begin(r.l, "m"+strconv.Itoa(i), "", false, opts)
		if m := r.c.next(t); string(m.ID) != want[i] || m.Method != "m"+strconv.Itoa(i) {
			t.Fatalf("call %d (own id %q): sent %s under id %s, want m%d under %s", i, id, m.Method, m.ID, i, want[i])
		}
	}
	for i := len(want) - 1; i >= 0; i-- {
		r.c.push(t, result(want[i], strconv.Itoa(i)))
		if out := calls[i].outcome(t); string(out.Result) != strconv.Itoa(i) {
			t.Errorf("call %d (id %s) got %+v, want result %d", i, want[i], out, i)
		}
	}
	// Its id free again, "a" is the client's again.
	c := begin(r.l, "again", "", false, &stdio.CallOptions{ID: json.RawMessage(`"a"`)})
	if m := r.c.next(t); string(m.ID) != `"a"` {
		t.Errorf("sent under %s once \"a\" was free, want \"a\"", m.ID)
	}
	c.pending(t)
}

// TestRawCancel: a call abandoned after it was sent tells the server, with
// the reason given (or Raw's own for a plain cancel or a deadline), and
// ends cancelled with -32001; the cause stays reachable.
func TestRawCancel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cause  error
		params string
	}{
		{"reason", stdio.CancelReason{Reason: "user gave up", Given: true}, `{"requestId":1,"reason":"user gave up"}`},
		{"no reason", stdio.CancelReason{}, `{"requestId":1}`},
		{"nil", nil, `{"requestId":1,"reason":"Request cancelled"}`},
		{"deadline", context.DeadlineExceeded, `{"requestId":1,"reason":"Request timed out"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, stdio.ClientConfig{}, "")
			c := begin(r.l, "tools/call", `{}`, false, nil)
			r.c.expect(t, "tools/call")
			c.f.Cancel(tc.cause)
			m := r.c.expect(t, "notifications/cancelled")
			if m.Kind != wire.KindNotification || string(m.Params) != tc.params {
				t.Errorf("cancellation %s params %s, want %s", m.Kind, m.Params, tc.params)
			}
			out := c.outcome(t)
			e := asError(t, out.Err)
			if !out.Cancelled || e.Code != jsonrpc.CodeRequestTimeout || e.Message != "Request cancelled" || out.Result != nil {
				t.Errorf("outcome %+v, want cancelled with -32001 Request cancelled", out)
			}
			want := tc.cause
			if want == nil {
				want = context.Canceled
			}
			if !errors.Is(out.Err, want) {
				t.Errorf("outcome error %v does not wrap %v", out.Err, want)
			}
			c.f.Cancel(nil) // again: nothing more
			// The server's late response is dropped.
			r.c.push(t, result("1", `{}`))
			r.barrier(t)
			if !contains(r.log.String(), "dropped a response to an unknown or abandoned id") {
				t.Errorf("the late response was not logged as dropped; log:\n%s", r.log)
			}
			r.sync(t)
		})
	}
}

// TestRawCancelOwnID: the cancellation names the id the call went out
// under, the client's own.
func TestRawCancelOwnID(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, "")
	c := begin(r.l, "tools/call", "", false, &stdio.CallOptions{ID: json.RawMessage(`"x-1"`)})
	r.c.expect(t, "tools/call")
	c.f.Cancel(stdio.CancelReason{Reason: "bye", Given: true})
	if m := r.c.expect(t, "notifications/cancelled"); string(m.Params) != `{"requestId":"x-1","reason":"bye"}` {
		t.Errorf("cancellation params %s", m.Params)
	}
	if !c.outcome(t).Cancelled {
		t.Error("not cancelled")
	}
}

// TestRawCancelEarly: a call cancelled before Begin is never sent and ends
// cancelled at once.
func TestRawCancelEarly(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, "")
	c := call{f: NewInflight(), finished: make(chan struct{})}
	c.f.Cancel(stdio.CancelReason{Reason: "early", Given: true})
	c.f.Cancel(errors.New("later")) // the first cause stands
	r.l.Begin(t.Context(), c.f, "tools/call", nil, false, nil, func() { close(c.finished) })
	out := c.outcome(t)
	if !out.Cancelled || !errors.Is(out.Err, stdio.CancelReason{Reason: "early", Given: true}) {
		t.Errorf("outcome %+v, want cancelled with the first cause", out)
	}
	r.sync(t) // neither the request nor a cancellation went out
}

// TestRawCancelAfterOutcome: a cancel that comes after the response does
// nothing.
func TestRawCancelAfterOutcome(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, "")
	c := begin(r.l, "ping", "", false, nil)
	r.c.expect(t, "ping")
	r.c.push(t, result("1", `{}`))
	if out := c.outcome(t); out.Cancelled || out.Err != nil {
		t.Fatalf("outcome %+v", out)
	}
	c.f.Cancel(nil)
	r.sync(t)
}

// TestRawNotify: a notification goes out as given, compacted when dirty.
func TestRawNotify(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, "")
	if err := r.l.Notify(t.Context(), "notifications/roots/list_changed", json.RawMessage(`{ "a" : 1 }`), true); err != nil {
		t.Fatal(err)
	}
	if m := r.c.next(t); m.Kind != wire.KindNotification || m.Method != "notifications/roots/list_changed" || string(m.Params) != `{"a":1}` {
		t.Errorf("sent %s %s %s", m.Kind, m.Method, m.Params)
	}
	if err := r.l.Notify(t.Context(), "notifications/initialized", nil, true); err != nil {
		t.Fatal(err)
	}
	if m := r.c.next(t); m.Method != "notifications/initialized" || m.Params != nil {
		t.Errorf("sent %s %s", m.Method, m.Params)
	}
}

// TestRawSendFails: a Send that fails ends the link with -32000 (the
// failure its cause): the call that sent fails with it, and so does
// everything after.
func TestRawSendFails(t *testing.T) {
	broken := errors.New("broken pipe")
	t.Run("begin", func(t *testing.T) {
		r := newRig(t, stdio.ClientConfig{}, "")
		other := begin(r.l, "other", "", false, nil)
		r.c.expect(t, "other")
		r.c.setSendErr(broken)
		c := begin(r.l, "tools/call", "", false, nil)
		for _, out := range []Outcome{c.outcome(t), other.outcome(t)} {
			e := asError(t, out.Err)
			if e.Code != jsonrpc.CodeConnectionClosed || e.Message != "The stdio server connection failed" || !errors.Is(out.Err, broken) || out.Cancelled {
				t.Errorf("outcome %+v, want -32000 connection failed caused by %v", out, broken)
			}
		}
		if !errors.Is(r.l.Failed(), broken) {
			t.Errorf("Failed() = %v", r.l.Failed())
		}
		late := begin(r.l, "late", "", false, nil)
		if out := late.outcome(t); !errors.Is(out.Err, broken) {
			t.Errorf("a call on the failed link: %+v", out)
		}
		if err := r.l.Notify(t.Context(), "n", nil, false); !errors.Is(err, broken) {
			t.Errorf("Notify on the failed link: %v", err)
		}
		// Cancelling the call the link failed sends nothing.
		other.f.Cancel(nil)
	})
	t.Run("notify", func(t *testing.T) {
		r := newRig(t, stdio.ClientConfig{}, "")
		r.c.setSendErr(broken)
		err := r.l.Notify(t.Context(), "n", nil, false)
		if e := asError(t, err); e.Code != jsonrpc.CodeConnectionClosed || !errors.Is(err, broken) {
			t.Errorf("Notify: %v", err)
		}
		if !errors.Is(r.l.Failed(), broken) {
			t.Errorf("Failed() = %v", r.l.Failed())
		}
	})
}

// TestRawClose: Close fails the calls in flight with -32000 "Connection
// closed", tells the server about each, closes the Conn; Done closes and
// Failed says so; a second Close does nothing.
func TestRawClose(t *testing.T) {
	started, ended := make(chan struct{}), make(chan struct{})
	r := newRig(t, stdio.ClientConfig{OnServerRequest: func(ctx context.Context, req stdio.ServerRequest) (json.RawMessage, error) {
		close(started)
		<-ctx.Done()
		close(ended)
		return nil, ctx.Err()
	}}, "")
	c1 := begin(r.l, "a", "", false, nil)
	c2 := begin(r.l, "b", "", false, &stdio.CallOptions{ID: json.RawMessage(`"own"`)})
	r.c.expect(t, "a")
	r.c.expect(t, "b")
	r.c.push(t, `{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage"}`)
	waitDone(t, started, "the server request's handler")
	if r.l.Failed() != nil {
		t.Fatalf("Failed() = %v on an open link", r.l.Failed())
	}
	r.l.Close()
	waitDone(t, ended, "the server request's handler") // its ctx ended
	for _, c := range []call{c1, c2} {
		out := c.outcome(t)
		if e := asError(t, out.Err); e.Code != jsonrpc.CodeConnectionClosed || e.Message != "Connection closed" || out.Cancelled {
			t.Errorf("outcome %+v, want -32000 Connection closed", out)
		}
	}
	got := map[string]bool{}
	for range 2 {
		got[string(r.c.expect(t, "notifications/cancelled").Params)] = true
	}
	for _, want := range []string{`{"requestId":1,"reason":"Connection closed"}`, `{"requestId":"own","reason":"Connection closed"}`} {
		if !got[want] {
			t.Errorf("no cancellation %s; got %v", want, got)
		}
	}
	waitDone(t, r.l.Done(), "the reader")
	if !r.c.isClosed() {
		t.Error("the Conn is open")
	}
	if e := asError(t, r.l.Failed()); e.Message != "Connection closed" {
		t.Errorf("Failed() = %v", e)
	}
	r.l.Close()
	r.c.none(t)
	if late := begin(r.l, "late", "", false, nil).outcome(t); asError(t, late.Err).Message != "Connection closed" {
		t.Errorf("a call after Close: %+v", late)
	}
	if err := r.l.Notify(t.Context(), "n", nil, false); err == nil {
		t.Error("Notify after Close succeeded")
	}
	if _, err := r.l.Listen(t.Context(), json.RawMessage(`{}`)); err == nil {
		t.Error("Listen after Close succeeded")
	}
}

// TestRawCloseGrace: a Send that does not return bounds Close's notices by
// rawCloseGrace; Close then logs and closes the Conn anyway.
func TestRawCloseGrace(t *testing.T) {
	t.Parallel()
	r := newRig(t, stdio.ClientConfig{}, "")
	c := begin(r.l, "a", "", false, nil)
	r.c.expect(t, "a")
	r.c.setHook(func([]byte) { <-r.c.closed }) // the server stopped reading
	r.l.Close()
	if out := c.outcome(t); out.Err == nil {
		t.Errorf("outcome %+v", out)
	}
	if !r.c.isClosed() {
		t.Error("the Conn is open")
	}
	if !contains(r.log.String(), "could not tell the server about abandoned requests") {
		t.Errorf("log:\n%s", r.log)
	}
}

// TestRawRecvFails: the Conn's end fails everything as Close does, with
// "The stdio server exited" at EOF, else "connection failed"; the reader
// closes the Conn.
func TestRawRecvFails(t *testing.T) {
	for _, tc := range []struct {
		err     error
		message string
	}{
		{io.EOF, "The stdio server exited"},
		{errors.New("reset"), "The stdio server connection failed"},
	} {
		t.Run(tc.message, func(t *testing.T) {
			r := newRig(t, stdio.ClientConfig{}, "")
			c := begin(r.l, "a", "", false, nil)
			r.c.expect(t, "a")
			r.c.recvErr <- tc.err
			waitDone(t, r.l.Done(), "the reader")
			out := c.outcome(t)
			if e := asError(t, out.Err); e.Code != jsonrpc.CodeConnectionClosed || e.Message != tc.message || !errors.Is(out.Err, tc.err) {
				t.Errorf("outcome %+v, want -32000 %s caused by %v", out, tc.message, tc.err)
			}
			if e := asError(t, r.l.Failed()); e.Message != tc.message {
				t.Errorf("Failed() = %v", e)
			}
			if !r.c.isClosed() {
				t.Error("the Conn is open")
			}
		})
	}
}

// TestRawSkips: a message that is not JSON-RPC is logged and skipped, a
// response to no call is dropped, an error with a null id is logged; the
// link carries on.
func TestRawSkips(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, "")
	c := begin(r.l, "a", "", false, nil)
	r.c.expect(t, "a")
	r.c.push(t, `{"jsonrpc":"2.0","id":1,`)               // not JSON
	r.c.push(t, `[{"jsonrpc":"2.0","id":1,"result":{}}]`) // a batch
	r.c.push(t, result("7", `{}`))
	r.c.push(t, result(`"1"`, `{}`)) // not 1
	r.c.push(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	r.barrier(t)
	c.pending(t)
	log := r.log.String()
	for _, want := range []string{
		"skipped a message that is not JSON-RPC",
		"dropped a response to an unknown or abandoned id",
		"the server could not read a request and did not say which",
	} {
		if !contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	r.c.push(t, result("1", `{}`))
	if out := c.outcome(t); out.Err != nil {
		t.Errorf("outcome %+v", out)
	}
	if r.l.Failed() != nil {
		t.Errorf("Failed() = %v", r.l.Failed())
	}
}

// TestRawNotifications: the server's notifications reach OnNotification,
// params compacted; without OnNotification they are dropped.
func TestRawNotifications(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, "")
	r.c.push(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{ "level" : "info" }}`)
	if n := r.note(t); n.Method != "notifications/message" || string(n.Params) != `{"level":"info"}` {
		t.Errorf("notification %s %s", n.Method, n.Params)
	}
	// A cancellation of nothing the link knows is a notification too.
	r.c.push(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"zz"}}`)
	if n := r.note(t); n.Method != "notifications/cancelled" || string(n.Params) != `{"requestId":"zz"}` {
		t.Errorf("notification %s %s", n.Method, n.Params)
	}
	r.c.push(t, `{"jsonrpc":"2.0","method":"notifications/cancelled"}`)
	if n := r.note(t); n.Method != "notifications/cancelled" || n.Params != nil {
		t.Errorf("notification %s %s", n.Method, n.Params)
	}

	quiet := NewRaw(newTestConn(), r.l.log, stdio.ClientConfig{}, "")
	defer func() { quiet.Close(); waitDone(t, quiet.Done(), "the reader") }()
	c := quiet.conn.(*testConn)
	c.push(t, `{"jsonrpc":"2.0","method":"notifications/message"}`)
	c.push(t, `{"jsonrpc":"2.0","method":"notifications/message"}`) // the first was routed
}

// TestRawPid: a raw link has no process.
func TestRawPid(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, "")
	if pid := r.l.Pid(); pid != 0 {
		t.Errorf("Pid() = %d", pid)
	}
	if err := r.l.Signal(syscall.SIGTERM); !errors.Is(err, errProcessDone) {
		t.Errorf("Signal: %v", err)
	}
}

// TestInflightCancelNil: a nil cause is context.Canceled.
func TestInflightCancelNil(t *testing.T) {
	f := NewInflight()
	f.Cancel(nil)
	var got error
	if early := f.arm(func(cause error) { got = cause }); !errors.Is(early, context.Canceled) {
		t.Errorf("early cause %v", early)
	}
	f.Cancel(io.EOF)
	if got != io.EOF {
		t.Errorf("an armed cancel got %v", got)
	}
}

// TestRawCancelWhileSending: a cancel that comes while Begin's Send of the
// request is under way (a Send may wait while the server is busy) tells
// the server only once the request went out, never before it: a
// cancellation of an id the server has not seen is ignored, and the
// request would then run for nothing.
func TestRawCancelWhileSending(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, "")
	c := call{f: NewInflight(), finished: make(chan struct{})}
	var once sync.Once
	r.c.setHook(func(msg []byte) {
		if m, _ := wire.Decode(msg); m.Method == "tools/call" {
			once.Do(func() { c.f.Cancel(stdio.CancelReason{Reason: "gone", Given: true}) })
		}
	})
	r.l.Begin(t.Context(), c.f, "tools/call", nil, false, nil, func() { close(c.finished) })
	if !c.outcome(t).Cancelled {
		t.Error("not cancelled")
	}
	r.c.expect(t, "tools/call")
	if m := r.c.expect(t, "notifications/cancelled"); string(m.Params) != `{"requestId":1,"reason":"gone"}` {
		t.Errorf("cancellation %s", m.Params)
	}
	r.sync(t)
}

// TestRawCancelWhileSendFails: a cancel held while the request's Send
// fails is dropped with the link.
func TestRawCancelWhileSendFails(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, "")
	c := call{f: NewInflight(), finished: make(chan struct{})}
	broken := errors.New("broken")
	r.c.setHook(func(msg []byte) {
		if m, _ := wire.Decode(msg); m.Method == "tools/call" {
			c.f.Cancel(nil)
			r.c.setSendErr(broken)
		}
	})
	r.l.Begin(t.Context(), c.f, "tools/call", nil, false, nil, func() { close(c.finished) })
	if !c.outcome(t).Cancelled {
		t.Error("not cancelled")
	}
	if !errors.Is(r.l.Failed(), broken) {
		t.Errorf("Failed() = %v", r.l.Failed())
	}
	r.c.none(t)
}
