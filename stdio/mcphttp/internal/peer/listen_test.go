package peer

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

type listened struct {
	sub Subscription
	err error
}

// listen runs Listen in a goroutine of its own: it waits for the
// acknowledgement.
func (r *rig) listen(ctx context.Context, filter string) chan listened {
	ch := make(chan listened, 1)
	go func() {
		sub, err := r.l.Listen(ctx, json.RawMessage(filter))
		ch <- listened{sub, err}
	}()
	return ch
}

func listenResult(t *testing.T, ch chan listened) (Subscription, error) {
	t.Helper()
	select {
	case l := <-ch:
		return l.sub, l.err
	case <-waitTimer(t):
		t.Fatal("Listen did not return")
		return nil, nil
	}
}

// open listens and acknowledges: the subscription, and its id.
func (r *rig) open(t *testing.T, filter string) (Subscription, int) {
	t.Helper()
	ch := r.listen(t.Context(), filter)
	m := r.c.expect(t, "subscriptions/listen")
	n, err := strconv.Atoi(string(m.ID))
	if err != nil {
		t.Fatalf("listen id %s", m.ID)
	}
	r.c.push(t, ackMsg(n, filter))
	sub, err := listenResult(t, ch)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() { sub.Close() })
	return sub, n
}

func next(t *testing.T, sub Subscription) (stdio.Event, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	ev, err := sub.Next(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("Next did not return")
	}
	return ev, err
}

// TestListen: a listen goes out as subscriptions/listen with the filter
// and the connection's _meta (its clientInfo as connected), returns once
// acknowledged with the acknowledged notifications, hands over the events
// carrying its subscription id in order, and ends at the server's
// response (after the events queued before it).
func TestListen(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, clientInfo)
	ch := r.listen(t.Context(), `{ "resources" : {"uris":["a"]} }`)
	m := r.c.expect(t, "subscriptions/listen")
	if m.Kind != wire.KindRequest || string(m.ID) != "1" {
		t.Fatalf("listen %s id %s", m.Kind, m.ID)
	}
	if f := member(t, m.Params, "notifications"); string(f) != `{"resources":{"uris":["a"]}}` {
		t.Errorf("filter %s", f)
	}
	meta := member(t, m.Params, "_meta")
	for key, want := range map[string]string{
		protocol.MetaProtocolVersion:    `"2026-07-28"`,
		protocol.MetaClientCapabilities: `{}`,
		protocol.MetaClientInfo:         clientInfo,
	} {
		if got := member(t, meta, key); string(got) != want {
			t.Errorf("_meta %s = %s, want %s", key, got, want)
		}
	}
	select {
	case l := <-ch:
		t.Fatalf("Listen returned before the acknowledgement: %v %v", l.sub, l.err)
	default:
	}
	// An event that comes before the acknowledgement waits for it.
	r.c.push(t, eventMsg(1, "early"))
	r.c.push(t, ackMsg(1, `{ "resources" : {} }`))
	r.c.push(t, ackMsg(1, `{"tools":{}}`)) // a second acknowledgement is ignored
	sub, err := listenResult(t, ch)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if got := sub.Accepted(); string(got) != `{"resources":{}}` {
		t.Errorf("Accepted() = %s", got)
	}
	r.c.push(t, eventMsg(1, "second"))
	r.c.push(t, eventMsg(2, "not ours")) // another subscription id: a notification
	r.c.push(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"`+
		protocol.MetaSubscriptionID+`":"1"}}}`) // a string id: not a listen's
	r.c.push(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"x":1}}`) // no _meta
	r.c.push(t, result("1", `{"resultType":"complete"}`))
	for _, uri := range []string{"early", "second"} {
		ev, err := next(t, sub)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if ev.Method != "notifications/resources/updated" || string(member(t, ev.Params, "uri")) != `"`+uri+`"` || ev.Dropped != 0 {
			t.Errorf("event %s %s dropped %d, want %s", ev.Method, ev.Params, ev.Dropped, uri)
		}
	}
	if _, err := next(t, sub); err != io.EOF {
		t.Errorf("Next at the end: %v, want io.EOF", err)
	}
	for _, want := range []string{"notifications/resources/updated", "notifications/resources/updated", "notifications/tools/list_changed"} {
		if n := r.note(t); n.Method != want {
			t.Errorf("notification %s %s, want %s", n.Method, n.Params, want)
		}
	}
	if err := sub.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	r.sync(t) // an ended listen's Close tells the server nothing
	if _, err := next(t, sub); asError(t, err).Message != "Subscription closed" {
		t.Errorf("Next after Close: %v", err)
	}
}

// TestListenEnds: a listen ends, after its queued events, at an error
// response (that error), a response whose resultType is not complete
// (-32000), or the server's notifications/cancelled for it (io.EOF).
func TestListenEnds(t *testing.T) {
	for _, tc := range []struct {
		name, end string
		check     func(error) bool
	}{
		{"error", `{"jsonrpc":"2.0","id":ID,"error":{"code":-32603,"message":"gone"}}`, func(err error) bool {
			var e *jsonrpc.Error
			return errors.As(err, &e) && e.Code == -32603 && e.Message == "gone"
		}},
		{"incomplete", `{"jsonrpc":"2.0","id":ID,"result":{"resultType":"input_required"}}`, func(err error) bool {
			var e *jsonrpc.Error
			return errors.As(err, &e) && e.Code == jsonrpc.CodeConnectionClosed && contains(e.Message, "resultType input_required")
		}},
		{"no resultType", `{"jsonrpc":"2.0","id":ID,"result":{}}`, func(err error) bool { return err == io.EOF }},
		{"cancelled", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":ID}}`, func(err error) bool { return err == io.EOF }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, stdio.ClientConfig{}, clientInfo)
			sub, n := r.open(t, `{}`)
			r.c.push(t, eventMsg(n, "kept"))
			r.c.push(t, replaceID(tc.end, strconv.Itoa(n)))
			if ev, err := next(t, sub); err != nil || string(member(t, ev.Params, "uri")) != `"kept"` {
				t.Errorf("Next: %v %v, want the event queued before the end", ev, err)
			}
			if _, err := next(t, sub); !tc.check(err) {
				t.Errorf("Next at the end: %v", err)
			}
			r.c.push(t, eventMsg(n, "late")) // the listen is gone: a notification
			if n := r.note(t); string(member(t, n.Params, "uri")) != `"late"` {
				t.Errorf("notification %s", n.Params)
			}
			sub.Close()
			r.sync(t)
		})
	}
}

// TestListenClose: closing an open listen discards what is queued, tells
// the server, and makes Next fail; a second Close does nothing.
func TestListenClose(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, clientInfo)
	sub, n := r.open(t, `{}`)
	r.c.push(t, eventMsg(n, "discarded"))
	r.barrier(t)
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	m := r.c.expect(t, "notifications/cancelled")
	if want := `{"requestId":` + strconv.Itoa(n) + `,"reason":"Closed by the client"}`; string(m.Params) != want {
		t.Errorf("cancellation %s, want %s", m.Params, want)
	}
	if _, err := next(t, sub); asError(t, err).Message != "Subscription closed" {
		t.Errorf("Next after Close: %v", err)
	}
	sub.Close()
	r.sync(t)
}

// TestListenNextCancelled: Next waits for an event until its ctx ends,
// with -32001 then; an event pushed meanwhile wakes it.
func TestListenNextCancelled(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, clientInfo)
	sub, n := r.open(t, `{}`)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := sub.Next(ctx)
	if e := asError(t, err); e.Code != jsonrpc.CodeRequestTimeout || !errors.Is(err, context.Canceled) {
		t.Errorf("Next: %v", err)
	}
	got := make(chan error, 1)
	go func() {
		_, err := next(t, sub)
		got <- err
	}()
	r.c.push(t, eventMsg(n, "wake"))
	select {
	case err := <-got:
		if err != nil {
			t.Errorf("Next: %v", err)
		}
	case <-waitTimer(t):
		t.Fatal("Next did not wake")
	}
}

// TestListenOverflow: a listen holds at most rawListenBuffer events; past
// it the oldest are dropped and the next event handed over counts them.
func TestListenOverflow(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, clientInfo)
	sub, n := r.open(t, `{}`)
	const extra = 5
	for i := range rawListenBuffer + extra {
		r.c.push(t, eventMsg(n, "e"+strconv.Itoa(i)))
	}
	r.barrier(t)
	for i := extra; i < rawListenBuffer+extra; i++ {
		ev, err := next(t, sub)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if i == extra {
			want = extra
		}
		if uri := string(member(t, ev.Params, "uri")); uri != `"e`+strconv.Itoa(i)+`"` || ev.Dropped != want {
			t.Fatalf("event %s dropped %d, want e%d dropped %d", uri, ev.Dropped, i, want)
		}
	}
}

// TestListenRefused: a listen needs a 2026-07-28 connection and a filter
// that is an object.
func TestListenRefused(t *testing.T) {
	legacy := newRig(t, stdio.ClientConfig{}, "")
	_, err := legacy.l.Listen(t.Context(), json.RawMessage(`{}`))
	if e := asError(t, err); e.Code != jsonrpc.CodeMethodNotFound || !contains(e.Message, "2026-07-28") {
		t.Errorf("Listen on a legacy connection: %v", err)
	}
	r := newRig(t, stdio.ClientConfig{}, clientInfo)
	for _, filter := range []string{`[]`, `{"a":`, ``} {
		if _, err := r.l.Listen(t.Context(), json.RawMessage(filter)); asError(t, err).Code != jsonrpc.CodeInvalidParams {
			t.Errorf("Listen(%q): %v, want -32602", filter, err)
		}
	}
	legacy.sync(t)
	r.sync(t)
}

// TestListenBeforeAck: a listen that ends before its acknowledgement
// fails Listen: with the server's error, -32000 for a plain end, -32000
// "Invalid acknowledgement" (the server told) when the acknowledgement
// has no notifications object, -32001 (the server told) when ctx ends.
func TestListenBeforeAck(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		code      int64
		message   string
		notice    string
	}{
		{"error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad filter"}}`, -32602, "bad filter", ""},
		{"complete", result("1", `{"resultType":"complete"}`), jsonrpc.CodeConnectionClosed, "The subscription ended before it was acknowledged", ""},
		{"cancelled", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, jsonrpc.CodeConnectionClosed, "The subscription ended before it was acknowledged", ""},
		{"invalid ack", ackMsg(1, `"all"`), jsonrpc.CodeConnectionClosed, "Invalid acknowledgement", `{"requestId":1,"reason":"Invalid acknowledgement"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, stdio.ClientConfig{}, clientInfo)
			ch := r.listen(t.Context(), `{}`)
			r.c.expect(t, "subscriptions/listen")
			r.c.push(t, eventMsg(1, "early")) // discarded with the listen
			r.c.push(t, tc.msg)
			sub, err := listenResult(t, ch)
			if sub != nil {
				t.Errorf("Listen returned a subscription")
			}
			if e := asError(t, err); e.Code != tc.code || e.Message != tc.message {
				t.Errorf("Listen: %d %q, want %d %q", e.Code, e.Message, tc.code, tc.message)
			}
			if tc.notice != "" {
				if m := r.c.expect(t, "notifications/cancelled"); string(m.Params) != tc.notice {
					t.Errorf("cancellation %s, want %s", m.Params, tc.notice)
				}
			}
			r.sync(t)
		})
	}
	t.Run("ctx", func(t *testing.T) {
		r := newRig(t, stdio.ClientConfig{}, clientInfo)
		ctx, cancel := context.WithCancel(t.Context())
		ch := r.listen(ctx, `{}`)
		r.c.expect(t, "subscriptions/listen")
		cancel()
		_, err := listenResult(t, ch)
		if e := asError(t, err); e.Code != jsonrpc.CodeRequestTimeout || !errors.Is(err, context.Canceled) {
			t.Errorf("Listen: %v", err)
		}
		if m := r.c.expect(t, "notifications/cancelled"); string(m.Params) != `{"requestId":1,"reason":"Request cancelled"}` {
			t.Errorf("cancellation %s", m.Params)
		}
		r.c.push(t, ackMsg(1, `{}`)) // too late: a notification
		if n := r.note(t); n.Method != "notifications/subscriptions/acknowledged" {
			t.Errorf("notification %s", n.Method)
		}
	})
}

// TestListenLinkEnds: the link's end ends its listens at once (queued
// events discarded) and a listen waiting for its acknowledgement with the
// link's error; a send that fails fails Listen.
func TestListenLinkEnds(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, clientInfo)
	sub, n := r.open(t, `{}`)
	r.c.push(t, eventMsg(n, "discarded"))
	r.barrier(t)
	ch := r.listen(t.Context(), `{}`)
	r.c.expect(t, "subscriptions/listen")
	r.l.Close()
	if _, err := listenResult(t, ch); asError(t, err).Message != "Connection closed" {
		t.Errorf("Listen: %v", err)
	}
	if _, err := next(t, sub); asError(t, err).Message != "Connection closed" {
		t.Errorf("Next: %v", err)
	}
	sub.Close()
	r.c.none(t) // no cancellation for a listen the link ended

	broken := errors.New("broken")
	f := newRig(t, stdio.ClientConfig{}, clientInfo)
	f.c.setSendErr(broken)
	if _, err := f.l.Listen(t.Context(), json.RawMessage(`{}`)); !errors.Is(err, broken) || asError(t, err).Code != jsonrpc.CodeConnectionClosed {
		t.Errorf("Listen: %v", err)
	}
}

// TestListenIDs: a listen skips an id a call holds as its own, and a call
// does not take a listen's id as its own.
func TestListenIDs(t *testing.T) {
	r := newRig(t, stdio.ClientConfig{}, clientInfo)
	c := begin(r.l, "a", "", false, &stdio.CallOptions{ID: json.RawMessage(`1`)})
	r.c.expect(t, "a")
	_, n := r.open(t, `{}`)
	if n != 2 {
		t.Errorf("listen id %d, want 2 (1 is a call's)", n)
	}
	c2 := begin(r.l, "b", "", false, &stdio.CallOptions{ID: json.RawMessage(`2`)})
	if m := r.c.expect(t, "b"); string(m.ID) == "2" {
		t.Errorf("a call went out under the listen's id")
	}
	c.pending(t)
	c2.pending(t)
}
