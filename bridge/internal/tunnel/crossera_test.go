package tunnel

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// ---- A 2025 client in front of a 2026 child ----

// TestLegacyClientOnModernChild: a 2025 client's initialize, ping and
// logging/setLevel are answered by the bridge; its requests reach the
// 2026 child with the 2026 _meta made from its initialize and its level;
// the call's logs at that level and its progress reach it; results lose
// what 2026 added.
func TestLegacyClientOnModernChild(t *testing.T) {
	c, p := startChild(t, childConfig{version: protocol.Version20260728})
	cl := open(t, newHost(t), c, nil)

	cl.request(`0`, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"h","version":"2"}}`)
	res := cl.response(`0`)
	if member(res, "protocolVersion") != `"2025-06-18"` || member(res, "serverInfo") != serverInfo ||
		member(res, "instructions") != `"`+instructions+`"` || member(res, "capabilities", "tools") != `{}` {
		t.Errorf("initialize result %s, want the client's version and the child's state", res)
	}
	cl.notify("notifications/initialized", `{}`)
	cl.request(`1`, "ping", "")
	if res := cl.response(`1`); string(res) != `{}` {
		t.Errorf("ping %s", res)
	}
	cl.request(`2`, "logging/setLevel", `{"level":"warning"}`)
	cl.response(`2`)
	cl.request(`3`, "logging/setLevel", `{"level":"loud"}`)
	checkCode(t, "an unknown level", cl.failure(`3`), jsonrpc.CodeInvalidParams, "logging level")
	p.none(t) // nothing of the above reached the child

	cl.request(`4`, "tools/call", `{"name":"x","_meta":{"progressToken":"t4"}}`)
	req := p.expect(t, "tools/call")
	meta := json.RawMessage(member(req.Params, "_meta"))
	if member(meta, protocol.MetaClientCapabilities) != `{"sampling":{}}` || member(meta, protocol.MetaClientInfo) != `{"name":"h","version":"2"}` ||
		member(meta, protocol.MetaLogLevel) != `"warning"` || member(meta, protocol.MetaProtocolVersion) != `"2026-07-28"` {
		t.Errorf("the child got _meta %s, want the 2026 keys from the client's initialize and level", meta)
	}
	token := member(meta, "progressToken")
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"below"}}`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"above"}}`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`+token+`,"progress":1}}`)
	p.reply(t, req.ID, `{"resultType":"complete","content":[],"ttlMs":5,"cacheScope":"public","_meta":{"`+protocol.MetaServerInfo+`":{},"k":1}}`)
	if n := cl.notification("notifications/message"); member(n, "data") != `"above"` {
		t.Errorf("log %s, want the error only", n)
	}
	if n := cl.notification("notifications/progress"); member(n, "progressToken") != `"t4"` {
		t.Errorf("progress %s, want the client's token", n)
	}
	if res := cl.response(`4`); !jsonEq(string(res), `{"content":[],"_meta":{"k":1}}`) {
		t.Errorf("result %s, want it without resultType, cache hints and serverInfo", res)
	}
	// A result whose _meta held only serverInfo loses its _meta.
	cl.request(`5`, "tools/list", `{}`)
	req = p.expect(t, "tools/list")
	p.reply(t, req.ID, `{"resultType":"complete","tools":[],"_meta":{"`+protocol.MetaServerInfo+`":{}}}`)
	if res := cl.response(`5`); string(res) != `{"tools":[]}` {
		t.Errorf("result %s", res)
	}
	if cl.tun.CrossModern() || cl.tun.Asking() {
		// A 2025 client on a 2026 child is no 2026 client on a legacy one.
		t.Errorf("CrossModern = %v, Asking = %v; want both false", cl.tun.CrossModern(), cl.tun.Asking())
	}
}

// TestLegacyClientOnPinnedModernChild: when the bridge learnt nothing of
// a pinned 2026 child, the client's initialize is answered from a
// server/discover that carries the client's capabilities; an unknown
// version is answered with the newest legacy one.
func TestLegacyClientOnPinnedModernChild(t *testing.T) {
	c, p := startChild(t, childConfig{version: protocol.Version20260728, pinned: true})
	cl := open(t, newHost(t), c, nil)
	cl.request(`0`, "initialize", `{"protocolVersion":"1999-01-01","capabilities":{"roots":{}},"clientInfo":{"name":"h","version":"2"}}`)
	req := p.expect(t, "server/discover")
	if member(req.Params, "_meta", protocol.MetaClientCapabilities) != `{"roots":{}}` {
		t.Errorf("server/discover params %s, want the client's capabilities", req.Params)
	}
	p.reply(t, req.ID, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"prompts":{}},"instructions":"hi","_meta":{"`+protocol.MetaServerInfo+`":{"name":"d","version":"3"}}}`)
	res := cl.response(`0`)
	want := `{"protocolVersion":"2025-11-25","capabilities":{"prompts":{}},"serverInfo":{"name":"d","version":"3"},"instructions":"hi"}`
	if !jsonEq(string(res), want) {
		t.Errorf("initialize result %s, want %s", res, want)
	}
	// A failed server/discover fails the initialize.
	cl.request(`1`, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{}}`)
	req = p.expect(t, "server/discover")
	p.replyError(t, req.ID, jsonrpc.CodeInternalError, "down")
	checkCode(t, "initialize when server/discover fails", cl.failure(`1`), jsonrpc.CodeInternalError, "down")
}

// TestLegacyClientInputRounds: a 2026 child's input_required result
// becomes server requests into the tunnel; the call is repeated with
// their answers as inputResponses and the requestState echoed. A client
// that answers with an error fails the request.
func TestLegacyClientInputRounds(t *testing.T) {
	c, p := startChild(t, childConfig{version: protocol.Version20260728})
	cl := open(t, newHost(t), c, nil)
	cl.request(`0`, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{},"sampling":{}}}`)
	cl.response(`0`)

	cl.request(`1`, "tools/call", `{"name":"ask"}`)
	req := p.expect(t, "tools/call")
	p.reply(t, req.ID, `{"resultType":"input_required","inputRequests":{"q1":{"method":"elicitation/create","params":{"message":"name?"}},"q2":{"method":"sampling/createMessage","params":{"messages":[]}}},"requestState":"s1"}`)
	asked := map[string]msg{}
	for range 2 {
		m := cl.next()
		asked[m.Method] = m
	}
	e, s := asked["elicitation/create"], asked["sampling/createMessage"]
	if member(e.Params, "message") != `"name?"` || s.ID == nil || e.ID == nil {
		t.Fatalf("the tunnel was asked %v, want both input requests as requests", asked)
	}
	cl.send(`{"jsonrpc":"2.0","id":` + string(e.ID) + `,"result":{"action":"accept","content":{"n":"x"}}}`)
	cl.send(`{"jsonrpc":"2.0","id":` + string(s.ID) + `,"result":{"role":"assistant"}}`)
	retry := p.expect(t, "tools/call")
	if !jsonEq(member(retry.Params, "inputResponses"), `{"q1":{"action":"accept","content":{"n":"x"}},"q2":{"role":"assistant"}}`) ||
		member(retry.Params, "requestState") != `"s1"` || member(retry.Params, "name") != `"ask"` {
		t.Errorf("the retry's params %s, want the answers and the state echoed", retry.Params)
	}
	// A second round without a requestState: none is sent with the retry.
	p.reply(t, retry.ID, `{"resultType":"input_required","inputRequests":{"q3":{"method":"roots/list"}}}`)
	r := cl.next()
	if r.Method != "roots/list" {
		t.Fatalf("the tunnel got %s, want roots/list", r)
	}
	cl.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":{"roots":[]}}`)
	retry = p.expect(t, "tools/call")
	if member(retry.Params, "requestState") != "" || member(retry.Params, "inputResponses") != `{"q3":{"roots":[]}}` {
		t.Errorf("the second retry's params %s", retry.Params)
	}
	p.reply(t, retry.ID, `{"resultType":"complete","content":[{"type":"text","text":"done"}]}`)
	if res := cl.response(`1`); !jsonEq(string(res), `{"content":[{"type":"text","text":"done"}]}`) {
		t.Errorf("result %s", res)
	}

	// An error answer ends the request with it.
	cl.request(`2`, "tools/call", `{"name":"ask"}`)
	req = p.expect(t, "tools/call")
	p.reply(t, req.ID, `{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{}}},"requestState":"s"}`)
	q := cl.next()
	cl.send(`{"jsonrpc":"2.0","id":` + string(q.ID) + `,"error":{"code":-32600,"message":"no thanks"}}`)
	checkCode(t, "an input request the client refused", cl.failure(`2`), jsonrpc.CodeInvalidRequest, "no thanks")
}

// TestLegacyClientInputRoundsBounded: the bridge answers at most 16
// rounds of one request; a child that still asks then fails it.
func TestLegacyClientInputRoundsBounded(t *testing.T) {
	c, p := startChild(t, childConfig{version: protocol.Version20260728})
	cl := open(t, newHost(t), c, nil)
	cl.request(`0`, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"roots":{}}}`)
	cl.response(`0`)
	cl.request(`1`, "tools/call", `{"name":"greedy"}`)
	for round := 0; round <= maxInputRounds; round++ {
		req := p.expect(t, "tools/call")
		p.reply(t, req.ID, `{"resultType":"input_required","inputRequests":{"q":{"method":"roots/list","params":{}}},"requestState":"s`+strconv.Itoa(round)+`"}`)
		if round == maxInputRounds {
			break
		}
		q := cl.next()
		if q.Method != "roots/list" {
			t.Fatalf("round %d: the tunnel got %s, want roots/list", round, q)
		}
		cl.send(`{"jsonrpc":"2.0","id":` + string(q.ID) + `,"result":{"roots":[]}}`)
	}
	checkCode(t, "the 17th round", cl.failure(`1`), jsonrpc.CodeInternalError, "after 16 rounds")
}

// TestLegacyClientSubscribeOnModernChild: a 2025 client's
// resources/subscribe is a listen of its own on the 2026 child, whose
// updates reach it as notifications/resources/updated;
// resources/unsubscribe closes it.
func TestLegacyClientSubscribeOnModernChild(t *testing.T) {
	c, p := startChild(t, childConfig{version: protocol.Version20260728})
	cl := open(t, newHost(t), c, nil)
	cl.request(`0`, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{}}`)
	cl.response(`0`)

	cl.request(`1`, "resources/subscribe", `{"uri":"file:///a"}`)
	req := p.expect(t, "subscriptions/listen")
	if !jsonEq(member(req.Params, "notifications"), `{"resourceSubscriptions":["file:///a"]}`) {
		t.Errorf("listen params %s, want the URI alone", req.Params)
	}
	sid := `"` + protocol.MetaSubscriptionID + `":` + string(req.ID)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"resourceSubscriptions":["file:///a"]},"_meta":{`+sid+`}}}`)
	if res := cl.response(`1`); string(res) != `{}` {
		t.Errorf("subscribe result %s", res)
	}
	cl.request(`2`, "resources/subscribe", `{"uri":"file:///a"}`) // held
	cl.response(`2`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{`+sid+`}}}`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a","_meta":{`+sid+`}}}`)
	if n := cl.notification("notifications/resources/updated"); string(n) != `{"uri":"file:///a"}` {
		t.Errorf("update %s, want it without the listen's id (and no list change first)", n)
	}
	cl.request(`3`, "resources/unsubscribe", `{"uri":"file:///a"}`)
	cl.response(`3`)
	n := p.expect(t, "notifications/cancelled")
	if member(n.Params, "requestId") != string(req.ID) {
		t.Errorf("cancellation %s, want the listen's", n.Params)
	}
	cl.request(`4`, "resources/unsubscribe", `{"uri":"file:///a"}`) // no longer held
	cl.response(`4`)
	cl.request(`5`, "resources/subscribe", `{}`)
	checkCode(t, "subscribe without a uri", cl.failure(`5`), jsonrpc.CodeInvalidParams, "uri")

	// A listen the child refuses fails the subscribe.
	cl.request(`6`, "resources/subscribe", `{"uri":"file:///b"}`)
	req = p.expect(t, "subscriptions/listen")
	p.replyError(t, req.ID, jsonrpc.CodeInvalidParams, "no such resource")
	checkCode(t, "a refused subscribe", cl.failure(`6`), jsonrpc.CodeInvalidParams, "no such resource")

	// The tunnel's end closes a listen it holds.
	cl.request(`7`, "resources/subscribe", `{"uri":"file:///c"}`)
	req = p.expect(t, "subscriptions/listen")
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"resourceSubscriptions":["file:///c"]},"_meta":{"`+protocol.MetaSubscriptionID+`":`+string(req.ID)+`}}}`)
	cl.response(`7`)
	if err := cl.halfClose(context.Background()); err != nil {
		t.Fatalf("HalfClose: %v", err)
	}
	if n := p.expect(t, "notifications/cancelled"); member(n.Params, "requestId") != string(req.ID) {
		t.Errorf("cancellation %s at the tunnel's end, want the listen's", n.Params)
	}
}

// ---- A 2026 client in front of a legacy child ----

// TestModernClientValidation: a 2026 client's requests on a legacy child
// are checked as a 2026 server checks them, and none of the refused ones
// reaches the child.
func TestModernClientValidation(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)
	v, caps := `"`+protocol.MetaProtocolVersion+`":`, `"`+protocol.MetaClientCapabilities+`":`
	for i, tc := range []struct {
		method, params string
		code           int64
		part           string
	}{
		{"tools/list", `{"_meta":{` + v + `"2099-01-01",` + caps + `{}}}`, jsonrpc.CodeUnsupportedVersion, "2099-01-01"},
		{"tools/list", `{"_meta":{` + v + `5,` + caps + `{}}}`, jsonrpc.CodeInvalidParams, "must be a string"},
		{"tools/list", `{"_meta":{` + v + `"2026-07-28"}}`, jsonrpc.CodeInvalidParams, "clientCapabilities is required"},
		{"tools/list", `{"_meta":{` + v + `"2026-07-28",` + caps + `[]}}`, jsonrpc.CodeInvalidParams, "must be an object"},
		{"tools/list", `{}`, jsonrpc.CodeInvalidParams, protocol.NoMeta}, // the client showed 2026: unmarked is 2026
		{"tools/list", `[1]`, jsonrpc.CodeInvalidParams, "params must be an object"},
		{"tools/list", withMeta(`{}`, `"`+protocol.MetaLogLevel+`":"loud"`), jsonrpc.CodeInvalidParams, "logging level"},
		{"initialize", withMeta(`{}`, ""), jsonrpc.CodeMethodNotFound, "initialize"},
		{"ping", withMeta(`{}`, ""), jsonrpc.CodeMethodNotFound, "ping"},
		{"logging/setLevel", withMeta(`{"level":"info"}`, ""), jsonrpc.CodeMethodNotFound, "logging/setLevel"},
		{"resources/subscribe", withMeta(`{"uri":"a"}`, ""), jsonrpc.CodeMethodNotFound, "resources/subscribe"},
		{"elicitation/create", withMeta(`{}`, ""), jsonrpc.CodeInvalidRequest, "input_required"},
		{"subscriptions/listen", withMeta(`{}`, ""), jsonrpc.CodeInvalidParams, "notifications"},
	} {
		id := strconv.Itoa(i)
		cl.request(id, tc.method, tc.params)
		e := cl.failure(id)
		checkCode(t, tc.method+" "+tc.params, e, tc.code, tc.part)
		if tc.code == jsonrpc.CodeUnsupportedVersion &&
			!jsonEq(string(e.Data), `{"supported":["2026-07-28","2025-11-25"],"requested":"2099-01-01"}`) {
			t.Errorf("-32022 data %s, want 2026-07-28 and the child's version", e.Data)
		}
	}
	p.none(t)
	if !cl.tun.CrossModern() {
		t.Error("CrossModern = false for a 2026 client on a legacy child")
	}
}

// TestModernClientOnLegacyChild: server/discover is answered from the
// negotiation; requests reach the legacy child without the 2026 _meta
// keys; results are stamped as a 2026 server's; a missing resource's
// -32002 becomes -32602.
func TestModernClientOnLegacyChild(t *testing.T) {
	c, p := startChild(t, childConfig{})
	h := newHost(t)
	h.filter = func(method string, res json.RawMessage) json.RawMessage {
		if method == "tools/list" {
			return json.RawMessage(`{"tools":[]}`)
		}
		return res
	}
	cl := open(t, h, c, nil)

	cl.request(`1`, "server/discover", withMeta(`{}`, ""))
	res := cl.response(`1`)
	if !jsonEq(member(res, "supportedVersions"), `["2026-07-28","2025-11-25"]`) || member(res, "resultType") != `"complete"` ||
		member(res, "capabilities", "tasks") != "" || member(res, "capabilities", "tools") != `{}` ||
		member(res, "ttlMs") != "0" || member(res, "cacheScope") != `"private"` ||
		member(res, "instructions") != `"`+instructions+`"` || member(res, "_meta", protocol.MetaServerInfo) != serverInfo {
		t.Errorf("server/discover %s, want the negotiation as a 2026 server states it", res)
	}

	cl.request(`2`, "tools/list", withMeta(`{"cursor":"c"}`, `"k":1,"progressToken":9`))
	req := p.expect(t, "tools/list")
	meta := json.RawMessage(member(req.Params, "_meta"))
	if member(req.Params, "cursor") != `"c"` || member(meta, "k") != "1" || member(meta, protocol.MetaProtocolVersion) != "" ||
		member(meta, protocol.MetaClientCapabilities) != "" || member(meta, protocol.MetaClientInfo) != "" {
		t.Errorf("the legacy child got %s, want the params without the 2026 _meta keys", req.Params)
	}
	p.reply(t, req.ID, `{"tools":[{"name":"hidden"}]}`)
	res = cl.response(`2`)
	want := `{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"` + protocol.MetaServerInfo + `":` + serverInfo + `}}`
	if !jsonEq(string(res), want) {
		t.Errorf("tools/list %s, want the filtered list stamped %s", res, want)
	}

	// Without other _meta keys the child gets no _meta at all; a result
	// that is not cacheable gets no cache hints.
	cl.request(`3`, "completion/complete", withMeta(`{"ref":{}}`, ""))
	req = p.expect(t, "completion/complete")
	if string(req.Params) != `{"ref":{}}` {
		t.Errorf("the legacy child got %s, want the params without _meta", req.Params)
	}
	p.reply(t, req.ID, `{"completion":{"values":[]},"_meta":{"mine":true}}`)
	res = cl.response(`3`)
	if member(res, "ttlMs") != "" || member(res, "resultType") != `"complete"` || member(res, "_meta", "mine") != "true" ||
		member(res, "_meta", protocol.MetaServerInfo) != serverInfo {
		t.Errorf("completion/complete %s", res)
	}

	// A missing resource is -32602 in 2026.
	cl.request(`4`, "resources/read", withMeta(`{"uri":"file:///none"}`, ""))
	req = p.expect(t, "resources/read")
	p.write(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"file:///none"}}}`)
	e := cl.failure(`4`)
	if e.Code != jsonrpc.CodeInvalidParams || e.Message != "Resource not found" || !jsonEq(string(e.Data), `{"uri":"file:///none"}`) {
		t.Errorf("a missing resource %+v, want -32602 with the child's message and data", e)
	}
	cl.request(`5`, "prompts/list", withMeta(`{}`, ""))
	req = p.expect(t, "prompts/list")
	p.replyError(t, req.ID, jsonrpc.CodeResourceNotFound, "odd")
	checkCode(t, "-32002 of a request that asks nothing", cl.failure(`5`), jsonrpc.CodeInvalidParams, "odd")
}

// TestModernClientLogLevel: a 2026 request's logLevel holds the legacy
// child at that level for the call and relays the call's logs at or
// above it; without one the client gets none.
func TestModernClientLogLevel(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)
	levels := make(chan string, 4)
	p.handle("logging/setLevel", func(m msg) string {
		levels <- member(m.Params, "level")
		return result(m.ID, `{}`)
	})
	cl.request(`1`, "tools/list", withMeta(`{}`, `"`+protocol.MetaLogLevel+`":"info","progressToken":"pt"`))
	req := p.expect(t, "tools/list")
	select {
	case l := <-levels:
		if l != `"info"` {
			t.Errorf("the child was set to %s, want info", l)
		}
	default:
		t.Error("the child got no logging/setLevel before the call")
	}
	token := member(req.Params, "_meta", "progressToken")
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"below"}}`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"at"}}`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`+token+`,"progress":1}}`)
	p.reply(t, req.ID, `{"tools":[]}`)
	if n := cl.notification("notifications/message"); member(n, "data") != `"at"` {
		t.Errorf("log %s, want the info one only", n)
	}
	if n := cl.notification("notifications/progress"); member(n, "progressToken") != `"pt"` {
		t.Errorf("progress %s", n)
	}
	cl.response(`1`)

	cl.request(`2`, "tools/list", withMeta(`{}`, ""))
	req = p.expect(t, "tools/list")
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"emergency","data":"unasked"}}`)
	p.reply(t, req.ID, `{"tools":[]}`)
	if m := cl.next(); string(m.ID) != `2` {
		t.Errorf("the tunnel delivered %s, want the result and no log the request did not ask for", m)
	}
}

// answerRound reads an input_required result for id and returns its input
// requests and requestState.
func answerRound(t *testing.T, cl *client, id string) (map[string]json.RawMessage, string) {
	t.Helper()
	res := cl.response(id)
	if member(res, "resultType") != `"input_required"` {
		t.Fatalf("result %s, want input_required", res)
	}
	var reqs map[string]json.RawMessage
	if err := json.Unmarshal([]byte(member(res, "inputRequests")), &reqs); err != nil {
		t.Fatalf("inputRequests of %s: %v", res, err)
	}
	var state string
	json.Unmarshal([]byte(member(res, "requestState")), &state)
	if !strings.HasPrefix(state, "rs-") {
		t.Fatalf("requestState %q, want a bridge-minted one", state)
	}
	return reqs, state
}

// TestModernClientInputRound: the legacy child's elicitation during a
// 2026 tools/call ends that request with input_required; the client's
// retry with the same params, the answer and the requestState hands the
// answer to the child and gets the call's result. A retry with other
// params, or an unknown state, is -32602; a requestState is good once.
func TestModernClientInputRound(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)

	params := `{"name":"ask","arguments":{"a":1}}`
	cl.request(`1`, "tools/call", withMeta(params, ""))
	req := p.expect(t, "tools/call")
	if !cl.tun.Asking() {
		t.Error("Asking = false while a 2026 tools/call is in flight")
	}
	p.write(t, `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"sure?"}}`)
	reqs, state := answerRound(t, cl, `1`)
	if len(reqs) != 1 || !jsonEq(string(reqs["input-1"]), `{"method":"elicitation/create","params":{"message":"sure?"}}`) {
		t.Fatalf("inputRequests %v, want the child's elicitation as input-1", reqs)
	}
	if cl.tun.Asking() {
		t.Error("Asking = true while the only call is parked")
	}

	retry := func(id, params, responses, state string) {
		p := params[:len(params)-1] + `,"inputResponses":` + responses + `,"requestState":"` + state + `"}`
		cl.request(id, "tools/call", withMeta(p, ""))
	}
	retry(`2`, `{"name":"ask","arguments":{"a":2}}`, `{"input-1":{"action":"accept"}}`, state)
	checkCode(t, "a retry with other params", cl.failure(`2`), jsonrpc.CodeInvalidParams, "requestState")
	retry(`3`, params, `{"input-1":{"action":"accept"}}`, "rs-unknown")
	checkCode(t, "an unknown requestState", cl.failure(`3`), jsonrpc.CodeInvalidParams, "requestState")

	retry(`4`, params, `{"input-1":{"action":"accept","content":{"ok":true}}}`, state)
	ans := p.next(t)
	if string(ans.ID) != `"e1"` || !jsonEq(string(ans.Result), `{"action":"accept","content":{"ok":true}}`) {
		t.Errorf("the child got %s, want the client's answer to its elicitation", ans)
	}
	p.reply(t, req.ID, `{"content":[]}`)
	if res := cl.response(`4`); !jsonEq(string(res), `{"content":[],"resultType":"complete","_meta":{"`+protocol.MetaServerInfo+`":`+serverInfo+`}}`) {
		t.Errorf("result %s, want the call's, stamped", res)
	}
	retry(`5`, params, `{"input-1":{"action":"accept"}}`, state)
	checkCode(t, "a used requestState", cl.failure(`5`), jsonrpc.CodeInvalidParams, "requestState")
}

// TestModernClientInputRoundPartialAnswers: two questions of the child
// are asked (together or in rounds of their own, as they arrive); a retry
// that answers only some gets the others asked again under a new state;
// every answer reaches the question it answers, and the last retry gets
// the call's result with the progress of its own token.
func TestModernClientInputRoundPartialAnswers(t *testing.T) {
	c, p := startChild(t, childConfig{caps: `{"tools":{}}`})
	cl := open(t, newHost(t), c, nil)
	params := `{"name":"two"}`
	cl.request(`1`, "tools/call", withMeta(params, `"progressToken":"p"`))
	req := p.expect(t, "tools/call")
	p.write(t, `{"jsonrpc":"2.0","id":"q1","method":"elicitation/create","params":{"n":1}}`+"\n"+
		`{"jsonrpc":"2.0","id":"q2","method":"elicitation/create","params":{"n":2}}`)
	answered := map[string]string{} // the child's question id: the n of its answer
	used := map[string]bool{}       // input request keys answered
	id, state := 1, ""
	for len(answered) < 2 {
		reqs, st := answerRound(t, cl, strconv.Itoa(id))
		if st == state {
			t.Errorf("round %d reuses requestState %s", id, st)
		}
		state = st
		key := ""
		for k := range reqs {
			if used[k] {
				t.Errorf("round %d asks %s again, which was answered", id, k)
			}
			if key == "" || k < key {
				key = k
			}
		}
		used[key] = true
		n := member(reqs[key], "params", "n")
		id++
		cl.request(strconv.Itoa(id), "tools/call", withMeta(params[:len(params)-1]+
			`,"inputResponses":{"`+key+`":{"action":"accept","content":{"n":`+n+`}}},"requestState":"`+state+`"}`, `"progressToken":"p`+strconv.Itoa(id)+`"`))
		ans := p.next(t)
		answered[string(ans.ID)] = member(ans.Result, "content", "n")
	}
	if answered[`"q1"`] != "1" || answered[`"q2"`] != "2" {
		t.Errorf("the child's questions got %v, want each its own answer", answered)
	}
	token := member(req.Params, "_meta", "progressToken")
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`+token+`,"progress":1}}`)
	p.reply(t, req.ID, `{"content":[]}`)
	if n := cl.notification("notifications/progress"); member(n, "progressToken") != `"p`+strconv.Itoa(id)+`"` {
		t.Errorf("progress %s, want the last retry's token", n)
	}
	if res := cl.response(strconv.Itoa(id)); member(res, "resultType") != `"complete"` {
		t.Errorf("result %s", res)
	}
}

// TestModernClientMissingCapability: a question the request did not
// declare the capability for ends it with -32021 naming the capability,
// the child's question gets an error and its call is cancelled.
func TestModernClientMissingCapability(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)
	noCaps := `{"name":"x","_meta":{"` + protocol.MetaProtocolVersion + `":"2026-07-28","` + protocol.MetaClientCapabilities + `":{}}}`
	cl.request(`1`, "prompts/get", noCaps)
	req := p.expect(t, "prompts/get")
	p.write(t, `{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}`)
	e := cl.failure(`1`)
	if e.Code != jsonrpc.CodeMissingCapability || !jsonEq(string(e.Data), `{"requiredCapabilities":{"sampling":{}}}`) {
		t.Errorf("error %+v, want -32021 naming sampling", e)
	}
	seen := map[string]msg{}
	for range 2 {
		m := p.next(t)
		seen[m.Method] = m
	}
	if ans := seen[""]; string(ans.ID) != `"s1"` || ans.Error == nil || ans.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Errorf("the child's question got %s, want -32600", ans)
	}
	if n := seen["notifications/cancelled"]; member(n.Params, "requestId") != string(req.ID) {
		t.Errorf("the child got %v, want its prompts/get cancelled", seen)
	}
}

// TestModernClientParkedRoundExpires: a parked round not retried within
// the server request timeout ends: the child's question gets -32603 and
// its call is cancelled; the state is no longer good.
func TestModernClientParkedRoundExpires(t *testing.T) {
	c, p := startChild(t, childConfig{timeout: 200 * time.Millisecond})
	cl := open(t, newHost(t), c, nil)
	params := `{"uri":"file:///r"}`
	cl.request(`1`, "resources/read", withMeta(params, ""))
	req := p.expect(t, "resources/read")
	p.write(t, `{"jsonrpc":"2.0","id":"r1","method":"elicitation/create","params":{}}`)
	_, state := answerRound(t, cl, `1`)
	seen := map[string]msg{}
	for range 2 {
		m := p.next(t)
		seen[m.Method] = m
	}
	if ans := seen[""]; string(ans.ID) != `"r1"` || ans.Error == nil || ans.Error.Code != jsonrpc.CodeInternalError {
		t.Errorf("the child's question got %s, want -32603", ans)
	}
	if n := seen["notifications/cancelled"]; member(n.Params, "requestId") != string(req.ID) {
		t.Errorf("the child got %v, want its resources/read cancelled", seen)
	}
	cl.request(`2`, "resources/read", withMeta(params[:len(params)-1]+`,"inputResponses":{"input-1":{}},"requestState":"`+state+`"}`, ""))
	checkCode(t, "an expired requestState", cl.failure(`2`), jsonrpc.CodeInvalidParams, "requestState")
}

// TestModernClientParkedRoundEndsWithTheTunnel: the tunnel's end cancels
// its parked calls on the child.
func TestModernClientParkedRoundEndsWithTheTunnel(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)
	cl.request(`1`, "tools/call", withMeta(`{"name":"x"}`, ""))
	req := p.expect(t, "tools/call")
	p.write(t, `{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{}}`)
	answerRound(t, cl, `1`)
	if err := cl.halfClose(context.Background()); err != nil {
		t.Fatalf("HalfClose: %v", err)
	}
	seen := map[string]msg{}
	for range 2 {
		m := p.next(t)
		seen[m.Method] = m
	}
	if ans := seen[""]; string(ans.ID) != `"e"` || ans.Error == nil {
		t.Errorf("the child's question got %s, want an error", ans)
	}
	if n := seen["notifications/cancelled"]; member(n.Params, "requestId") != string(req.ID) {
		t.Errorf("the child got %v, want its call cancelled", seen)
	}
}

// TestModernClientCallCancelled: the client's cancellation of a 2026
// request waiting for the child's call cancels that call on the child.
func TestModernClientCallCancelled(t *testing.T) {
	c, p := startChild(t, childConfig{})
	cl := open(t, newHost(t), c, nil)
	cl.request(`1`, "tools/call", withMeta(`{"name":"x"}`, ""))
	req := p.expect(t, "tools/call")
	cl.notify("notifications/cancelled", `{"requestId":1,"reason":"bye"}`)
	if n := p.expect(t, "notifications/cancelled"); member(n.Params, "requestId") != string(req.ID) {
		t.Errorf("cancellation %s, want the call's", n.Params)
	}
	// A question the child sends now finds no call to take it.
	p.write(t, `{"jsonrpc":"2.0","id":"late","method":"elicitation/create","params":{}}`)
	if ans := p.next(t); string(ans.ID) != `"late"` || ans.Error == nil {
		t.Errorf("the child's late question got %s, want an error", ans)
	}
	if err := cl.halfClose(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, m := range cl.drained() {
		t.Errorf("the tunnel delivered %s for a cancelled request", m)
	}
}

// TestModernClientListenOnLegacyChild: a 2026 client's
// subscriptions/listen on a legacy child is acknowledged with the list
// changes the child declares and the URIs it let the bridge subscribe;
// matching notifications reach it tagged with the listen's id; the
// client's cancellation ends it and releases the URIs.
func TestModernClientListenOnLegacyChild(t *testing.T) {
	c, p := startChild(t, childConfig{caps: `{"tools":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true}}`})
	cl := open(t, newHost(t), c, nil)
	sid := protocol.MetaSubscriptionID

	cl.request(`"L"`, "subscriptions/listen", withMeta(`{"notifications":{"toolsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["file:///a","file:///a"]}}`, ""))
	sub := p.expect(t, "resources/subscribe")
	if member(sub.Params, "uri") != `"file:///a"` {
		t.Errorf("subscribe %s", sub.Params)
	}
	p.reply(t, sub.ID, `{}`)
	ack := cl.notification("notifications/subscriptions/acknowledged")
	if !jsonEq(string(ack), `{"notifications":{"resourcesListChanged":true,"resourceSubscriptions":["file:///a"]},"_meta":{"`+sid+`":"L"}}`) {
		t.Errorf("acknowledgement %s, want what the child declares and the URI it took", ack)
	}
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"x"}}`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///b"}}`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a/1","_meta":{"k":1}}}`)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`)
	if n := cl.notification("notifications/resources/updated"); !jsonEq(string(n), `{"uri":"file:///a/1","_meta":{"k":1,"`+sid+`":"L"}}`) {
		t.Errorf("update %s, want file:///a/1's tagged, and nothing the listen did not ask for before it", n)
	}
	if n := cl.notification("notifications/resources/list_changed"); !jsonEq(string(n), `{"_meta":{"`+sid+`":"L"}}`) {
		t.Errorf("list change %s", n)
	}
	cl.notify("notifications/cancelled", `{"requestId":"L"}`)
	unsub := p.expect(t, "resources/unsubscribe")
	if member(unsub.Params, "uri") != `"file:///a"` {
		t.Errorf("unsubscribe %s", unsub.Params)
	}
	p.reply(t, unsub.ID, `{}`)

	// A listen open at the tunnel's end ends with it.
	cl.request(`2`, "subscriptions/listen", withMeta(`{"notifications":{"promptsListChanged":true}}`, ""))
	if ack := cl.notification("notifications/subscriptions/acknowledged"); member(ack, "notifications") != `{"promptsListChanged":true}` {
		t.Errorf("acknowledgement %s", ack)
	}
	if err := cl.halfClose(context.Background()); err != nil {
		t.Fatalf("HalfClose: %v", err)
	}
	for _, m := range cl.drained() {
		t.Errorf("the tunnel delivered %s: a listen gets no response", m)
	}
}

// TestLegacyResult: a 2026 result as a 2025 client gets it: the 2026
// members and the server's _meta key gone, every other member kept byte
// for byte and in order, an emptied _meta gone, a _meta that is not an
// object kept as it is.
func TestLegacyResult(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"resultType":"complete","content":[{"type":"text","text":"a"}],"ttlMs":5,"cacheScope":"public","isError":false}`,
			`{"content":[{"type":"text","text":"a"}],"isError":false}`},
		{`{"content":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s"},"k":1}}`, `{"content":[],"_meta":{"k":1}}`},
		{`{"_meta":{"io.modelcontextprotocol/serverInfo":{}},"content":[]}`, `{"content":[]}`},
		{`{"_meta":"odd","x":1}`, `{"_meta":"odd","x":1}`},
		{`{"ttlMs":1,"ttlMs":2,"x":{"ttlMs":3}}`, `{"x":{"ttlMs":3}}`},
		{`{}`, `{}`},
		{`[1]`, `{}`},
	} {
		if got := string(legacyResult(json.RawMessage(tt.in))); got != tt.want {
			t.Errorf("legacyResult(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
