package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestEndpointGuards(t *testing.T) {
	_, url := serve(t, fixtureConfig(t))
	base := strings.TrimSuffix(url, Endpoint)
	tests := []struct {
		name   string
		method string
		path   string
		header map[string]string
		host   string
		body   string
		want   int
	}{
		{name: "foreign Host", method: "POST", host: "evil.example.com", want: http.StatusForbidden},
		{name: "foreign Host with port", method: "POST", host: "evil.example.com:80", want: http.StatusForbidden},
		{name: "foreign Origin", method: "POST", header: map[string]string{"Origin": "http://evil.example.com"}, want: http.StatusForbidden},
		{name: "opaque Origin", method: "POST", header: map[string]string{"Origin": "null"}, want: http.StatusForbidden},
		// Allowed names reach method routing: GET without a session is 405.
		{name: "localhost Host", method: "GET", host: "localhost:1234", want: http.StatusMethodNotAllowed},
		{name: "IPv6 loopback Host", method: "GET", host: "[::1]:1234", want: http.StatusMethodNotAllowed},
		{name: "localhost Origin", method: "GET", header: map[string]string{"Origin": "http://localhost:3000"}, want: http.StatusMethodNotAllowed},
		{name: "GET without session", method: "GET", want: http.StatusMethodNotAllowed},
		{name: "DELETE without session", method: "DELETE", want: http.StatusMethodNotAllowed},
		{name: "PUT", method: "PUT", want: http.StatusMethodNotAllowed},
		{name: "other path", method: "POST", path: "/other", want: http.StatusNotFound},
		{name: "GET unknown session", method: "GET", header: map[string]string{"Mcp-Session-Id": "nope"}, want: http.StatusNotFound},
		{name: "DELETE unknown session", method: "DELETE", header: map[string]string{"Mcp-Session-Id": "nope"}, want: http.StatusNotFound},
		{name: "POST unknown session", method: "POST", header: map[string]string{"Mcp-Session-Id": "nope"},
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, want: http.StatusNotFound},
		{name: "not JSON", method: "POST", body: `{"jsonrpc":`, want: http.StatusBadRequest},
		{name: "batch", method: "POST", body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, want: http.StatusBadRequest},
		{name: "no jsonrpc member", method: "POST", body: `{"id":1,"method":"ping"}`, want: http.StatusBadRequest},
		{name: "text body", method: "POST", header: map[string]string{"Content-Type": "text/plain"}, want: http.StatusUnsupportedMediaType},
		{name: "response outside a session", method: "POST", body: `{"jsonrpc":"2.0","id":1,"result":{}}`, want: http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = Endpoint
			}
			req, err := http.NewRequest(tt.method, base+path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("%s %s: status %d (%s), want %d", tt.method, path, resp.StatusCode, body, tt.want)
			}
		})
	}
}

func TestHeaderValidation(t *testing.T) {
	_, url := serve(t, fixtureConfig(t))
	call := func(method, params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":` + params + `}`
	}
	toolCall := call("tools/call", `{"name":"héllo wörld","arguments":{},"_meta":`+modernMeta+`}`)
	read := call("resources/read", `{"uri":"test://static-text","_meta":`+modernMeta+`}`)
	list := call("tools/list", `{"_meta":`+modernMeta+`}`)
	noVersion := call("tools/list", `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`)
	b64 := "=?base64?aMOpbGxvIHfDtnJsZA==?=" // héllo wörld
	tests := []struct {
		name   string
		body   string
		header map[string]string
		ok     bool
	}{
		{name: "all headers", body: list, ok: true},
		{name: "missing MCP-Protocol-Version", body: list, header: map[string]string{"MCP-Protocol-Version": ""}},
		{name: "other MCP-Protocol-Version", body: list, header: map[string]string{"MCP-Protocol-Version": "2025-11-25"}},
		{name: "missing Mcp-Method", body: list, header: map[string]string{"Mcp-Method": ""}},
		{name: "other Mcp-Method", body: list, header: map[string]string{"Mcp-Method": "prompts/list"}},
		{name: "Mcp-Method in other case", body: list, header: map[string]string{"Mcp-Method": "TOOLS/LIST"}},
		{name: "Mcp-Method with whitespace", body: list, header: map[string]string{"Mcp-Method": "  tools/list\t"}, ok: true},
		{name: "lower-case header names", body: list, header: map[string]string{"mcp-method": "tools/list"}, ok: true},
		{name: "Mcp-Name in base64", body: toolCall, header: map[string]string{"Mcp-Name": b64}, ok: true},
		{name: "Mcp-Name raw non-ASCII", body: toolCall, header: map[string]string{"Mcp-Name": "h\xc3\xa9llo w\xc3\xb6rld"}},
		{name: "missing Mcp-Name", body: toolCall, header: map[string]string{"Mcp-Name": ""}},
		{name: "other Mcp-Name", body: toolCall, header: map[string]string{"Mcp-Name": "other"}},
		{name: "Mcp-Name bad base64", body: toolCall, header: map[string]string{"Mcp-Name": "=?base64?aMOpbGxvIHfDtnJsZA?=?="}},
		{name: "Mcp-Name of a resource", body: read, ok: true},
		{name: "other resource", body: read, header: map[string]string{"Mcp-Name": "test://other"}},
		// A body without a version is the server's to reject (it owes
		// -32602); the fixture answers everything.
		{name: "no version in _meta", body: noVersion, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, msgs := post(t, url, request{body: tt.body, header: tt.header})
			if len(msgs) == 0 {
				t.Fatalf("status %d and no message", status)
			}
			resp := msgs[len(msgs)-1]
			code := field(t, resp, "error", "code")
			switch {
			case tt.ok && (status != http.StatusOK || code != nil):
				t.Errorf("status %d, response %s; want 200 and a result", status, resp)
			case !tt.ok && (status != http.StatusBadRequest || code != float64(-32020) || raw(t, resp, "id") != "7"):
				t.Errorf("status %d, response %s; want 400 and -32020 for id 7", status, resp)
			}
		})
	}
}

func TestErrorStatus(t *testing.T) {
	_, url := serve(t, fixtureConfig(t))
	tests := []struct {
		code int
		want int
	}{
		{-32601, http.StatusNotFound},
		{-32602, http.StatusBadRequest},
		{-32020, http.StatusBadRequest},
		{-32021, http.StatusBadRequest},
		{-32022, http.StatusBadRequest},
		{-32603, http.StatusOK},
		{-32000, http.StatusOK},
		{-32042, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.code), func(t *testing.T) {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"e","method":"test/error","params":{"code":%d,"_meta":%s}}`, tt.code, modernMeta)
			status, h, msgs := post(t, url, request{body: body})
			if status != tt.want || h.Get("Content-Type") != "application/json" || len(msgs) != 1 {
				t.Fatalf("error %d: status %d, Content-Type %q, %d messages; want %d, application/json, 1",
					tt.code, status, h.Get("Content-Type"), len(msgs), tt.want)
			}
			if got := raw(t, msgs[0], "error", "code"); got != fmt.Sprint(tt.code) || raw(t, msgs[0], "id") != `"e"` {
				t.Errorf("response %s, want code %d for id \"e\"", msgs[0], tt.code)
			}
		})
	}

	// A session's errors travel in a 200, as 2025 has no status mapping.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	_, h, _ := post(t, url, request{body: init})
	status, _, _ := post(t, url, request{session: h.Get("Mcp-Session-Id"),
		body: `{"jsonrpc":"2.0","id":2,"method":"test/error","params":{"code":-32601}}`})
	if status != http.StatusOK {
		t.Errorf("2025 -32601: status %d, want 200", status)
	}
}

func TestResultFormat(t *testing.T) {
	_, url := serve(t, fixtureConfig(t))
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":` + modernMeta + `}}`
	tests := []struct {
		accept string
		want   string
	}{
		{"application/json, text/event-stream", "text/event-stream"},
		{"application/json", "application/json"},
	}
	for _, tt := range tests {
		_, h, msgs := post(t, url, request{body: body, header: map[string]string{"Accept": tt.accept}})
		if got := h.Get("Content-Type"); got != tt.want || len(msgs) != 1 {
			t.Errorf("Accept %q: Content-Type %q with %d messages, want %q with 1", tt.accept, got, len(msgs), tt.want)
		}
	}
}

func TestModernIDsAndRouting(t *testing.T) {
	_, url := serve(t, fixtureConfig(t))
	echo := func(id, meta string) json.RawMessage {
		return call(t, url, request{body: `{"jsonrpc":"2.0","id":` + id + `,"method":"test/echo","params":{"_meta":` + meta + `}}`})
	}
	// The same id twice, and ids that differ only in type: each answer
	// carries its request's id, while the child saw ids of the Client's.
	seen := map[string]bool{}
	var sharedPid any
	for _, id := range []string{`"x"`, `"x"`, `1`, `"1"`} {
		resp := echo(id, modernMeta)
		if got := raw(t, resp, "id"); got != id {
			t.Errorf("response id %s, want %s", got, id)
		}
		child := raw(t, resp, "result", "id")
		if seen[child] {
			t.Errorf("the child saw id %s twice", child)
		}
		seen[child] = true
		if sharedPid == nil {
			sharedPid = field(t, resp, "result", "pid")
		} else if pid := field(t, resp, "result", "pid"); pid != sharedPid {
			t.Errorf("complete _meta: pid %v, want the shared child %v", pid, sharedPid)
		}
	}

	// A _meta the connected Client would complete goes to the verbatim
	// child unchanged; so does a method the Client refuses in 2026.
	partial := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	resp := echo("2", partial)
	if got, want := raw(t, resp, "result", "params", "_meta"), raw(t, json.RawMessage(partial)); got != want {
		t.Errorf("the verbatim child saw _meta %s, want %s", got, want)
	}
	verbatimPid := field(t, resp, "result", "pid")
	if verbatimPid == sharedPid {
		t.Errorf("partial _meta answered by the shared child (pid %v)", verbatimPid)
	}
	ping := call(t, url, request{body: `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":` + modernMeta + `}}`})
	if field(t, ping, "result", "method") != "ping" || field(t, ping, "result", "pid") != verbatimPid {
		t.Errorf("ping with 2026 _meta: %s, want the verbatim child's own answer", ping)
	}
}

func TestModernProgress(t *testing.T) {
	_, url := serve(t, fixtureConfig(t))
	for _, token := range []string{`"tok"`, `42`} {
		body := `{"jsonrpc":"2.0","id":1,"method":"test/progress","params":{"_meta":` +
			strings.TrimSuffix(modernMeta, "}") + `,"progressToken":` + token + `}}}`
		_, h, msgs := post(t, url, request{body: body})
		var got []string
		for _, m := range msgs {
			got = append(got, fmt.Sprint(field(t, m, "method"), " ", raw(t, m, "params", "progressToken")))
		}
		// The fixture logs although the request set no logLevel; the
		// adapter shows it, so that the client can see the violation.
		want := []string{
			"notifications/progress " + token,
			"notifications/progress " + token,
			"notifications/message null",
			"<nil> null",
		}
		if h.Get("Content-Type") != "text/event-stream" || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("token %s: %s stream %q, want %q", token, h.Get("Content-Type"), got, want)
		}
	}
}

// TestModernDisconnectCancels closes a request's stream and expects the
// child to be told, under the id it saw.
func TestModernDisconnectCancels(t *testing.T) {
	_, url := serve(t, fixtureConfig(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wait := `{"jsonrpc":"2.0","id":1,"method":"test/wait","params":{"_meta":` +
		strings.TrimSuffix(modernMeta, "}") + `,"progressToken":1}}}`
	resp := send(ctx, t, url, request{body: wait})
	first, err := newEvents(resp.Body).next()
	if err != nil {
		t.Fatalf("reading test/wait's progress: %v", err)
	}
	childID := field(t, first, "params", "message") // the id the child saw
	cancel()
	resp.Body.Close()

	got := call(t, url, request{body: `{"jsonrpc":"2.0","id":2,"method":"test/cancelled","params":{"_meta":` + modernMeta + `}}`})
	if want := fmt.Sprintf("[%v]", childID); raw(t, got, "result", "cancelled") != want {
		t.Errorf("cancellations the child got: %s, want %s", raw(t, got, "result", "cancelled"), want)
	}
}

func TestListen(t *testing.T) {
	_, url := serve(t, fixtureConfig(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listen := `{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"_meta":` + modernMeta +
		`,"notifications":{"toolsListChanged":true}}}`
	resp := send(ctx, t, url, request{body: listen})
	events := newEvents(resp.Body)
	ack, err := events.next()
	if err != nil {
		t.Fatalf("reading the acknowledgement: %v", err)
	}
	subID := []string{"params", "_meta", "io.modelcontextprotocol/subscriptionId"}
	if field(t, ack, "method") != "notifications/subscriptions/acknowledged" ||
		raw(t, ack, "params", "notifications") != `{"toolsListChanged":true}` || raw(t, ack, subID...) != `"sub-1"` {
		t.Errorf("first message %s, want the acknowledgement of the filter tagged \"sub-1\"", ack)
	}
	ev, err := events.next()
	if err != nil {
		t.Fatalf("reading the event: %v", err)
	}
	if field(t, ev, "method") != "notifications/tools/list_changed" || raw(t, ev, subID...) != `"sub-1"` {
		t.Errorf("event %s, want tools/list_changed tagged \"sub-1\"", ev)
	}
	childID := raw(t, ev, "params", "seen")
	cancel()
	resp.Body.Close()

	got := call(t, url, request{body: `{"jsonrpc":"2.0","id":2,"method":"test/cancelled","params":{"_meta":` + modernMeta + `}}`})
	if want := "[" + childID + "]"; raw(t, got, "result", "cancelled") != want {
		t.Errorf("cancellations the child got: %s, want %s (the listen)", raw(t, got, "result", "cancelled"), want)
	}
}

// TestParamHeaders checks Mcp-Param-* headers once a tools/list has shown
// the tool's x-mcp-header annotations, and not before.
func TestParamHeaders(t *testing.T) {
	_, url := serve(t, fixtureConfig(t))
	callMirror := func(header map[string]string) int {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mirror","arguments":{"region":"eu"},"_meta":` + modernMeta + `}}`
		status, _, _ := post(t, url, request{body: body, header: header})
		return status
	}
	if status := callMirror(nil); status != http.StatusOK {
		t.Errorf("before tools/list, a call without Mcp-Param-Region: status %d, want 200 (unchecked)", status)
	}
	call(t, url, request{body: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":` + modernMeta + `}}`})
	tests := []struct {
		header map[string]string
		want   int
	}{
		{nil, http.StatusBadRequest},
		{map[string]string{"Mcp-Param-Region": "us"}, http.StatusBadRequest},
		{map[string]string{"Mcp-Param-Region": "eu"}, http.StatusOK},
		{map[string]string{"Mcp-Param-Region": "=?base64?ZXU=?="}, http.StatusOK},
	}
	for _, tt := range tests {
		if status := callMirror(tt.header); status != tt.want {
			t.Errorf("after tools/list, headers %v: status %d, want %d", tt.header, status, tt.want)
		}
	}
}
