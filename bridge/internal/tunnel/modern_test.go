package tunnel

import (
	"context"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// withMeta is params with modernMeta as its _meta, plus extra members of
// _meta (`"k":v,...`, or "").
func withMeta(params, extra string) string {
	meta := modernMeta
	if extra != "" {
		meta = modernMeta[:len(modernMeta)-1] + "," + extra + "}"
	}
	if params == "{}" {
		return `{"_meta":` + meta + `}`
	}
	return params[:len(params)-1] + `,"_meta":` + meta + `}`
}

// TestModernForwardVerbatim: a 2026 client's request reaches a 2026 child
// with the client's own _meta, stamped with nothing of the bridge's; only
// the progress token is remapped on a shared child.
func TestModernForwardVerbatim(t *testing.T) {
	c, p := startChild(t, childConfig{version: protocol.Version20260728, pinned: true})
	cl := open(t, newHost(t), c, nil)

	cl.request(`1`, "tools/call", withMeta(`{"name":"x"}`, `"progressToken":"p"`))
	req := p.expect(t, "tools/call")
	if got := member(req.Params, "_meta", protocol.MetaClientInfo); got != `{"name":"c","version":"1"}` {
		t.Errorf("the child got clientInfo %s, want the client's own", got)
	}
	if got := member(req.Params, "_meta", protocol.MetaClientCapabilities); got != `{"elicitation":{}}` {
		t.Errorf("the child got capabilities %s, want the client's own", got)
	}
	token := member(req.Params, "_meta", "progressToken")
	if token == `"p"` || token == "" {
		t.Errorf("the shared child got token %s, want the Client's own", token)
	}
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`+token+`,"progress":3}}`)
	p.reply(t, req.ID, `{"resultType":"complete","content":[]}`)
	if n := cl.notification("notifications/progress"); !jsonEq(string(n), `{"progressToken":"p","progress":3}`) {
		t.Errorf("progress %s", n)
	}
	if res := cl.response(`1`); !jsonEq(string(res), `{"resultType":"complete","content":[]}`) {
		t.Errorf("result %s, want the child's as it is", res)
	}
	// A request without the 2026 _meta reaches the child too: the child
	// answers it as it would without the bridge.
	cl.request(`2`, "tools/list", `{}`)
	req = p.expect(t, "tools/list")
	p.replyError(t, req.ID, jsonrpc.CodeInvalidParams, protocol.NoMeta)
	checkCode(t, "a request without _meta", cl.failure(`2`), jsonrpc.CodeInvalidParams, protocol.NoMeta)

	// The client's notifications other than cancellations do not reach a
	// 2026 child; the child's unsolicited ones reach the client.
	cl.notify("notifications/roots/list_changed", `{}`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`)
	cl.notification("notifications/tools/list_changed")
	cl.request(`3`, "tools/list", withMeta(`{}`, ""))
	if m := p.next(t); m.Method != "tools/list" {
		t.Errorf("the child got %s, want the next request and no notification", m)
	} else {
		p.reply(t, m.ID, `{"tools":[]}`)
	}
	cl.response(`3`)
}

// TestModernListen: a 2026 client's subscriptions/listen is a listen of
// the child's Client under the Client's id: the acknowledgement and the
// events reach the client under its own listen id; the client's
// cancellation closes it on the child and gets no response; a listen the
// child ends is answered; one it refuses fails. A listen passes the door
// as a long request.
func TestModernListen(t *testing.T) {
	c, p := startChild(t, childConfig{version: protocol.Version20260728, pinned: true})
	h := newHost(t)
	cl := open(t, h, c, nil)
	sid := `"` + protocol.MetaSubscriptionID + `"`

	cl.request(`"L"`, "subscriptions/listen", withMeta(`{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]}}`, ""))
	req := p.expect(t, "subscriptions/listen")
	if !jsonEq(member(req.Params, "notifications"), `{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]}`) {
		t.Errorf("the child got listen params %s", req.Params)
	}
	if member(req.Params, "_meta", protocol.MetaClientInfo) == "" {
		t.Errorf("the child got listen _meta %s, want the client's", member(req.Params, "_meta"))
	}
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{`+sid+`:`+string(req.ID)+`}}}`)
	ack := cl.notification("notifications/subscriptions/acknowledged")
	if member(ack, "notifications") != `{"toolsListChanged":true}` || member(ack, "_meta", protocol.MetaSubscriptionID) != `"L"` {
		t.Errorf("acknowledgement %s, want the child's accepted filter under the client's id", ack)
	}
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{`+sid+`:`+string(req.ID)+`,"x":1}}}`)
	ev := cl.notification("notifications/tools/list_changed")
	if member(ev, "_meta", protocol.MetaSubscriptionID) != `"L"` || member(ev, "_meta", "x") != "1" {
		t.Errorf("event %s, want it under the client's listen id, its other _meta kept", ev)
	}
	// The listen's id is in use while it is open.
	cl.request(`"L"`, "tools/list", withMeta(`{}`, ""))
	checkCode(t, "a request under an open listen's id", cl.failure(`"L"`), jsonrpc.CodeInvalidRequest, "already in use")

	cl.notify("notifications/cancelled", `{"requestId":"L"}`)
	n := p.expect(t, "notifications/cancelled")
	if member(n.Params, "requestId") != string(req.ID) {
		t.Errorf("cancellation %s, want the listen's child id %s", n.Params, req.ID)
	}

	// A listen the child ends is answered complete, under the client's id.
	cl.request(`2`, "subscriptions/listen", withMeta(`{"notifications":{"promptsListChanged":true}}`, ""))
	req = p.expect(t, "subscriptions/listen")
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"promptsListChanged":true},"_meta":{`+sid+`:`+string(req.ID)+`}}}`)
	cl.notification("notifications/subscriptions/acknowledged")
	p.reply(t, req.ID, `{"resultType":"complete"}`)
	if res := cl.response(`2`); !jsonEq(string(res), `{"resultType":"complete","_meta":{`+sid+`:2}}`) {
		t.Errorf("the end of the listen %s", res)
	}

	// A listen the child refuses fails with its error.
	cl.request(`3`, "subscriptions/listen", withMeta(`{"notifications":{"toolsListChanged":true}}`, ""))
	req = p.expect(t, "subscriptions/listen")
	p.replyError(t, req.ID, jsonrpc.CodeInvalidParams, "no such thing")
	checkCode(t, "a refused listen", cl.failure(`3`), jsonrpc.CodeInvalidParams, "no such thing")

	// A listen without a notifications object is refused by the tunnel.
	cl.request(`4`, "subscriptions/listen", withMeta(`{}`, ""))
	checkCode(t, "a listen without notifications", cl.failure(`4`), jsonrpc.CodeInvalidParams, "notifications")

	// A listen that fails after its acknowledgement ends with the error.
	cl.request(`5`, "subscriptions/listen", withMeta(`{"notifications":{"toolsListChanged":true}}`, ""))
	req = p.expect(t, "subscriptions/listen")
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{`+sid+`:`+string(req.ID)+`}}}`)
	cl.notification("notifications/subscriptions/acknowledged")
	p.replyError(t, req.ID, jsonrpc.CodeInternalError, "broken")
	checkCode(t, "a listen the child failed", cl.failure(`5`), jsonrpc.CodeInternalError, "broken")

	var long int
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, a := range h.admitted {
		if a.method == "subscriptions/listen" && a.long {
			long++
		}
	}
	if long != 5 {
		t.Errorf("%d listens passed the door as long requests, want 5", long)
	}
}

// TestModernListenEndsWithTheTunnel: the tunnel's end closes its open
// listens on the child.
func TestModernListenEndsWithTheTunnel(t *testing.T) {
	c, p := startChild(t, childConfig{version: protocol.Version20260728, pinned: true})
	cl := open(t, newHost(t), c, nil)
	cl.request(`1`, "subscriptions/listen", withMeta(`{"notifications":{"toolsListChanged":true}}`, ""))
	req := p.expect(t, "subscriptions/listen")
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"`+protocol.MetaSubscriptionID+`":`+string(req.ID)+`}}}`)
	cl.notification("notifications/subscriptions/acknowledged")
	if err := cl.halfClose(context.Background()); err != nil {
		t.Fatalf("HalfClose: %v", err)
	}
	n := p.expect(t, "notifications/cancelled")
	if member(n.Params, "requestId") != string(req.ID) {
		t.Errorf("cancellation %s, want the listen's", n.Params)
	}
	for _, m := range cl.drained() {
		t.Errorf("the tunnel delivered %s after its end", m)
	}
}
