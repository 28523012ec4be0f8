package fanout

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// TestNotificationsByPrincipal: on a secure relay a log message or
// untracked progress reaches only the sinks of the principal whose calls
// are in flight, and no one when that cannot be told; list changes and
// resource updates reach every sink. Without authentication every sink
// gets everything.
func TestNotificationsByPrincipal(t *testing.T) {
	r := NewRelay("s", nil, wait, true, slog.New(slog.DiscardHandler))
	alice, bob := &sinkOf{who: "apikey:alice"}, &sinkOf{who: "apikey:bob"}
	r.AddSink(alice)
	r.AddSink(bob)
	note := func(method string) {
		r.onNotification(stdio.Notification{Method: method, Params: json.RawMessage(`{}`)})
	}
	check := func(what string, wantAlice, wantBob []string) {
		t.Helper()
		if !slices.Equal(alice.got, wantAlice) || !slices.Equal(bob.got, wantBob) {
			t.Errorf("%s: alice got %v, bob %v; want %v and %v", what, alice.got, bob.got, wantAlice, wantBob)
		}
		alice.got, bob.got = nil, nil
	}

	note("notifications/tools/list_changed")
	note("notifications/resources/updated")
	both := []string{"notifications/tools/list_changed", "notifications/resources/updated"}
	check("the server's own state", both, both)

	note("notifications/message")
	check("a log with no call in flight", nil, nil)

	leaveAlice := r.Enter(as("alice"))
	note("notifications/message")
	note("notifications/progress")
	check("alice's call in flight", []string{"notifications/message", "notifications/progress"}, nil)

	leaveBob := r.Enter(as("bob"))
	note("notifications/message")
	check("calls of both in flight", nil, nil)
	if who, ok := r.InFlight(); !ok || len(who) != 2 {
		t.Errorf("InFlight = %v, %v; want both principals", who, ok)
	}

	leaveAlice()
	leaveAlice() // idempotent: bob's call is still counted
	note("notifications/message")
	check("bob's call in flight", nil, []string{"notifications/message"})
	leaveBob()
	if who, ok := r.InFlight(); !ok || len(who) != 0 {
		t.Errorf("InFlight with nothing in flight = %v, %v", who, ok)
	}

	r.RemoveSink(bob)
	note("notifications/prompts/list_changed")
	check("after bob's sink left", []string{"notifications/prompts/list_changed"}, nil)

	open := NewRelay("s", nil, wait, false, slog.New(slog.DiscardHandler))
	open.AddSink(alice)
	open.AddSink(bob)
	r = open
	note("notifications/message")
	check("without authentication", []string{"notifications/message"}, []string{"notifications/message"})
	if _, ok := open.InFlight(); ok {
		t.Error("InFlight on a relay without authentication: ok, want not")
	}
}

// TestLoad: a child's load is its calls in flight and its attached
// streams and sinks.
func TestLoad(t *testing.T) {
	r := NewRelay("s", nil, wait, false, slog.New(slog.DiscardHandler))
	if n := r.Load(); n != 0 {
		t.Fatalf("Load of a new relay = %d", n)
	}
	leave := r.Enter(context.Background())
	g := r.OpenStream(context.Background(), true, false, nil) // a call stream: a call and a stream
	s := &sinkOf{}
	r.AddSink(s)
	tun := &fakeTunnel{takes: true}
	r.AddTunnel(tun)
	if n := r.Load(); n != 5 {
		t.Errorf("Load = %d, want 5 (two calls, a stream, a sink, a tunnel)", n)
	}
	leave()
	g.Close()
	g.Close() // idempotent
	r.RemoveSink(s)
	r.RemoveTunnel(tun)
	if n := r.Load(); n != 0 {
		t.Errorf("Load after everything left = %d", n)
	}
}

// fakeTunnel is a Tunnel that answers what it is asked with answer.
type fakeTunnel struct {
	who                       string
	takes, asking, crossModem bool
	answer                    json.RawMessage
	err                       error

	mu    sync.Mutex
	asked []string // "id method"
	notes []string
}

func (f *fakeTunnel) Principal() string { return f.who }
func (f *fakeTunnel) Notify(n stdio.Notification) {
	f.mu.Lock()
	f.notes = append(f.notes, n.Method)
	f.mu.Unlock()
}
func (f *fakeTunnel) TakesRequests() bool { return f.takes }
func (f *fakeTunnel) Asking() bool        { return f.asking }
func (f *fakeTunnel) CrossModern() bool   { return f.crossModem }
func (f *fakeTunnel) Ask(_ context.Context, id string, req stdio.ServerRequest, timeout time.Duration) (json.RawMessage, error) {
	f.mu.Lock()
	f.asked = append(f.asked, id+" "+req.Method)
	f.mu.Unlock()
	return f.answer, f.err
}

func (f *fakeTunnel) askedOnce(t *testing.T, method string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.asked) != 1 || !strings.HasSuffix(f.asked[0], " "+method) || !strings.HasPrefix(f.asked[0], "sr-") {
		t.Errorf("tunnel %q was asked %v, want %s once under a minted id", f.who, f.asked, method)
	}
	f.asked = nil
}

// ask has the child send a request and returns the answer it got.
func ask(t *testing.T, p *peer, id, method string) msg {
	t.Helper()
	p.write(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`","params":{"q":1}}`)
	m := p.next(t)
	if string(m.ID) != id || m.Method != "" {
		t.Fatalf("the child got %s, want the answer to its request %s", m, id)
	}
	return m
}

// TestServerRequestsToTunnels: a legacy child's request goes to the most
// recently opened tunnel that takes requests, before that to a 2026
// client's tunnel with a call that may ask, never to a 2026 client's
// tunnel otherwise; its answer, or its error, goes back to the child.
func TestServerRequestsToTunnels(t *testing.T) {
	_, p, r := connect(t, childConfig{})
	old := &fakeTunnel{takes: true, answer: json.RawMessage(`{"from":"old"}`)}
	young := &fakeTunnel{takes: true, answer: json.RawMessage(`{"from":"young"}`)}
	r.AddTunnel(old)
	r.AddTunnel(young)

	if m := ask(t, p, "1", "sampling/createMessage"); string(m.Result) != `{"from":"young"}` {
		t.Errorf("the child got %s, want the newest tunnel's answer", m)
	}
	young.askedOnce(t, "sampling/createMessage")

	young.takes = false // half-closed
	if m := ask(t, p, "2", "elicitation/create"); string(m.Result) != `{"from":"old"}` {
		t.Errorf("the child got %s, want the older tunnel's answer", m)
	}
	old.askedOnce(t, "elicitation/create")

	old.crossModem = true // a 2026 client with no call that may ask
	if m := ask(t, p, "3", "elicitation/create"); m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("the child got %s, want -32601: nobody takes it", m)
	}
	old.asking = true // now it has one
	young.takes = true
	if m := ask(t, p, "4", "elicitation/create"); string(m.Result) != `{"from":"old"}` {
		t.Errorf("the child got %s, want the asking 2026 client's answer first", m)
	}
	old.askedOnce(t, "elicitation/create")

	young.asking, young.crossModem = true, true // two that may ask: the newest
	if m := ask(t, p, `"4b"`, "elicitation/create"); string(m.Result) != `{"from":"young"}` {
		t.Errorf("the child got %s, want the newest asking tunnel's answer", m)
	}
	young.askedOnce(t, "elicitation/create")
	young.asking, young.crossModem = false, false

	r.RemoveTunnel(old)
	young.err = jsonrpc.Errorf(-1, "declined")
	if m := ask(t, p, `"five"`, "roots/list"); m.Error == nil || m.Error.Code != -1 || m.Error.Message != "declined" {
		t.Errorf("the child got %s, want the tunnel's error", m)
	}
	young.askedOnce(t, "roots/list")

	// ping is the Client's own to answer.
	if m := ask(t, p, "6", "ping"); string(m.Result) != `{}` {
		t.Errorf("ping: %s", m)
	}
	young.mu.Lock()
	defer young.mu.Unlock()
	if len(young.asked) != 0 {
		t.Errorf("the tunnel was asked %v for a ping", young.asked)
	}
}

// TestServerRequestsByPrincipal: with authentication a request of the
// child goes to the tunnels of the principal whose calls are in flight,
// and to nobody when that cannot be told; a relay whose child serves one
// principal (Owner) gives it to that principal's.
func TestServerRequestsByPrincipal(t *testing.T) {
	r := NewRelay("s", nil, wait, true, slog.New(slog.DiscardHandler))
	_, p, _ := connect(t, childConfig{relay: r})
	alice := &fakeTunnel{who: "apikey:alice", takes: true, answer: json.RawMessage(`{"who":"alice"}`)}
	bob := &fakeTunnel{who: "apikey:bob", takes: true, answer: json.RawMessage(`{"who":"bob"}`)}
	r.AddTunnel(alice)
	r.AddTunnel(bob)

	if m := ask(t, p, "1", "elicitation/create"); m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("no call in flight: the child got %s, want -32601", m)
	}
	leave := r.Enter(as("alice"))
	if m := ask(t, p, "2", "elicitation/create"); string(m.Result) != `{"who":"alice"}` {
		t.Errorf("alice's call in flight: the child got %s, want alice's answer, not the newer bob's", m)
	}
	alice.askedOnce(t, "elicitation/create")
	leaveBob := r.Enter(as("bob"))
	if m := ask(t, p, "3", "elicitation/create"); m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("calls of both in flight: the child got %s, want -32601", m)
	}
	leave()
	leaveBob()
	r.Owner = "apikey:bob" // tests only: Owner is set before the child serves
	if m := ask(t, p, "4", "elicitation/create"); string(m.Result) != `{"who":"bob"}` {
		t.Errorf("the owner's child: the child got %s, want bob's answer", m)
	}
	bob.askedOnce(t, "elicitation/create")
}

// TestServerRequestsAnsweredByTheRelay: roots/list is answered from the
// configured roots; before the relay is attached (the child still
// negotiating) nobody is asked.
func TestServerRequestsAnsweredByTheRelay(t *testing.T) {
	r := NewRelay("s", json.RawMessage(`[{"uri":"file:///w"}]`), wait, false, slog.New(slog.DiscardHandler))
	c, p, _ := connect(t, childConfig{relay: r, detached: true})
	tun := &fakeTunnel{takes: true, answer: json.RawMessage(`{}`)}
	r.AddTunnel(tun)
	if m := ask(t, p, "1", "sampling/createMessage"); m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("before Attach: the child got %s, want -32601", m)
	}
	r.Attach(c)
	if m := ask(t, p, "2", "roots/list"); string(m.Result) != `{"roots":[{"uri":"file:///w"}]}` {
		t.Errorf("roots/list: the child got %s, want the configured roots", m)
	}
	tun.mu.Lock()
	defer tun.mu.Unlock()
	if len(tun.asked) != 0 {
		t.Errorf("the tunnel was asked %v", tun.asked)
	}
}

// TestNoRootsAlone: the bridge's own connection answers roots/list with
// no roots when nobody can be asked, but nothing else, and not a 2026
// child's; a caller's answer still wins.
func TestNoRootsAlone(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    string // the result, or "" for -32601
	}{{"2025-11-25", `{"roots":[]}`}, {"2026-07-28", ""}} {
		r := NewRelay("s", nil, wait, false, slog.New(slog.DiscardHandler))
		r.NoRootsAlone = true
		_, p, _ := connect(t, childConfig{relay: r, version: tc.version})
		m := ask(t, p, "1", "roots/list")
		switch {
		case tc.want != "" && string(m.Result) != tc.want:
			t.Errorf("%s: roots/list with nobody to ask: %s, want %s", tc.version, m, tc.want)
		case tc.want == "" && (m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound):
			t.Errorf("%s: roots/list with nobody to ask: %s, want -32601", tc.version, m)
		}
		if m := ask(t, p, "2", "sampling/createMessage"); m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s: sampling with nobody to ask: %s, want -32601", tc.version, m)
		}
		tun := &fakeTunnel{takes: true, answer: json.RawMessage(`{"roots":[{"uri":"file:///h"}]}`)}
		r.AddTunnel(tun)
		if m := ask(t, p, "3", "roots/list"); string(m.Result) != `{"roots":[{"uri":"file:///h"}]}` {
			t.Errorf("%s: roots/list with a tunnel: %s, want its answer", tc.version, m)
		}
		tun.err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "no")
		if m := ask(t, p, "4", "roots/list"); m.Error == nil || m.Error.Message != "no" {
			t.Errorf("%s: roots/list the tunnel failed: %s, want its error", tc.version, m)
		}
	}
}

// TestSubscribeURIShared: resources/subscribe is sent once for every
// subscriber of a URI, those that come while it is on its way wait for
// its answer, and resources/unsubscribe goes when the last lets go. A
// refusal reaches every waiting subscriber and keeps nothing.
func TestSubscribeURIShared(t *testing.T) {
	c, p, r := connect(t, childConfig{})
	ctx := context.Background()
	errs := make(chan error, 3)
	go func() { errs <- r.SubscribeURI(ctx, c, "file:///a", wait) }()
	sub := p.expect(t, "resources/subscribe")
	if member(sub.Params, "uri") != `"file:///a"` {
		t.Errorf("subscribe params %s", sub.Params)
	}
	go func() { errs <- r.SubscribeURI(ctx, c, "file:///a", wait) }() // waits for the first
	// A third whose context ends while it waits gives its reference back.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := r.SubscribeURI(cctx, c, "file:///a", wait); !errors.Is(err, context.Canceled) {
		t.Errorf("a subscriber whose context ended: %v, want context.Canceled", err)
	}
	p.reply(t, sub.ID, `{}`)
	for range 2 {
		if err := within(t, errs, "subscribe"); err != nil {
			t.Errorf("SubscribeURI: %v", err)
		}
	}
	p.none(t) // one subscribe for all

	r.UnsubscribeURI(c, "file:///a", wait)
	r.UnsubscribeURI(c, "file:///never", wait) // nothing held: nothing sent
	p.none(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.UnsubscribeURI(c, "file:///a", wait)
	}()
	unsub := p.expect(t, "resources/unsubscribe")
	// A subscriber that comes while the unsubscribe is on its way
	// subscribes afresh once it is through.
	go func() { errs <- r.SubscribeURI(ctx, c, "file:///a", wait) }()
	p.reply(t, unsub.ID, `{}`)
	within(t, done, "unsubscribe")
	sub = p.expect(t, "resources/subscribe")
	p.reply(t, sub.ID, `{}`)
	if err := within(t, errs, "subscribe"); err != nil {
		t.Errorf("SubscribeURI after the unsubscribe: %v", err)
	}

	// A refusal reaches the waiting subscriber too.
	go func() { errs <- r.SubscribeURI(ctx, c, "file:///x", wait) }()
	sub = p.expect(t, "resources/subscribe")
	go func() { errs <- r.SubscribeURI(ctx, c, "file:///x", wait) }()
	eventually(t, "the second subscriber waits", func() bool { return r.refs("file:///x") == 2 })
	p.write(t, errorLine(sub.ID, -32002, "Resource not found"))
	for range 2 {
		var e *jsonrpc.Error
		if err := within(t, errs, "subscribe"); !errors.As(err, &e) || e.Code != -32002 {
			t.Errorf("a refused subscribe: %v, want the child's -32002", err)
		}
	}
	if n := r.refs("file:///x"); n != 0 {
		t.Errorf("%d references held on a refused URI", n)
	}
	// A failed unsubscribe is logged, and the URI is free again.
	go func() {
		r.UnsubscribeURI(c, "file:///a", wait)
		errs <- nil
	}()
	unsub = p.expect(t, "resources/unsubscribe")
	p.write(t, errorLine(unsub.ID, -32603, "oops"))
	within(t, errs, "unsubscribe")
	if n := r.refs("file:///a"); n != 0 {
		t.Errorf("%d references held after the last unsubscribe", n)
	}
}

// refs is the reference count the relay holds on uri.
func (r *Relay) refs(uri string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.uris[uri]; e != nil {
		return e.refs
	}
	return 0
}
