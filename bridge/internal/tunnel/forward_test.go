package tunnel

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// TestForwardRemapsOnASharedChild: on a shared child a request reaches
// the child under an id and a progress token of the Client's own, never
// the tunnel's; the child's progress and answer come back under the
// tunnel's id and token, with their JSON types. The request passed the
// door once, was audited once, and its pass was released.
func TestForwardRemapsOnASharedChild(t *testing.T) {
	c, p := startChild(t, childConfig{})
	h := newHost(t)
	cl := open(t, h, c, nil)

	cl.request(`"a-1"`, "tools/call", `{"name":"x","arguments":{"n":1.50},"_meta":{"progressToken":"tok","k":1}}`)
	req := p.expect(t, "tools/call")
	if string(req.ID) == `"a-1"` {
		t.Errorf("the shared child got the tunnel's own id %s", req.ID)
	}
	token := member(req.Params, "_meta", "progressToken")
	if token == "" || token == `"tok"` {
		t.Errorf("the shared child got progress token %q, want one of the Client's own", token)
	}
	if got := member(req.Params, "arguments"); got != `{"n":1.50}` {
		t.Errorf("the child got arguments %s, want the client's text as sent", got)
	}
	if got := member(req.Params, "_meta", "k"); got != "1" {
		t.Errorf("the child got _meta.k %q, want the client's other _meta kept", got)
	}
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`+token+`,"progress":1,"total":2}}`)
	p.reply(t, req.ID, `{"content":[],"isError":false}`)

	prog := cl.notification("notifications/progress")
	if !jsonEq(string(prog), `{"progressToken":"tok","progress":1,"total":2}`) {
		t.Errorf("progress %s, want the tunnel's token \"tok\"", prog)
	}
	if res := cl.response(`"a-1"`); !jsonEq(string(res), `{"content":[],"isError":false}`) {
		t.Errorf("result %s", res)
	}
	// An integer id and token keep their type.
	cl.request(`7`, "tools/call", `{"name":"x","_meta":{"progressToken":42}}`)
	req = p.expect(t, "tools/call")
	token = member(req.Params, "_meta", "progressToken")
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`+token+`,"progress":5}}`)
	p.reply(t, req.ID, `{}`)
	if prog := cl.notification("notifications/progress"); !jsonEq(string(prog), `{"progressToken":42,"progress":5}`) {
		t.Errorf("progress %s, want the tunnel's integer token 42", prog)
	}
	cl.response(`7`)

	if got := h.methods(); strings.Join(got, ",") != "tools/call,tools/call" {
		t.Errorf("the door admitted %v, want each tools/call once", got)
	}
	if err := cl.halfClose(context.Background()); err != nil {
		t.Fatalf("HalfClose: %v", err)
	}
	if recs := h.recorded(); len(recs) != 2 || recs[0].err != nil {
		t.Errorf("audit records %v, want the two calls' outcomes", recs)
	}
}

// TestForwardPassesOnAPrivateChild: a private child is the client's own:
// the client's id and progress token reach it as sent, and its progress
// comes back under that token.
func TestForwardPassesOnAPrivateChild(t *testing.T) {
	c, p := startChild(t, childConfig{private: true})
	cl := open(t, newHost(t), c, nil)

	cl.request(`"a-1"`, "tools/call", `{"name":"x","_meta":{"progressToken":"tok"}}`)
	req := p.expect(t, "tools/call")
	if string(req.ID) != `"a-1"` || member(req.Params, "_meta", "progressToken") != `"tok"` {
		t.Fatalf("the private child got id %s and token %s, want the client's \"a-1\" and \"tok\"", req.ID, member(req.Params, "_meta", "progressToken"))
	}
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1}}`)
	p.reply(t, req.ID, `{"ok":true}`)
	if prog := cl.notification("notifications/progress"); !jsonEq(string(prog), `{"progressToken":"tok","progress":1}`) {
		t.Errorf("progress %s", prog)
	}
	if res := cl.response(`"a-1"`); string(res) != `{"ok":true}` {
		t.Errorf("result %s", res)
	}

	// A cancellation names the client's id, with the client's reason.
	cl.request(`9`, "tools/call", `{"name":"slow"}`)
	req = p.expect(t, "tools/call")
	if string(req.ID) != `9` {
		t.Fatalf("the private child got id %s, want 9", req.ID)
	}
	cl.notify("notifications/cancelled", `{"requestId":9,"reason":"host-reason-1"}`)
	n := p.expect(t, "notifications/cancelled")
	if !jsonEq(string(n.Params), `{"requestId":9,"reason":"host-reason-1"}`) {
		t.Errorf("the child got cancellation %s, want the client's id and reason", n.Params)
	}
}

// TestCancelledRequestGetsNoResponse: the client's notifications/cancelled
// reaches the child for the child's id with the client's reason (shared
// child: remapped), and the cancelled request gets no response, even if
// the child answers it late.
func TestCancelledRequestGetsNoResponse(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)

	cl.request(`"c-1"`, "tools/call", `{"name":"slow"}`)
	req := p.expect(t, "tools/call")
	cl.notify("notifications/cancelled", `{"requestId":"c-1","reason":"the user gave up"}`)
	n := p.expect(t, "notifications/cancelled")
	if member(n.Params, "requestId") != string(req.ID) || member(n.Params, "reason") != `"the user gave up"` {
		t.Errorf("the child got cancellation %s, want its id %s and the client's reason", n.Params, req.ID)
	}
	p.reply(t, req.ID, `{"late":true}`) // too late: dropped

	// A cancellation without a reason gives none.
	cl.request(`"c-2"`, "tools/call", `{"name":"slow"}`)
	req2 := p.expect(t, "tools/call")
	cl.notify("notifications/cancelled", `{"requestId":"c-2"}`)
	n = p.expect(t, "notifications/cancelled")
	if member(n.Params, "requestId") != string(req2.ID) {
		t.Errorf("the child got cancellation %s, want its id %s", n.Params, req2.ID)
	}
	// A cancellation of an unknown id changes nothing.
	cl.notify("notifications/cancelled", `{"requestId":"nobody"}`)

	if err := cl.halfClose(context.Background()); err != nil {
		t.Fatalf("HalfClose: %v", err)
	}
	for _, m := range cl.drained() {
		t.Errorf("the tunnel delivered %s for a cancelled request", m)
	}
}

// TestDoorRefusal: a request the door refuses gets the door's error in the
// tunnel and never reaches the child; the next one does.
func TestDoorRefusal(t *testing.T) {
	c, p := startChild(t, childConfig{})
	h := newHost(t)
	h.refuse["tools/call"] = jsonrpc.WithData(-32003, "Forbidden: tool x", map[string]string{"reason": "RULES"})
	cl := open(t, h, c, nil)

	cl.request(`1`, "tools/call", `{"name":"x"}`)
	e := cl.failure(`1`)
	if e.Code != -32003 || e.Message != "Forbidden: tool x" || !jsonEq(string(e.Data), `{"reason":"RULES"}`) {
		t.Errorf("refusal %+v, want the door's error with its data", e)
	}
	cl.request(`2`, "tools/list", `{}`)
	req := p.next(t) // the first thing the child sees
	if req.Method != "tools/list" {
		t.Fatalf("the child got %s, want tools/list: the refused call reached it", req)
	}
	p.reply(t, req.ID, `{"tools":[]}`)
	cl.response(`2`)
}

// TestBusyID: an id in flight is refused -32600 for a second request, and
// the first is still answered; the id is free again afterwards.
func TestBusyID(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)

	cl.request(`"x"`, "tools/call", `{"name":"slow"}`)
	req := p.expect(t, "tools/call")
	cl.request(`"x"`, "tools/call", `{"name":"again"}`)
	checkCode(t, "a second request under an id in flight", cl.failure(`"x"`), jsonrpc.CodeInvalidRequest, "already in use")
	p.reply(t, req.ID, `{"first":true}`)
	if res := cl.response(`"x"`); string(res) != `{"first":true}` {
		t.Errorf("result %s, want the first request's", res)
	}
	cl.request(`"x"`, "ping", "")
	req = p.expect(t, "ping")
	p.reply(t, req.ID, `{}`)
	cl.response(`"x"`)
}

// TestInFlightBound: a tunnel has at most 64 requests in flight; one more
// is answered -32603 with retryable and the limit, and does not reach the
// child. Once one ends, a new request is taken.
func TestInFlightBound(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)

	var ids []json.RawMessage
	for i := range maxTunnelCalls {
		cl.request(strconv.Itoa(i), "tools/call", `{"name":"slow"}`)
		ids = append(ids, p.expect(t, "tools/call").ID)
	}
	cl.request(`"one-more"`, "tools/call", `{"name":"slow"}`)
	e := cl.failure(`"one-more"`)
	checkCode(t, "the 65th request", e, jsonrpc.CodeInternalError, "Too many requests")
	if !jsonEq(string(e.Data), `{"retryable":true,"limit":64}`) {
		t.Errorf("data %s, want retryable and the limit", e.Data)
	}
	p.reply(t, ids[0], `{}`)
	cl.response(`0`)
	cl.request(`"next"`, "ping", "")
	req := p.expect(t, "ping") // not the refused one
	p.reply(t, req.ID, `{}`)
	cl.response(`"next"`)
	for _, id := range ids[1:] {
		p.reply(t, id, `{}`)
	}
	seen := map[string]bool{}
	for range ids[1:] {
		seen[string(cl.next().ID)] = true
	}
	if len(seen) != maxTunnelCalls-1 {
		t.Errorf("%d distinct responses, want %d", len(seen), maxTunnelCalls-1)
	}
}

// TestInvalidMessages: nothing that is not valid JSON-RPC reaches the
// child: an unreadable line is -32700 with a null id, a request with an
// invalid member is -32600 under its id, and a bad progress token -32602.
func TestInvalidMessages(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)

	cl.send(`{"jsonrpc":"2.0","id":1,`)
	m := cl.next()
	if string(m.ID) != "null" || m.Error == nil || m.Error.Code != jsonrpc.CodeParseError {
		t.Errorf("a truncated line: %s, want -32700 with a null id", m)
	}
	cl.send(`{"jsonrpc":"1.0","id":2,"method":"tools/list"}`)
	checkCode(t, "a request of another JSON-RPC version", cl.failure(`2`), jsonrpc.CodeInvalidRequest, "")
	cl.request(`3`, "tools/call", `{"name":"x","_meta":{"progressToken":{"no":1}}}`)
	checkCode(t, "an object as progress token", cl.failure(`3`), jsonrpc.CodeInvalidParams, "progressToken")
	// Insignificant whitespace is compacted before the child sees it.
	cl.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{ "name" : "x" }}`)
	req := p.expect(t, "tools/call")
	if string(req.Params) != `{"name":"x"}` {
		t.Errorf("the child got params %s, want them compacted", req.Params)
	}
	p.reply(t, req.ID, `{}`)
	cl.response(`4`)
	p.none(t)
}

// TestChildErrorsReachTheClient: the child's error answers reach the
// client as the child sent them.
func TestChildErrorsReachTheClient(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)
	cl.request(`1`, "tools/call", `{"name":"x"}`)
	req := p.expect(t, "tools/call")
	p.write(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32602,"message":"Unknown tool: x","data":{"tool":"x"}}}`)
	e := cl.failure(`1`)
	if e.Code != jsonrpc.CodeInvalidParams || e.Message != "Unknown tool: x" || !jsonEq(string(e.Data), `{"tool":"x"}`) {
		t.Errorf("error %+v, want the child's", e)
	}
}

// TestListsFiltered: a list result passes the host's rules (FilterList)
// before it reaches the client.
func TestListsFiltered(t *testing.T) {
	c, p := startChild(t, childConfig{})
	h := newHost(t)
	h.filter = func(method string, res json.RawMessage) json.RawMessage {
		if method == "tools/list" {
			return json.RawMessage(`{"tools":[{"name":"allowed"}]}`)
		}
		return res
	}
	cl := open(t, h, c, nil)
	cl.request(`1`, "tools/list", `{}`)
	req := p.expect(t, "tools/list")
	p.reply(t, req.ID, `{"tools":[{"name":"allowed"},{"name":"secret"}]}`)
	if res := cl.response(`1`); string(res) != `{"tools":[{"name":"allowed"}]}` {
		t.Errorf("tools/list result %s, want the filtered list", res)
	}
}
