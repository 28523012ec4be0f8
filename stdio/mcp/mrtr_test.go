package mcp_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
)

// Tests of Request.Ask in both eras: input_required round trips on
// 2026-07-28, server-to-client requests on 2025 connections.

const (
	elicitCaps = `"_meta":{` + v26 + `,"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	accept     = `{"action":"accept","content":{"name":"Ada"}}`
)

// roundTrip calls a tool and returns its input_required result.
func inputRequired(t *testing.T, p *pipe, id int, params string) json.RawMessage {
	t.Helper()
	res := wantResult(t, p.call(request(id, "tools/call", params)), jsonText(id))
	if field(res, "resultType") != `"input_required"` {
		t.Fatalf("tools/call %s = %s, want input_required", params, res)
	}
	return res
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestAskMultipleInputsAndCapabilities(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	// Only sampling declared: the tool needs all three, so -32021 names the
	// two that are missing.
	m := wantError(t, p.call(request(1, "tools/call", `{"name":"multi","_meta":{`+v26+`,"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}`)), "1", -32021)
	if got := string(m.Error.Data); got != `{"requiredCapabilities":{"roots":{},"elicitation":{"form":{}}}}` {
		t.Errorf("-32021 data = %s", got)
	}
	res := inputRequired(t, p, 2, `{"name":"multi",`+meta26All+`}`)
	var ir struct {
		InputRequests map[string]struct {
			Method string
			Params json.RawMessage
		}
		RequestState string
	}
	if err := json.Unmarshal(res, &ir); err != nil {
		t.Fatal(err)
	}
	methods := map[string]string{}
	for k, q := range ir.InputRequests {
		methods[k] = q.Method
	}
	if want := map[string]string{"user_name": "elicitation/create", "greeting": "sampling/createMessage", "client_roots": "roots/list"}; jsonText(methods) != jsonText(want) {
		t.Errorf("inputRequests methods = %v, want %v", methods, want)
	}
	if got := string(ir.InputRequests["client_roots"].Params); got != `{}` {
		t.Errorf("roots/list params = %s, want {}", got)
	}
	retry := `{"name":"multi",` + meta26All + `,"requestState":"` + ir.RequestState + `","inputResponses":{` +
		`"user_name":` + accept + `,"greeting":{"role":"assistant","content":{"type":"text","text":"Hi"},"model":"m"},` +
		`"client_roots":{"roots":[{"uri":"file:///r"}]},"unrelated":{"action":"accept"}}}`
	res = wantResult(t, p.call(request(3, "tools/call", retry)), "3")
	if field(res, "content") != `[{"type":"text","text":"3 answers"}]` {
		t.Errorf("retry result = %s", res)
	}
	p.eof()
}

func TestAskMultiRoundCarriesEarlierAnswers(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	r1 := inputRequired(t, p, 1, `{"name":"rounds",`+elicitCaps+`}`)
	if !strings.Contains(field(r1, "inputRequests"), `"step1"`) {
		t.Fatalf("round 1 = %s, want step1", r1)
	}
	s1 := field(r1, "requestState")
	r2 := inputRequired(t, p, 2, `{"name":"rounds",`+elicitCaps+`,"requestState":`+s1+`,"inputResponses":{"step1":{"action":"accept","content":{"name":"Ada"}}}}`)
	s2 := field(r2, "requestState")
	if !strings.Contains(field(r2, "inputRequests"), `"step2"`) || strings.Contains(field(r2, "inputRequests"), "step1") || s2 == s1 {
		t.Fatalf("round 2 = %s, want only step2 and a new requestState", r2)
	}
	// Round 3 sends only step2's answer: step1's comes back from the state.
	res := wantResult(t, p.call(request(3, "tools/call", `{"name":"rounds",`+elicitCaps+`,"requestState":`+s2+`,"inputResponses":{"step2":{"action":"accept","content":{"color":"blue"}}}}`)), "3")
	if got := field(res, "content"); got != `[{"type":"text","text":"{\"name\":\"Ada\"} {\"color\":\"blue\"}"}]` {
		t.Errorf("round 3 content = %s", got)
	}
	p.eof()
}

func TestAskRequestStateIntegrity(t *testing.T) {
	key := []byte("a secret shared by two servers")
	p := serve(t, newTestServer(t, mcp.Config{RequestStateKey: key}))
	r1 := inputRequired(t, p, 1, `{"name":"stateful",`+elicitCaps+`}`)
	state, _ := rawjson.StringValue(json.RawMessage(field(r1, "requestState")))
	answer := `"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}}`
	retry := func(id int, name, args, state string) string {
		return p.call(request(id, "tools/call", `{"name":"`+name+`"`+args+`,`+elicitCaps+`,`+answer+`,"requestState":"`+state+`"}`))
	}
	flipped := []byte(state)
	flipped[len(flipped)/2] ^= 1
	for i, tc := range []struct{ name, args, state string }{
		{"stateful", "", state + "-TAMPERED"},
		{"stateful", "", string(flipped)},
		{"stateful", "", ""},
		{"stateful", `,"arguments":{"other":1}`, state}, // bound to the params
		{"elicit", "", state},                           // and to the tool
	} {
		m := wantError(t, retry(10+i, tc.name, tc.args, tc.state), jsonText(10+i), -32602)
		if !strings.Contains(m.Error.Message, "requestState") {
			t.Errorf("case %d: message %q does not name requestState", i, m.Error.Message)
		}
	}
	// The genuine state passes, and the handler finds what it stored.
	res := wantResult(t, retry(2, "stateful", "", state), "2")
	if field(res, "content") != `[{"type":"text","text":"state-ok"}]` {
		t.Errorf("retry = %s, want state-ok", res)
	}
	// Re-encoded params (other key order, spacing) still match the binding.
	res = wantResult(t, p.call(request(3, "tools/call", `{ "requestState" : "`+state+`", `+answer+`, `+elicitCaps+`, "arguments" : { }, "name":"stateful"}`)), "3")
	if field(res, "content") != `[{"type":"text","text":"state-ok"}]` {
		t.Errorf("re-encoded retry = %s, want state-ok", res)
	}
	p.eof()

	// Another server with the same key accepts the state; one with another
	// key does not.
	same := serve(t, newTestServer(t, mcp.Config{RequestStateKey: key}))
	wantResult(t, same.call(request(1, "tools/call", `{"name":"stateful",`+elicitCaps+`,`+answer+`,"requestState":"`+state+`"}`)), "1")
	same.eof()
	other := serve(t, newTestServer(t, mcp.Config{}))
	wantError(t, other.call(request(1, "tools/call", `{"name":"stateful",`+elicitCaps+`,`+answer+`,"requestState":"`+state+`"}`)), "1", -32602)
	other.eof()
}

func TestAskRequestStateExpires(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{RequestStateTTL: 1})) // 1 ns: expired when issued
	r1 := inputRequired(t, p, 1, `{"name":"stateful",`+elicitCaps+`}`)
	m := wantError(t, p.call(request(2, "tools/call", `{"name":"stateful",`+elicitCaps+`,"requestState":`+field(r1, "requestState")+`}`)), "2", -32602)
	if !strings.Contains(m.Error.Message, "expired") {
		t.Errorf("message = %q, want expired", m.Error.Message)
	}
	p.eof()
}

func TestAskInputResponsesValidation(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	for i, tc := range []struct {
		responses string
		code      int64 // 0: input_required again
	}{
		{`{"wrong_key":` + accept + `}`, 0},
		{`{"user_name":12345}`, -32602},
		{`null`, -32602},
		{`{"user_name":{"action":"maybe"}}`, -32602},
	} {
		line := p.call(request(i, "tools/call", `{"name":"elicit",`+elicitCaps+`,"inputResponses":`+tc.responses+`}`))
		if tc.code == 0 {
			if res := wantResult(t, line, jsonText(i)); field(res, "resultType") != `"input_required"` {
				t.Errorf("inputResponses %s = %s, want input_required again", tc.responses, line)
			}
			continue
		}
		wantError(t, line, jsonText(i), tc.code)
	}
	// Answers without any requestState are accepted: they are the client's
	// own input either way.
	res := wantResult(t, p.call(request(9, "tools/call", `{"name":"elicit",`+elicitCaps+`,"inputResponses":{"user_name":`+accept+`,"extra":{"action":"accept"}}}`)), "9")
	if field(res, "resultType") != `"complete"` {
		t.Errorf("result = %s, want complete", res)
	}
	p.eof()
}

func TestAskPromptsGet(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	res := wantResult(t, p.call(request(1, "prompts/get", `{"name":"asking",`+elicitCaps+`}`)), "1")
	if field(res, "resultType") != `"input_required"` || !strings.Contains(field(res, "inputRequests"), "user_context") {
		t.Fatalf("prompts/get = %s, want input_required for user_context", res)
	}
	res = wantResult(t, p.call(request(2, "prompts/get", `{"name":"asking",`+elicitCaps+`,"requestState":`+field(res, "requestState")+
		`,"inputResponses":{"user_context":{"action":"accept","content":{"context":"c"}}}}`)), "2")
	if field(res, "resultType") != `"complete"` || field(res, "messages") == "" {
		t.Errorf("retry = %s, want a complete GetPromptResult", res)
	}
	// Neither list method ever answers input_required, and they ignore
	// MRTR params.
	res = wantResult(t, p.call(request(3, "tools/list", `{`+elicitCaps+`,"inputResponses":{}}`)), "3")
	if field(res, "resultType") != `"complete"` {
		t.Errorf("tools/list = %s", res)
	}
	p.eof()
}

// On a 2025 connection Ask sends real server-to-client requests through
// the Peer, all three at once (none is answered before the three are
// read), adapted to the version.
func TestAskLegacyServerRequests(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			p := serve(t, newTestServer(t, mcp.Config{}))
			p.initialize(version, `{"elicitation":{},"sampling":{},"roots":{}}`)
			p.send(request(1, "tools/call", `{"name":"multi"}`))
			var methods []string
			var answers []string
			for range 3 {
				m := decode(t, p.next())
				methods = append(methods, m.Method)
				var answer string
				switch m.Method {
				case "elicitation/create":
					if strings.Contains(string(m.Params), `"mode"`) {
						t.Errorf("elicitation params %s carry a mode", m.Params)
					}
					answer = accept
				case "sampling/createMessage":
					answer = `{"role":"assistant","content":{"type":"text","text":"Hi"},"model":"m"}`
				case "roots/list":
					answer = `{"roots":[]}`
				}
				answers = append(answers, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+answer+`}`)
			}
			for _, a := range answers {
				p.send(a)
			}
			slices.Sort(methods)
			if got := strings.Join(methods, ","); got != "elicitation/create,roots/list,sampling/createMessage" {
				t.Errorf("server requests = %s, want one of each", got)
			}
			res := wantResult(t, p.next(), "1")
			if field(res, "content") != `[{"type":"text","text":"3 answers"}]` {
				t.Errorf("result = %s", res)
			}
			// MRTR params are refused on a legacy session.
			wantError(t, p.call(request(2, "tools/call", `{"name":"elicit","inputResponses":{}}`)), "2", -32602)
			p.eof()
		})
	}
}

func TestAskLegacyMissingCapability(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	p.initialize("2025-11-25", `{"sampling":{}}`)
	m := wantError(t, p.call(request(1, "tools/call", `{"name":"elicit"}`)), "1", -32602)
	if got := string(m.Error.Data); got != `{"requiredCapabilities":{"elicitation":{"form":{}}}}` {
		t.Errorf("data = %s", got)
	}
	// The client answering with an error fails the tool, not the protocol.
	p.initialize("2025-11-25", `{"elicitation":{}}`)
	p.send(request(2, "tools/call", `{"name":"elicit"}`))
	ask := decode(t, p.next())
	p.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"error":{"code":-32601,"message":"no"}}`)
	res := wantResult(t, p.next(), "2")
	if field(res, "isError") != "true" {
		t.Errorf("result = %s, want an isError result", res)
	}
	p.eof()
}

// Cancelling a legacy tools/call while its question is pending ends Ask
// with the handler's ctx: no response is written, and the client's late
// answer is dropped.
func TestAskLegacyCancelled(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	p.initialize("2025-11-25", `{"elicitation":{}}`)
	p.send(request(1, "tools/call", `{"name":"elicit"}`))
	ask := decode(t, p.next())
	if ask.Method != "elicitation/create" {
		t.Fatalf("got %+v, want elicitation/create", ask)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	p.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":` + accept + `}`)
	if got := p.call(request(2, "ping", "")); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("got %s, want only ping's reply", got)
	}
	if rest := p.eof(); len(rest) != 0 {
		t.Errorf("after EOF: %q, want nothing", rest)
	}
}
