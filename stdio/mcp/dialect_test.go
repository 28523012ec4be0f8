package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
)

// The dialect scenarios (docs/stdio.md, scenarios 68-75), each over real
// pipes with server.Serve.

// Scenario 68: for each legacy version, initialize echoes it, ping is {},
// tools/list and tools/call carry none of the 2026 fields, and
// notifications/initialized gets no reply.
func TestScenario68LegacyHandshake(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			p := serve(t, newTestServer(t, mcp.Config{}))
			res := p.initialize(version, `{}`)
			if got := field(res, "protocolVersion"); got != `"`+version+`"` {
				t.Errorf("initialize protocolVersion = %s, want %q", got, version)
			}
			if got := field(res, "serverInfo"); got != serverInf {
				t.Errorf("initialize serverInfo = %s, want %s", got, serverInf)
			}
			// The initialized notification above got no reply: the next
			// line answers ping.
			if got := p.call(request(1, "ping", "")); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
				t.Errorf("ping = %s, want {}", got)
			}
			for id, line := range map[string]string{
				"2": request(2, "tools/list", `{}`),
				"3": request(3, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`),
			} {
				res := wantResult(t, p.call(line), id)
				for _, key := range []string{"resultType", "ttlMs", "cacheScope", "_meta"} {
					if got := field(res, key); got != "" {
						t.Errorf("%s result has %s = %s; legacy results carry none of the 2026 fields", line, key, got)
					}
				}
			}
			p.eof()
		})
	}
}

// Scenario 69: initialize proposing 2024-11-05 is counter-offered
// 2025-11-25; a repeated initialize renegotiates; legacy progress and
// cancellation work.
func TestScenario69LegacyNegotiationProgressCancel(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	if got := field(p.initialize("2024-11-05", `{}`), "protocolVersion"); got != `"2025-11-25"` {
		t.Errorf("initialize 2024-11-05 = %s, want the counter-offer 2025-11-25", got)
	}
	if got := field(p.initialize("2025-06-18", `{}`), "protocolVersion"); got != `"2025-06-18"` {
		t.Errorf("repeated initialize 2025-06-18 = %s, want 2025-06-18", got)
	}
	// The session now runs at 2025-06-18: a request restating it is legacy,
	// one naming 2025-11-25 conflicts.
	wantResult(t, p.call(request(1, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}`)), "1")
	wantError(t, p.call(request(2, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}`)), "2", -32602)

	p.send(request(3, "tools/call", `{"name":"progress","_meta":{"progressToken":"p1"}}`))
	for _, want := range []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":0,"total":100}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":50,"total":100}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":100,"total":100}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}]}}`,
	} {
		if got := p.next(); got != want {
			t.Errorf("got %s\nwant %s", got, want)
		}
	}

	p.send(request(4, "tools/call", `{"name":"park","arguments":{"id":4}}`))
	// A cancellation that overtakes the handler's start means it never
	// runs; wait until it does, to see its ctx end.
	select {
	case <-fixtureEvents.started:
	case <-time.After(waitLimit):
		t.Fatal("the park tool did not start")
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"user"}}`)
	select {
	case <-fixtureEvents.cancelled:
	case <-time.After(waitLimit):
		t.Fatal("the cancelled tool's ctx did not end")
	}
	// The cancelled request is never answered: the next line is ping's.
	if got := p.call(request(5, "ping", "")); got != `{"jsonrpc":"2.0","id":5,"result":{}}` {
		t.Errorf("after the cancellation got %s, want ping's reply", got)
	}
	if rest := p.eof(); len(rest) != 0 {
		t.Errorf("output after EOF = %q, want nothing (no reply to the cancelled request)", rest)
	}
}

// Scenario 70: a 2026-07-28 request with full _meta gets resultType and
// serverInfo; a request without _meta on a dual-era runtime gets -32602.
func TestScenario70ModernStamping(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	got := p.call(request(1, "tools/call", `{"name":"echo","arguments":{"text":"hi"},`+meta26+`}`))
	want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}],` +
		`"_meta":{"io.modelcontextprotocol/serverInfo":` + serverInf + `}}}`
	if got != want {
		t.Errorf("tools/call =\n%s\nwant\n%s", got, want)
	}
	m := wantError(t, p.call(request(2, "tools/list", `{}`)), "2", -32602)
	if m.Error.Message != "Invalid params: Required request _meta is missing" {
		t.Errorf("message = %q", m.Error.Message)
	}
	wantError(t, p.call(request(3, "tools/list", "")), "3", -32602)
	p.eof()
}

// Scenario 71: server/discover has exactly the specified keys, with ttlMs
// 0 and cacheScope "private"; tools come back sorted by name.
func TestScenario71Discover(t *testing.T) {
	srv := newServer(t, "test-server", mcp.Config{})
	for _, name := range []string{"zeta", "alpha", "mid"} {
		srv.AddTool(mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) { return nil, nil })
	}
	p := serve(t, srv)
	got := p.call(request(1, "server/discover", `{`+meta26+`}`))
	want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` +
		`"supportedVersions":["2026-07-28","2025-11-25","2025-06-18"],` +
		`"capabilities":{"logging":{},"tools":{"listChanged":true}},` +
		`"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":` + serverInf + `}}}`
	if got != want {
		t.Errorf("server/discover =\n%s\nwant\n%s", got, want)
	}
	res := wantResult(t, p.call(request(2, "tools/list", `{`+meta26+`}`)), "2")
	var list struct{ Tools []mcp.Tool }
	if err := json.Unmarshal(res, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "alpha,mid,zeta" {
		t.Errorf("tools/list names = %v, want sorted", names)
	}
	p.eof()
}

// Scenario 72: validation errors keep the request's id.
func TestScenario72Validation(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	wantError(t, p.call(request("u1", "no/such/method", `{`+meta26+`}`)), `"u1"`, -32601)
	wantError(t, p.call(request(2, "tools/list", `{"name":"x"}`)), "2", -32602)
	wantError(t, p.call(request(3, "tools/list", `{"_meta":{`+v26+`}}`)), "3", -32602)
	m := wantError(t, p.call(request(4, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01",`+noCaps+`}}`)), "4", -32022)
	if got := string(m.Error.Data); got != `{"supported":["2026-07-28","2025-11-25","2025-06-18"],"requested":"2099-01-01"}` {
		t.Errorf("-32022 data = %s", got)
	}
	wantError(t, p.call(request(5, "tools/call", `{"name":"echo","arguments":[1],`+meta26+`}`)), "5", -32602)
	// The transport owns id validation; the runtime never sees this one.
	wantError(t, p.call(`{"jsonrpc":"2.0","id":16.5,"method":"tools/list","params":{`+meta26+`}}`), "null", -32600)
	p.eof()
}

// Scenario 73: discover without a version is -32602 and with a legacy one
// -32022; after initialize a 2026-07-28 request is still served
// statelessly; a bare ping before initialize is {}.
func TestScenario73DiscoverVersionsAndMixing(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	if got := p.call(request(1, "ping", "")); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("bare ping before initialize = %s, want {}", got)
	}
	wantError(t, p.call(request(2, "server/discover", `{"_meta":{`+noCaps+`}}`)), "2", -32602)
	wantError(t, p.call(request(3, "server/discover", "")), "3", -32602)
	m := wantError(t, p.call(request(4, "server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25",`+noCaps+`}}`)), "4", -32022)
	if got := string(m.Error.Data); got != `{"supported":["2026-07-28","2025-11-25","2025-06-18"],"requested":"2025-11-25"}` {
		t.Errorf("-32022 data = %s", got)
	}
	p.initialize("2025-11-25", `{}`)
	res := wantResult(t, p.call(request(5, "tools/list", `{`+meta26+`}`)), "5")
	if field(res, "resultType") != `"complete"` || field(res, "ttlMs") != "0" {
		t.Errorf("a 2026-07-28 request after initialize = %s, want 2026 stamping", res)
	}
	res = wantResult(t, p.call(request(6, "tools/list", `{}`)), "6")
	if field(res, "resultType") != "" {
		t.Errorf("a legacy request after initialize = %s, want no resultType", res)
	}
	p.eof()
}

// Scenario 74: ping is gone on 2026-07-28, MRTR-only methods are invalid
// top-level requests, and a 2026-only runtime refuses initialize.
func TestScenario74RemovedMethods(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	for i, method := range []string{"ping", "initialize", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"} {
		wantError(t, p.call(request(i, method, `{`+meta26+`}`)), fmt.Sprint(i), -32601)
	}
	for i, method := range []string{"elicitation/create", "sampling/createMessage", "roots/list"} {
		wantError(t, p.call(request(10+i, method, `{`+meta26+`}`)), fmt.Sprint(10+i), -32600)
	}
	p.eof()

	modern := serve(t, newTestServer(t, mcp.Config{Versions: []string{stdio.Version20260728}}))
	m := wantError(t, modern.call(request(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`)), "1", -32022)
	if got := string(m.Error.Data); got != `{"supported":["2026-07-28"],"requested":"2025-11-25"}` {
		t.Errorf("-32022 data = %s", got)
	}
	got := modern.call(request(2, "server/discover", `{`+meta26+`}`))
	if !strings.Contains(got, `"supportedVersions":["2026-07-28"]`) {
		t.Errorf("discover on a 2026-only runtime = %s", got)
	}
	modern.eof()
}

// Scenario 75: an MRTR tool without elicitation.form declared is -32021;
// declared, it answers input_required; the retry on a new id with
// inputResponses completes.
func TestScenario75InputRequired(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	m := wantError(t, p.call(request(1, "tools/call", `{"name":"elicit",`+meta26+`}`)), "1", -32021)
	if got := string(m.Error.Data); got != `{"requiredCapabilities":{"elicitation":{"form":{}}}}` {
		t.Errorf("-32021 data = %s", got)
	}
	urlOnly := `"_meta":{` + v26 + `,"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"url":{}}}}`
	wantError(t, p.call(request(2, "tools/call", `{"name":"elicit",`+urlOnly+`}`)), "2", -32021)

	form := `"_meta":{` + v26 + `,"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
	res := wantResult(t, p.call(request(3, "tools/call", `{"name":"elicit",`+form+`}`)), "3")
	if field(res, "resultType") != `"input_required"` {
		t.Fatalf("result = %s, want input_required", res)
	}
	wantReq := `{"user_name":{"method":"elicitation/create","params":{"message":"What is your name?",` +
		`"requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}`
	if got := field(res, "inputRequests"); got != wantReq {
		t.Errorf("inputRequests = %s\nwant %s", got, wantReq)
	}
	for _, key := range []string{"ttlMs", "cacheScope"} {
		if field(res, key) != "" {
			t.Errorf("input_required result carries %s", key)
		}
	}
	state := field(res, "requestState")
	retry := `{"name":"elicit",` + form + `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}},"requestState":` + state + `}`
	got := p.call(request(4, "tools/call", retry))
	want := `{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","content":[{"type":"text","text":"Hello, Ada! (accept)"}],` +
		`"_meta":{"io.modelcontextprotocol/serverInfo":` + serverInf + `}}}`
	if got != want {
		t.Errorf("retry =\n%s\nwant\n%s", got, want)
	}
	p.eof()
}
