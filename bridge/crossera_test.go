package bridge

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
)

// modernParams is params with a 2026-07-28 _meta declaring caps.
func modernParams(params, caps string) string {
	meta := `{"` + protocol.MetaProtocolVersion + `":"2026-07-28","` + protocol.MetaClientCapabilities + `":` + caps + `}`
	out, err := rawjson.SetMember(json.RawMessage(params), "_meta", json.RawMessage(meta))
	if err != nil {
		panic(err)
	}
	return string(out)
}

// askCall is the fixture's ask tool asking the client for an elicitation.
const askCall = `{"name":"ask","arguments":{"method":"elicitation/create","params":{"message":"Your name?"}}}`

// TestCrossEraInputRounds: a 2026 client through a tunnel to a legacy
// child. The child's elicitation/create during a tools/call comes back as
// an input_required round, which only the same tunnel can resume, only
// with the untouched requestState and the same params; its answer reaches
// the child and the call completes as a 2026 result. A request that did
// not declare elicitation gets -32021, and the child's question an error.
func TestCrossEraInputRounds(t *testing.T) {
	t.Parallel()
	sc := streamsFixtureServer(t, "", "legacy")
	sc.ServerRequestTimeout = time.Hour // an op parked at the tunnel's end must end with it
	b := startStreamsBridge(t, sc)
	ctx := testCtx(t)
	tun := b.connect(ctx, t, "")

	tun.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + modernParams(askCall, `{"elicitation":{}}`) + `}`)
	m, text := tun.response("1", nil)
	if rt, _ := rawjson.Member(m.Result, "resultType"); string(rt) != `"input_required"` {
		t.Fatalf("tools/call = %s, want an input_required result", text)
	}
	reqs, _ := rawjson.Member(m.Result, "inputRequests")
	if want := `{"input-1":{"method":"elicitation/create","params":{"message":"Your name?"}}}`; string(reqs) != want {
		t.Errorf("inputRequests = %s, want %s", reqs, want)
	}
	state, _ := rawjson.Member(m.Result, "requestState")
	retry := func(askCall, state string) string {
		p := strings.TrimSuffix(askCall, "}") + `,"inputResponses":{"input-1":{"action":"accept","content":{"name":"Ada"}}},"requestState":` + state + `}`
		return modernParams(p, `{"elicitation":{}}`)
	}

	// Another caller's tunnel cannot resume it, nor can a changed state or
	// changed params.
	other := b.connect(ctx, t, "")
	other.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":` + retry(askCall, string(state)) + `}`)
	if m, text := other.response("2", nil); !strings.Contains(string(m.Error), "-32602") {
		t.Errorf("a retry on another tunnel = %s, want -32602", text)
	}
	tampered := strings.TrimSuffix(string(state), `"`) + `x"`
	tun.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":` + retry(askCall, tampered) + `}`)
	if m, text := tun.response("3", nil); !strings.Contains(string(m.Error), "-32602") {
		t.Errorf("a retry with a tampered requestState = %s, want -32602", text)
	}
	changed := strings.Replace(askCall, "Your name?", "Your age?", 1)
	tun.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":` + retry(changed, string(state)) + `}`)
	if m, text := tun.response("4", nil); !strings.Contains(string(m.Error), "-32602") {
		t.Errorf("a retry with other params = %s, want -32602", text)
	}

	// The first refusal did not consume it: the real retry completes.
	tun.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":` + retry(askCall, string(state)) + `}`)
	m, text = tun.response("5", nil)
	if rt, _ := rawjson.Member(m.Result, "resultType"); string(rt) != `"complete"` ||
		!strings.Contains(text, `\"name\":\"Ada\"`) || !strings.Contains(text, protocol.MetaServerInfo) {
		t.Errorf("the retry = %s, want a complete result that carries the answer and serverInfo", text)
	}

	// No elicitation declared: -32021, naming it.
	tun.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":` + modernParams(askCall, `{"sampling":{}}`) + `}`)
	m, text = tun.response("6", nil)
	if !strings.Contains(string(m.Error), "-32021") || !strings.Contains(text, `"requiredCapabilities":{"elicitation":{}}`) {
		t.Errorf("a call without the capability = %s, want -32021 requiring elicitation", text)
	}

	// A parked round ends with its tunnel: the child's question is
	// answered with an error and the tunnel ends without waiting an hour.
	tun.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":` + modernParams(askCall, `{"elicitation":{}}`) + `}`)
	if m, text := tun.response("7", nil); m.Kind != wire.KindResponse || m.HasError() {
		t.Fatalf("tools/call = %s", text)
	}
	if _, err := tun.closeAndDrain(); err != nil {
		t.Errorf("the tunnel ended with %v, want OK", err)
	}
}

// TestCrossEraListen: a 2026 client's subscriptions/listen on a legacy
// child is acknowledged with what the child declares, and the child's
// list_changed notifications reach it tagged with the listen id; a
// request without _meta on that tunnel gets the 2026 error, and a 2025
// method the 2026 one.
func TestCrossEraListen(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, streamsFixtureServer(t, "", "legacy"))
	ctx := testCtx(t)
	tun := b.connect(ctx, t, "")
	tun.send(`{"jsonrpc":"2.0","id":"d","method":"server/discover","params":` + modernParams(`{}`, `{}`) + `}`)
	m, text := tun.response(`"d"`, nil)
	if v, _ := rawjson.Member(m.Result, "supportedVersions"); string(v) != `["2026-07-28","2025-11-25"]` {
		t.Errorf("server/discover = %s, want 2026-07-28 and the child's version", text)
	}
	tun.send(`{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":` +
		modernParams(`{"notifications":{"toolsListChanged":true,"promptsListChanged":true}}`, `{}`) + `}`)
	m, text = tun.recv()
	if m.Method != "notifications/subscriptions/acknowledged" || !strings.Contains(text, `"`+protocol.MetaSubscriptionID+`":"l"`) {
		t.Fatalf("first message of the listen = %s, want its acknowledgement", text)
	}
	b.callTool(ctx, t, "", "notify", `{"method":"notifications/tools/list_changed"}`)
	m, text = tun.recv()
	if m.Method != "notifications/tools/list_changed" || !strings.Contains(text, `"`+protocol.MetaSubscriptionID+`":"l"`) {
		t.Errorf("event = %s, want tools/list_changed tagged with the listen id", text)
	}
	tun.send(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	if m, text := tun.response("8", nil); !strings.Contains(string(m.Error), "-32602") || !strings.Contains(text, protocol.NoMeta) {
		t.Errorf("tools/list without _meta = %s, want -32602 %q", text, protocol.NoMeta)
	}
	tun.send(`{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":` + modernParams(`{"level":"debug"}`, `{}`) + `}`)
	if m, text := tun.response("9", nil); !strings.Contains(string(m.Error), "-32601") {
		t.Errorf("logging/setLevel from a 2026 client = %s, want -32601", text)
	}
	tun.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"l"}}`)
	if _, err := tun.closeAndDrain(); err != nil {
		t.Errorf("the tunnel ended with %v, want OK", err)
	}
}
