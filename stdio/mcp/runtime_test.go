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

func TestToolResults(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	p.initialize("2025-11-25", `{}`)
	for _, tc := range []struct{ params, want string }{
		{`{"name":"content"}`, `{"content":[{"type":"text","text":"hi"},{"type":"image","data":"AQID","mimeType":"image/png"},` +
			`{"type":"audio","data":"BA==","mimeType":"audio/wav"},{"type":"resource_link","uri":"test://static-text","name":"static"},` +
			`{"type":"resource","resource":{"uri":"test://x","mimeType":"text/plain","text":"embedded"}}]}`},
		{`{"name":"fail"}`, `{"content":[{"type":"text","text":"the tool broke"}],"isError":true}`},
		{`{"name":"structured"}`, `{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}`},
		{`{"name":"echo","arguments":null}`, `{"content":[{"type":"text","text":""}]}`},
	} {
		if got := string(wantResult(t, p.call(request(1, "tools/call", tc.params)), "1")); got != tc.want {
			t.Errorf("tools/call %s =\n%s\nwant\n%s", tc.params, got, tc.want)
		}
	}
	m := wantError(t, p.call(request(2, "tools/call", `{"name":"nope"}`)), "2", -32602)
	if m.Error.Message != "Unknown tool: nope" {
		t.Errorf("unknown tool message = %q", m.Error.Message)
	}
	wantError(t, p.call(request(3, "tools/call", `{"name":7}`)), "3", -32602)
	p.eof()
}

func TestResources(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	res := wantResult(t, p.call(request(1, "resources/read", `{"uri":"test://static-binary",`+meta26+`}`)), "1")
	if got := field(res, "contents"); got != `[{"uri":"test://static-binary","mimeType":"image/png","blob":"iVBORw=="}]` {
		t.Errorf("blob contents = %s", got)
	}
	res = wantResult(t, p.call(request(2, "resources/read", `{"uri":"test://template/a%2Fb/data",`+meta26+`}`)), "2")
	if got := field(res, "contents"); got != `[{"uri":"test://template/a%2Fb/data","mimeType":"application/json","text":"{\"id\":\"a/b\"}"}]` {
		t.Errorf("template contents = %s", got)
	}
	res = wantResult(t, p.call(request(3, "resources/templates/list", `{`+meta26+`}`)), "3")
	if got := field(res, "resourceTemplates"); got != `[{"uriTemplate":"test://template/{id}/data","name":"template","mimeType":"application/json"}]` {
		t.Errorf("templates = %s", got)
	}
	// A missing resource: -32602 on 2026-07-28, -32002 on 2025, with the URI.
	for _, uri := range []string{"test://nope", "test://template/missing/data", "test://template//data"} {
		m := wantError(t, p.call(request(4, "resources/read", `{"uri":"`+uri+`",`+meta26+`}`)), "4", -32602)
		if got := string(m.Error.Data); got != `{"uri":"`+uri+`"}` {
			t.Errorf("not-found data = %s", got)
		}
	}
	p.initialize("2025-06-18", `{}`)
	wantError(t, p.call(request(5, "resources/read", `{"uri":"test://nope"}`)), "5", -32002)
	p.eof()
}

func TestPromptsAndCompletion(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	res := wantResult(t, p.call(request(1, "prompts/get", `{"name":"with_args","arguments":{"arg1":"a","arg2":"b"},`+meta26+`}`)), "1")
	if got := field(res, "messages"); got != `[{"role":"user","content":{"type":"text","text":"arg1=a arg2=b"}}]` {
		t.Errorf("messages = %s", got)
	}
	wantError(t, p.call(request(2, "prompts/get", `{"name":"with_args",`+meta26+`}`)), "2", -32602)                  // arg1 required
	wantError(t, p.call(request(3, "prompts/get", `{"name":"nope",`+meta26+`}`)), "3", -32602)                       // unknown
	wantError(t, p.call(request(4, "prompts/get", `{"name":"simple","arguments":{"a":1},`+meta26+`}`)), "4", -32602) // not strings

	res = wantResult(t, p.call(request(5, "completion/complete", `{"ref":{"type":"ref/prompt","name":"with_args"},"argument":{"name":"arg1","value":"par"},`+meta26+`}`)), "5")
	if got := field(res, "completion"); got != `{"values":["paris","park","party"]}` {
		t.Errorf("completion = %s", got)
	}
	if got := field(res, "ttlMs"); got != "" {
		t.Errorf("completion result has ttlMs %s; only list, read and discover results do", got)
	}
	// A template without a handler completes to nothing; unknown refs are -32602.
	res = wantResult(t, p.call(request(6, "completion/complete", `{"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":""},`+meta26+`}`)), "6")
	if got := field(res, "completion"); got != `{"values":[]}` {
		t.Errorf("completion = %s", got)
	}
	wantError(t, p.call(request(7, "completion/complete", `{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"a","value":""},`+meta26+`}`)), "7", -32602)
	wantError(t, p.call(request(8, "completion/complete", `{"ref":{"type":"ref/prompt","name":"with_args"},"argument":{"name":"zzz","value":""},`+meta26+`}`)), "8", -32602)
	p.eof()
}

// A server advertises only what it has; the rest is -32601
// (docs/protocol.md, "Error codes").
func TestCapabilityGating(t *testing.T) {
	srv := newServer(t, "bare", mcp.Config{})
	p := serve(t, srv)
	for i, method := range []string{"tools/list", "prompts/list", "resources/list", "completion/complete", "subscriptions/listen"} {
		wantError(t, p.call(request(i, method, `{`+meta26+`,"notifications":{}}`)), fmt.Sprint(i), -32601)
	}
	got := p.call(request(9, "server/discover", `{`+meta26+`}`))
	if !strings.Contains(got, `"capabilities":{"logging":{}}`) {
		t.Errorf("discover = %s, want only logging", got)
	}
	p.eof()
}

func TestPagination(t *testing.T) {
	srv := newServer(t, "paged", mcp.Config{PageSize: 2})
	for _, n := range []string{"e", "d", "c", "b", "a"} {
		srv.AddTool(mcp.Tool{Name: n}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) { return nil, nil })
	}
	srv.AddPrompt(mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil })
	p := serve(t, srv)
	var names []string
	cursor := ""
	var firstCursor string
	for page := 0; ; page++ {
		params := `{` + meta26
		if cursor != "" {
			params += `,"cursor":` + cursor
		}
		res := wantResult(t, p.call(request(page, "tools/list", params+`}`)), fmt.Sprint(page))
		var list struct{ Tools []mcp.Tool }
		json.Unmarshal(res, &list)
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		if cursor = field(res, "nextCursor"); cursor == "" {
			break
		}
		if firstCursor == "" {
			firstCursor = cursor
		}
	}
	if strings.Join(names, "") != "abcde" {
		t.Errorf("paged names = %v", names)
	}
	// Change the signature's last character (all of whose bits are MAC
	// bits: 12 bytes are 16 characters), to one it is not.
	last := firstCursor[len(firstCursor)-2]
	other := byte('x')
	if last == other {
		other = 'y'
	}
	bad := firstCursor[:len(firstCursor)-2] + string(other) + `"`
	for i, c := range []string{bad, `"garbage"`, `""`, `7`} {
		wantError(t, p.call(request(10+i, "tools/list", `{`+meta26+`,"cursor":`+c+`}`)), fmt.Sprint(10+i), -32602)
	}
	// A tools cursor is no prompts cursor.
	wantError(t, p.call(request(20, "prompts/list", `{`+meta26+`,"cursor":`+firstCursor+`}`)), "20", -32602)
	p.eof()
}

func TestMetaValidation(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	for i, tc := range []struct {
		meta string
		code int64
	}{
		{v26 + `,` + noCaps + `,"com.example/ok-key":1,"progressToken":"t","traceparent":"x"`, 0},
		{v26 + `,` + noCaps + `,"bad key":1`, -32602},
		{v26 + `,` + noCaps + `,"-x/y":1`, -32602},
		{v26 + `,` + noCaps + `,"io.modelcontextprotocol/logLevel":"loud"`, -32602},
		{v26 + `,` + noCaps + `,"io.modelcontextprotocol/clientInfo":"me"`, -32602},
		{v26 + `,"io.modelcontextprotocol/clientCapabilities":[]`, -32602},
		{v26 + `,"io.modelcontextprotocol/clientCapabilities":{"elicitation":true}`, -32602},
		{v26 + `,"io.modelcontextprotocol/clientCapabilities":{"extensions":{"noprefix":{}}}`, -32602},
		{`"io.modelcontextprotocol/protocolVersion":7,` + noCaps, -32602},
		// The version is checked before the capabilities (docs/protocol.md,
		// "Validation order").
		{`"io.modelcontextprotocol/protocolVersion":"2099-01-01"`, -32022},
	} {
		line := p.call(request(i, "tools/list", `{"_meta":{`+tc.meta+`}}`))
		if tc.code == 0 {
			wantResult(t, line, fmt.Sprint(i))
			continue
		}
		wantError(t, line, fmt.Sprint(i), tc.code)
	}
	// Step 4 before step 5: an unknown method with a bad key is -32601.
	wantError(t, p.call(request(20, "nope", `{"_meta":{`+v26+`,`+noCaps+`,"bad key":1}}`)), "20", -32601)
	p.eof()
}

func TestLogging(t *testing.T) {
	p := serve(t, newTestServer(t, mcp.Config{}))
	// 2026-07-28 without a logLevel: nothing but the result.
	wantResult(t, p.call(request(1, "tools/call", `{"name":"log",`+meta26+`}`)), "1")
	p.send(request(2, "tools/call", `{"name":"log","_meta":{`+v26+`,`+noCaps+`,"io.modelcontextprotocol/logLevel":"info"}}`))
	for _, want := range []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"fixture","data":"started"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":{"msg":"halfway","step":2}}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":{"done":3}}}`,
	} {
		if got := p.next(); got != want {
			t.Errorf("got %s\nwant %s", got, want)
		}
	}
	wantResult(t, p.next(), "2")

	// Legacy: nothing before logging/setLevel, then the session's level.
	p.initialize("2025-11-25", `{}`)
	wantResult(t, p.call(request(3, "tools/call", `{"name":"log"}`)), "3")
	wantError(t, p.call(request(4, "logging/setLevel", `{"level":"loud"}`)), "4", -32602)
	if got := p.call(request(5, "logging/setLevel", `{"level":"warning"}`)); got != `{"jsonrpc":"2.0","id":5,"result":{}}` {
		t.Errorf("setLevel = %s", got)
	}
	p.send(request(6, "tools/call", `{"name":"log"}`))
	for _, want := range []string{`"level":"warning"`, `"level":"error"`, `"id":6`} {
		if got := p.next(); !strings.Contains(got, want) {
			t.Errorf("got %s, want %s", got, want)
		}
	}
	p.eof()
}

// NewServer refuses a configuration it cannot serve, naming the setting.
func TestNewServerInvalidConfig(t *testing.T) {
	info := mcp.Implementation{Name: "bad", Version: "1"}
	for _, tt := range []struct {
		cfg  mcp.Config
		want string
	}{
		{mcp.Config{Versions: []string{"2024-11-05"}}, "Versions"},
		{mcp.Config{Versions: []string{stdio.Version20251125, stdio.Version20251125}}, "Versions"},
		{mcp.Config{PageSize: -1}, "PageSize"},
		{mcp.Config{CacheTTL: -time.Second}, "CacheTTL"},
		{mcp.Config{RequestStateTTL: -time.Second}, "RequestStateTTL"},
		{mcp.Config{CacheScope: "shared"}, "CacheScope"},
	} {
		srv, err := mcp.NewServer(info, tt.cfg)
		if srv != nil || err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewServer(%+v) = %v, %v; want an error naming %s", tt.cfg, srv, err, tt.want)
		}
	}
}
