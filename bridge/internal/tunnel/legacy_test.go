package tunnel

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// TestLegacyInitializeAnsweredByTheBridge: on a legacy child the bridge
// initialized once, the tunnel's initialize is answered from what it
// learnt, and notifications/initialized is absorbed; the client's other
// notifications reach the child.
func TestLegacyInitializeAnsweredByTheBridge(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)

	cl.request(`0`, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"1"}}`)
	res := cl.response(`0`)
	if member(res, "protocolVersion") != `"2025-11-25"` || member(res, "serverInfo") != serverInfo ||
		member(res, "instructions") != `"`+instructions+`"` || member(res, "capabilities", "logging") != `{}` {
		t.Errorf("initialize result %s, want the child's negotiated state", res)
	}
	cl.notify("notifications/initialized", `{}`)
	cl.notify("notifications/roots/list_changed", `{}`)
	if m := p.next(t); m.Method != "notifications/roots/list_changed" {
		t.Errorf("the child got %s, want the client's roots/list_changed and no initialize or initialized", m)
	}
	// The client's progress for a request of the child's is dropped.
	cl.notify("notifications/progress", `{"progressToken":1,"progress":1}`)
	cl.request(`1`, "ping", "")
	req := p.expect(t, "ping")
	p.reply(t, req.ID, `{}`)
	cl.response(`1`)
}

// TestLegacySetLevel: the tunnel's logging/setLevel is answered by the
// bridge, which holds the child at that level (fanout.ChildLevel); the
// child's unsolicited logs below it do not reach the tunnel. An unknown
// level is -32602. When the tunnel ends the child is let go of.
func TestLegacySetLevel(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)
	levels := make(chan string, 4)
	p.handle("logging/setLevel", func(m msg) string {
		levels <- member(m.Params, "level")
		return result(m.ID, `{}`)
	})
	cl.request(`1`, "logging/setLevel", `{"level":"warning"}`)
	if res := cl.response(`1`); string(res) != `{}` {
		t.Errorf("setLevel result %s", res)
	}
	select {
	case l := <-levels:
		if l != `"warning"` {
			t.Errorf("the child was set to %s, want warning", l)
		}
	default: // Want returned only once the child had it
		t.Error("the child got no logging/setLevel before the tunnel's was answered")
	}
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"quiet"}}`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"loud"}}`)
	if n := cl.notification("notifications/message"); member(n, "data") != `"loud"` {
		t.Errorf("the tunnel got log %s first, want the error and not the info below its level", n)
	}
	cl.request(`2`, "logging/setLevel", `{"level":"chatty"}`)
	checkCode(t, "an unknown level", cl.failure(`2`), jsonrpc.CodeInvalidParams, "logging level")

	// A second level replaces the first.
	cl.request(`3`, "logging/setLevel", `{"level":"debug"}`)
	cl.response(`3`)
	select {
	case l := <-levels:
		if l != `"debug"` {
			t.Errorf("the child was set to %s, want debug", l)
		}
	default:
		t.Error("the child got no logging/setLevel debug before the tunnel's was answered")
	}
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"all"}}`)
	if n := cl.notification("notifications/message"); member(n, "data") != `"all"` {
		t.Errorf("log %s, want the debug one", n)
	}
}

// TestLegacySubscriptions: resources/subscribe is shared by reference
// count on the child (one subscribe for two tunnels, unsubscribe when the
// last lets go); a tunnel gets the updates of the URIs it holds (and
// their sub-resources) and no others; its end releases what it holds.
func TestLegacySubscriptions(t *testing.T) {
	c, p := startChild(t, childConfig{})
	h := newHost(t)
	a := open(t, h, c, nil)
	b := open(t, h, c, nil)

	a.request(`1`, "resources/subscribe", `{"uri":"file:///a"}`)
	sub := p.expect(t, "resources/subscribe")
	if member(sub.Params, "uri") != `"file:///a"` {
		t.Errorf("subscribe params %s", sub.Params)
	}
	p.reply(t, sub.ID, `{}`)
	a.response(`1`)
	a.request(`2`, "resources/subscribe", `{"uri":"file:///a"}`) // held already
	a.response(`2`)
	b.request(`1`, "resources/subscribe", `{"uri":"file:///a"}`) // shared
	b.response(`1`)
	p.none(t)

	p.write(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///other"}}`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a/b"}}`)
	for _, cl := range []*client{a, b} {
		if n := cl.notification("notifications/resources/updated"); member(n, "uri") != `"file:///a/b"` {
			t.Errorf("update %s first, want file:///a/b's and not file:///other's", n)
		}
	}
	// List changes are the server's state: every tunnel gets them.
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	a.notification("notifications/tools/list_changed")
	b.notification("notifications/tools/list_changed")

	a.request(`3`, "resources/unsubscribe", `{"uri":"file:///a"}`)
	a.response(`3`)
	a.request(`4`, "resources/unsubscribe", `{"uri":"file:///never"}`) // not held: answered, nothing sent
	a.response(`4`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}`)
	b.notification("notifications/resources/updated")
	b.request(`2`, "ping", "")
	if m := p.next(t); m.Method != "ping" {
		t.Fatalf("the child got %s, want no unsubscribe while b holds the URI", m)
	} else {
		p.reply(t, m.ID, `{}`)
	}
	b.response(`2`)

	a.request(`5`, "resources/subscribe", `{"uri":""}`)
	checkCode(t, "subscribe without a uri", a.failure(`5`), jsonrpc.CodeInvalidParams, "uri")

	// b's end releases the last reference.
	done := make(chan error, 1)
	go func() { done <- b.halfClose(context.Background()) }()
	unsub := p.expect(t, "resources/unsubscribe")
	if member(unsub.Params, "uri") != `"file:///a"` {
		t.Errorf("unsubscribe params %s", unsub.Params)
	}
	p.reply(t, unsub.ID, `{}`)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("HalfClose: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("HalfClose did not return")
	}
	// a holds nothing: its update filter is empty.
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`)
	a.notification("notifications/prompts/list_changed")
}

// TestLegacySubscribeRefused: the child's refusal of resources/subscribe
// reaches the tunnel, and the URI is not held.
func TestLegacySubscribeRefused(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)
	cl.request(`1`, "resources/subscribe", `{"uri":"file:///x"}`)
	sub := p.expect(t, "resources/subscribe")
	p.replyError(t, sub.ID, -32002, "Resource not found")
	checkCode(t, "a refused subscribe", cl.failure(`1`), -32002, "Resource not found")
	// Not held: a second subscribe asks the child again.
	cl.request(`2`, "resources/subscribe", `{"uri":"file:///x"}`)
	sub = p.expect(t, "resources/subscribe")
	p.reply(t, sub.ID, `{}`)
	cl.response(`2`)
	cl.request(`3`, "resources/unsubscribe", `{"uri":"file:///x"}`)
	unsub := p.expect(t, "resources/unsubscribe")
	p.reply(t, unsub.ID, `{}`)
	cl.response(`3`)
}

// TestLegacyListenIsUnknown: a legacy child knows no
// subscriptions/listen, and the tunnel answers as it would.
func TestLegacyListenIsUnknown(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)
	cl.request(`1`, "subscriptions/listen", `{"notifications":{"toolsListChanged":true}}`)
	checkCode(t, "listen on a legacy child", cl.failure(`1`), jsonrpc.CodeMethodNotFound, "subscriptions/listen")
	p.none(t)
}

// TestServerRequestIntoTheTunnel: a legacy child's request goes into the
// tunnel under a bridge-minted string id; the client's answer, result or
// error, goes back to the child under the child's id. An answer to an
// unknown id is dropped.
func TestServerRequestIntoTheTunnel(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)

	p.write(t, `{"jsonrpc":"2.0","id":"child-1","method":"sampling/createMessage","params":{"messages":[]}}`)
	req := cl.next()
	id, ok := "", false
	if err := json.Unmarshal(req.ID, &id); err == nil {
		ok = strings.HasPrefix(id, "sr-") && !fanout.MintedElsewhere(id)
	}
	if req.Method != "sampling/createMessage" || !ok || string(req.Params) != `{"messages":[]}` {
		t.Fatalf("the tunnel got %s, want the child's request under a minted id", req)
	}
	cl.send(`{"jsonrpc":"2.0","id":"unknown","result":{}}`) // dropped
	cl.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"role":"assistant"}}`)
	ans := p.next(t)
	if string(ans.ID) != `"child-1"` || !jsonEq(string(ans.Result), `{"role":"assistant"}`) {
		t.Errorf("the child got %s, want the client's result under its own id", ans)
	}

	p.write(t, `{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{}}`)
	req = cl.next()
	cl.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-1,"message":"declined","data":{"why":"no"}}}`)
	ans = p.next(t)
	if string(ans.ID) != `2` || ans.Error == nil || ans.Error.Code != -1 || ans.Error.Message != "declined" || !jsonEq(string(ans.Error.Data), `{"why":"no"}`) {
		t.Errorf("the child got %s, want the client's error", ans)
	}

	// An answer that is no valid error is -32603 for the child.
	p.write(t, `{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{}}`)
	req = cl.next()
	cl.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":"no"}`)
	ans = p.next(t)
	if string(ans.ID) != `3` || ans.Error == nil || ans.Error.Code != jsonrpc.CodeInternalError {
		t.Errorf("the child got %s, want -32603 for an invalid error", ans)
	}
}

// TestServerRequestUnanswered: a request the client does not answer in
// the relay's time gets -32603 on the child, and the client is told the
// request is void (notifications/cancelled with a reason).
func TestServerRequestUnanswered(t *testing.T) {
	c, p := startChild(t, childConfig{timeout: 300 * time.Millisecond})
	cl := open(t, newHost(t), c, nil)

	p.write(t, `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`)
	req := cl.next()
	if req.Method != "roots/list" {
		t.Fatalf("the tunnel got %s, want roots/list", req)
	}
	ans := p.next(t)
	if string(ans.ID) != `1` || ans.Error == nil || !strings.Contains(ans.Error.Message, "did not answer") {
		t.Errorf("the child got %s, want -32603: not answered in time", ans)
	}
	n := cl.notification("notifications/cancelled")
	if member(n, "requestId") != string(req.ID) || member(n, "reason") != `"The request timed out"` {
		t.Errorf("cancellation %s, want the minted id and a reason", n)
	}
	// A late answer is dropped.
	cl.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"roots":[]}}`)
}

// TestServerRequestAfterHalfClose: a tunnel whose client closed its side
// takes no more requests from the child (nobody else: -32601), and one
// waiting for its answer fails.
func TestServerRequestAfterHalfClose(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)

	p.write(t, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}`)
	cl.next() // asked, never answered
	if err := cl.halfClose(context.Background()); err != nil {
		t.Fatalf("HalfClose: %v", err)
	}
	if cl.tun.TakesRequests() {
		t.Error("TakesRequests after HalfClose")
	}
	ans := p.next(t)
	if string(ans.ID) != `1` || ans.Error == nil || !strings.Contains(ans.Error.Message, "closed before answering") {
		t.Errorf("the child got %s, want -32603: the tunnel closed", ans)
	}
	p.write(t, `{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{}}`)
	ans = p.next(t)
	if string(ans.ID) != `2` || ans.Error == nil || ans.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("the child got %s, want -32601: nobody to ask", ans)
	}
	// Ask on a closed tunnel fails at once.
	if _, err := cl.tun.Ask(context.Background(), fanout.MintID(), stdioRequest("roots/list"), wait); err == nil {
		t.Error("Ask on a closed tunnel succeeded")
	}
}

// TestHalfCloseWaitsForCalls: after the client's half-close the requests
// in flight finish and are answered before the tunnel ends with OK.
func TestHalfCloseWaitsForCalls(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)
	cl.request(`1`, "tools/call", `{"name":"slow"}`)
	req := p.expect(t, "tools/call")

	done := make(chan error, 1)
	go func() { done <- cl.halfClose(context.Background()) }()
	for deadline := time.Now().Add(wait); cl.tun.TakesRequests(); { // HalfClose began
		if time.Now().After(deadline) {
			t.Fatal("HalfClose did not begin")
		}
		runtime.Gosched()
	}
	select { // a bound on an absence: it must not return while the call is in flight
	case err := <-done:
		t.Fatalf("HalfClose returned %v while a call was in flight", err)
	case <-time.After(50 * time.Millisecond):
	}
	p.reply(t, req.ID, `{"finished":true}`)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("HalfClose = %v, want nil", err)
		}
	case <-time.After(wait):
		t.Fatal("HalfClose did not return after the last call ended")
	}
	got := cl.drained()
	if len(got) != 1 || string(got[0].ID) != `1` || string(got[0].Result) != `{"finished":true}` {
		t.Errorf("the tunnel delivered %v, want the call's answer before its end", got)
	}
}

// TestHalfCloseEndsWithTheContext: a half-closed tunnel whose context
// ends cancels its calls on the child and reports the context's error.
func TestHalfCloseEndsWithTheContext(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)
	cl.request(`1`, "tools/call", `{"name":"slow"}`)
	req := p.expect(t, "tools/call")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cl.halfClose(ctx) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("HalfClose = %v, want the context's error", err)
		}
	case <-time.After(wait):
		t.Fatal("HalfClose did not return after its context ended")
	}
	n := p.expect(t, "notifications/cancelled")
	if member(n.Params, "requestId") != string(req.ID) {
		t.Errorf("cancellation %s, want the call's id %s", n.Params, req.ID)
	}
}

// TestHalfCloseEndsWithTheChild: a half-closed tunnel whose child dies
// reports the child's failure.
func TestHalfCloseEndsWithTheChild(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)
	cl.request(`1`, "tools/call", `{"name":"slow"}`)
	p.expect(t, "tools/call")
	done := make(chan error, 1)
	go func() { done <- cl.halfClose(context.Background()) }()
	p.CloseOutput() // the child's output ends: it is gone
	select {
	case err := <-done:
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != jsonrpc.CodeConnectionClosed {
			t.Errorf("HalfClose = %v, want the child's -32000", err)
		}
	case <-time.After(wait):
		t.Fatal("HalfClose did not return after the child ended")
	}
}

// TestAbort: Abort ends the tunnel at once: its calls are cancelled on the
// child and get no answer, its subscriptions are released.
func TestAbort(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)
	p.handle("resources/subscribe", func(m msg) string { return result(m.ID, `{}`) })
	cl.request(`1`, "resources/subscribe", `{"uri":"file:///a"}`)
	cl.response(`1`)
	cl.request(`2`, "tools/call", `{"name":"slow"}`)
	req := p.expect(t, "tools/call")

	aborted := make(chan struct{})
	go func() {
		defer close(aborted)
		cl.tun.Abort()
	}()
	seen := map[string]string{}
	for range 2 {
		m := p.next(t)
		seen[m.Method] = string(m.Params)
		if m.Method == "resources/unsubscribe" {
			p.reply(t, m.ID, `{}`)
		}
	}
	if member(json.RawMessage(seen["notifications/cancelled"]), "requestId") != string(req.ID) {
		t.Errorf("the child got %v, want the call cancelled", seen)
	}
	if member(json.RawMessage(seen["resources/unsubscribe"]), "uri") != `"file:///a"` {
		t.Errorf("the child got %v, want the subscription released", seen)
	}
	select {
	case <-aborted:
	case <-time.After(wait):
		t.Fatal("Abort did not return")
	}
	// The cancelled call may still be answered -32001 by a writer that
	// had it queued; never with anything else.
	for _, m := range cl.drained() {
		if string(m.ID) != `2` || m.Error == nil || m.Error.Code != jsonrpc.CodeRequestTimeout {
			t.Errorf("the tunnel delivered %s after Abort", m)
		}
	}
}

// TestWriterFailureEndsTheTunnel: when delivery fails, the writer stops,
// Dead is closed and WriteErr says why.
func TestWriterFailureEndsTheTunnel(t *testing.T) {
	c, p := startChild(t, childConfig{})
	h := newHost(t)
	tun := New(h, c, context.Background())
	c.Relay.AddTunnel(tun)
	broken := errors.New("stream broke")
	go tun.Write(func([]byte) error { return broken })
	tun.Handle([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req := p.expect(t, "ping")
	p.reply(t, req.ID, `{}`)
	select {
	case <-tun.Dead():
	case <-time.After(wait):
		t.Fatal("the writer did not stop when delivery failed")
	}
	if !errors.Is(tun.WriteErr(), broken) {
		t.Errorf("WriteErr = %v, want the delivery's error", tun.WriteErr())
	}
	if err := tun.HalfClose(context.Background(), func(err error) error { return err }); !errors.Is(err, broken) {
		t.Errorf("HalfClose = %v, want the delivery's error", err)
	}
}

// TestRebind: a tunnel moved to its private child's next process takes
// its subscriptions and level there and tells the client in a warning;
// a subscription the new process refuses is named.
func TestRebind(t *testing.T) {
	old, p1 := startChild(t, childConfig{private: true})
	cl := open(t, newHost(t), old, nil)
	p1.handle("logging/setLevel", func(m msg) string { return result(m.ID, `{}`) })
	p1.handle("resources/subscribe", func(m msg) string { return result(m.ID, `{}`) })
	cl.request(`1`, "resources/subscribe", `{"uri":"file:///a"}`)
	cl.response(`1`)
	cl.request(`2`, "resources/subscribe", `{"uri":"file:///b"}`)
	cl.response(`2`)
	cl.request(`3`, "logging/setLevel", `{"level":"info"}`)
	cl.response(`3`)

	next, p2 := startChild(t, childConfig{private: true})
	levels := make(chan string, 2)
	p2.handle("logging/setLevel", func(m msg) string {
		levels <- member(m.Params, "level")
		return result(m.ID, `{}`)
	})
	p2.handle("resources/subscribe", func(m msg) string {
		if member(m.Params, "uri") == `"file:///b"` {
			return `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32002,"message":"gone"}}`
		}
		return result(m.ID, `{}`)
	})
	p2.handle("resources/unsubscribe", func(m msg) string { return result(m.ID, `{}`) })
	cl.tun.Rebind(next)
	select {
	case l := <-levels:
		if l != `"info"` {
			t.Errorf("the new process was set to %s, want the client's info", l)
		}
	default:
		t.Error("the new process got no logging/setLevel")
	}
	n := cl.notification("notifications/message")
	data := member(n, "data")
	if member(n, "level") != `"warning"` || member(n, "logger") != `"mcpbridge"` ||
		!strings.Contains(data, "started again") || !strings.Contains(data, "file:///b") || strings.Contains(data, "file:///a") {
		t.Errorf("the client was told %s, want a warning naming the refused subscription only", n)
	}
	// The tunnel is the new relay's now, and takes its updates.
	p2.write(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}`)
	if n := cl.notification("notifications/resources/updated"); member(n, "uri") != `"file:///a"` {
		t.Errorf("update %s", n)
	}
	cl.request(`4`, "ping", "")
	req := p2.expect(t, "ping")
	p2.reply(t, req.ID, `{}`)
	cl.response(`4`)
	p1.none(t)
}

// TestSlowClientDropsOldestNotifications: the child's unsolicited
// notifications for a client that does not read wait in a ring of
// fanout.StreamBuffer that drops the oldest, so that the child's reader
// never waits for the tunnel: a call on the same child is answered while
// the tunnel's writer is stuck, and the client then gets the newest
// notifications.
func TestSlowClientDropsOldestNotifications(t *testing.T) {
	c, p := startChild(t, childConfig{})
	h := newHost(t)
	tun := New(h, c, context.Background())
	c.Relay.AddTunnel(tun)
	gate, stuck := make(chan struct{}), make(chan struct{}, 1)
	got := make(chan msg, 256)
	go tun.Write(func(b []byte) error {
		select {
		case stuck <- struct{}{}:
		default:
		}
		<-gate
		got <- decodeMsg(t, b)
		return nil
	})
	t.Cleanup(tun.Abort)
	note := func(i int) string {
		return `{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{"i":` + itoa(i) + `}}`
	}
	p.write(t, note(0))
	select {
	case <-stuck: // the writer holds 0 and waits for the client
	case <-time.After(wait):
		t.Fatal("the writer got nothing to deliver")
	}
	for i := 1; i < 100; i++ {
		p.write(t, note(i))
	}
	p.handle("ping", func(m msg) string { return result(m.ID, `{}`) })
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := c.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatalf("a call on the child while the tunnel is stuck: %v", err)
	}
	close(gate)
	var is []string
	for len(is) < 1+fanout.StreamBuffer {
		select {
		case m := <-got:
			is = append(is, member(m.Params, "i"))
		case <-time.After(wait):
			t.Fatalf("the client got %d notifications, want %d", len(is), 1+fanout.StreamBuffer)
		}
	}
	if is[0] != "0" || is[1] != itoa(100-fanout.StreamBuffer) || is[len(is)-1] != "99" {
		t.Errorf("the client got %v, want 0 and then the newest %d", is, fanout.StreamBuffer)
	}
	tun.Abort()
	select {
	case m := <-got:
		t.Errorf("the client got %s, more than the ring holds", m)
	default:
	}
}
