package bridge

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// rpc is one request of a sequence: a method and its params as JSON.
type rpc struct{ method, params string }

// TestConnectMatchesDirect sends the same requests through a Connect
// tunnel and through a stdio.Client talking to the same server directly:
// the results are byte for byte the same, for a 2026 and a legacy child.
func TestConnectMatchesDirect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		argv func(testing.TB) []string
		caps string
		seq  []rpc
	}{
		{"go-sdk 2026", testkit.GoSDKServer, "", []rpc{
			{"tools/list", `{}`},
			{"tools/call", `{"name":"test_simple_text","arguments":{}}`},
			{"tools/call", `{"name":"test_error_handling","arguments":{}}`},
			{"resources/list", `{}`},
			{"resources/read", `{"uri":"test://static-text"}`},
			{"resources/templates/list", `{}`},
			{"prompts/get", `{"name":"test_prompt_with_arguments","arguments":{"arg1":"a","arg2":"b"}}`},
			{"tools/call", `{"name":"no_such_tool","arguments":{}}`},
		}},
		{"server-everything legacy", testkit.ServerEverything, everythingCaps, []rpc{
			{"ping", ``},
			{"tools/list", `{}`},
			{"tools/call", `{"name":"echo","arguments":{"message":"héllo \u2028 \"quoted\""}}`},
			{"tools/call", `{"name":"get-sum","arguments":{"a":9007199254740993,"b":1}}`},
			{"resources/list", `{"cursor":null}`},
			{"prompts/get", `{"name":"args-prompt","arguments":{"city":"Paris"}}`},
			{"completion/complete", `{"ref":{"type":"ref/prompt","name":"completable-prompt"},"argument":{"name":"department","value":"E"}}`},
			{"no/such/method", `{}`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			argv := tc.argv(t)
			srv := peerServer("", argv)
			if tc.caps != "" {
				srv.Capabilities = json.RawMessage(tc.caps)
			}
			b := startStreamsBridge(t, srv)
			direct := directPeer(t, argv, tc.caps)
			ctx := testCtx(t)

			tun := b.connect(ctx, t, "")
			if direct.Protocol() != "2026-07-28" {
				tun.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
				m, text := tun.response(`"init"`, nil)
				var res struct {
					ProtocolVersion string          `json:"protocolVersion"`
					ServerInfo      json.RawMessage `json:"serverInfo"`
				}
				if err := json.Unmarshal(m.Result, &res); err != nil || res.ProtocolVersion != direct.Protocol() || string(res.ServerInfo) != string(direct.ServerInfo()) {
					t.Errorf("initialize through the tunnel = %s; want the negotiated %s and %s", text, direct.Protocol(), direct.ServerInfo())
				}
				tun.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			for i, r := range tc.seq {
				line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q`, i, r.method)
				var params json.RawMessage
				if r.params != "" {
					// A 2026 client sends the _meta the direct Client
					// stamps: the tunnel passes it as it is.
					sent := r.params
					if direct.Protocol() == "2026-07-28" {
						sent = testkit.WithModernMeta(sent)
					}
					line += `,"params":` + sent
					params = json.RawMessage(r.params)
				}
				tun.send(line + "}")
				m, text := tun.response(fmt.Sprint(i), nil)
				want, err := direct.Call(ctx, r.method, params, nil)
				var wantText string
				if err != nil {
					e := err.(*jsonrpc.Error)
					wantText = string(wire.AppendErrorObject(nil, (*wire.Error)(e)))
					if got := string(m.Error); got != wantText {
						t.Errorf("%s: error through the tunnel = %s, directly %s", r.method, got, wantText)
					}
					continue
				}
				if got := string(m.Result); got != string(want) {
					t.Errorf("%s: result through the tunnel (%s) differs from the direct result:\n got %s\nwant %s", r.method, text, got, want)
				}
			}
			if _, err := tun.closeAndDrain(); err != nil {
				t.Errorf("tunnel end after half-close = %v, want OK", err)
			}
		})
	}
}

// TestConnectSharedIDs runs two tunnels that use the same ids at the same
// time on one shared child: each gets exactly its own answers.
func TestConnectSharedIDs(t *testing.T) {
	t.Parallel()
	srv := peerServer("", testkit.ServerEverything(t))
	b := startStreamsBridge(t, srv)
	ctx := testCtx(t)
	const n = 20
	tunnels := []*tunnelConn{b.connect(ctx, t, ""), b.connect(ctx, t, "")}
	var wg sync.WaitGroup
	for ti, tun := range tunnels {
		wg.Go(func() {
			for i := range n { // ids 1..n, and the same again as strings
				tun.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"t%d-int-%d"}}}`, i, ti, i))
				tun.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"%d","method":"tools/call","params":{"name":"echo","arguments":{"message":"t%d-str-%d"}}}`, i, ti, i))
			}
		})
	}
	wg.Wait()
	for ti, tun := range tunnels {
		got := map[string]string{}
		for len(got) < 2*n {
			m, text := tun.recv()
			if m.Kind != wire.KindResponse {
				continue
			}
			if _, dup := got[string(m.ID)]; dup {
				t.Fatalf("tunnel %d: a second response for id %s: %s", ti, m.ID, text)
			}
			got[string(m.ID)] = text
		}
		for i := range n {
			for id, kind := range map[string]string{fmt.Sprint(i): "int", fmt.Sprintf("%q", fmt.Sprint(i)): "str"} {
				if want := fmt.Sprintf("t%d-%s-%d", ti, kind, i); !strings.Contains(got[id], want+`"`) {
					t.Errorf("tunnel %d id %s: %s, want the echo of %s", ti, id, got[id], want)
				}
			}
		}
		if rest, err := tun.closeAndDrain(); err != nil || len(rest) != 0 {
			t.Errorf("tunnel %d end = %v after %q, want OK and nothing more", ti, err, rest)
		}
	}
}

// TestConnectProgress sends progress tokens of both JSON types through a
// tunnel: progress comes back under the tunnel's token, before the result.
func TestConnectProgress(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, peerServer("", testkit.GoSDKServer(t)))
	ctx := testCtx(t)
	tun := b.connect(ctx, t, "")
	for _, tc := range []struct{ id, token string }{{"1", `"tok-1"`}, {"2", `42`}} {
		tun.send(`{"jsonrpc":"2.0","id":` + tc.id + `,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":` + tc.token + `,"k":"v"}}}`)
		var progress []string
		m, text := tun.response(tc.id, func(m wire.Message, text string) {
			if m.Method != "notifications/progress" {
				return
			}
			tok, _ := rawjson.Member(m.Params, "progressToken")
			p, _ := rawjson.Member(m.Params, "progress")
			progress = append(progress, string(tok)+"@"+string(p))
		})
		want := []string{tc.token + "@0", tc.token + "@50", tc.token + "@100"}
		if diff := cmp.Diff(want, progress); diff != "" {
			t.Errorf("progress for token %s (-want +got):\n%s", tc.token, diff)
		}
		if m.Result == nil {
			t.Errorf("result = %s", text)
		}
	}
	if _, err := tun.closeAndDrain(); err != nil {
		t.Errorf("tunnel end = %v", err)
	}
}

// TestConnectMalformed sends messages that are not valid JSON-RPC to a
// child that exits on any malformed line: each is answered in the tunnel
// and the child keeps serving.
func TestConnectMalformed(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, peerServer("", testkit.GoSDKServer(t)))
	ctx := testCtx(t)
	tun := b.connect(ctx, t, "")
	for _, tc := range []struct{ line, id string }{
		{`{not json`, "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, "null"},
		{`{"jsonrpc":"2.0","id":7}`, "null"},
		{`{"id":8,"method":"tools/list","params":{}}`, "8"},
		{`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, "null"},
		{``, "null"},
	} {
		tun.send(tc.line)
		m, text := tun.recv()
		id := string(m.ID)
		if m.ID == nil {
			id = "null"
		}
		if m.Kind != wire.KindResponse || !m.HasError() || id != tc.id {
			t.Errorf("%q was answered %s, want an error with id %s", tc.line, text, tc.id)
			continue
		}
		e, _ := wire.DecodeError(m.Error)
		if e.Code != jsonrpc.CodeParseError && e.Code != jsonrpc.CodeInvalidRequest {
			t.Errorf("%q was answered %s, want -32700 or -32600", tc.line, text)
		}
	}
	tun.send(`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}`)
	if m, text := tun.response("9", nil); m.Result == nil {
		t.Errorf("tools/list after the malformed lines = %s", text)
	}
	res, err := b.client.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
	if err != nil || res.GetChild().GetRestarts() != 0 || res.GetChild().GetState() != mcpbridgev1.ChildState_CHILD_STATE_READY {
		t.Errorf("GetServer = %v, %v; want the first child, ready", res, err)
	}
	if _, err := tun.closeAndDrain(); err != nil {
		t.Errorf("tunnel end = %v", err)
	}
}

// TestConnectCancelAndHalfClose cancels a request from the tunnel (the
// child is told, with its own id and the client's own reason, and the
// tunnel gets no response), then
// half-closes with a request in flight: its response still comes, then
// the stream ends with OK.
func TestConnectCancelAndHalfClose(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, streamsFixtureServer(t, "", "legacy"))
	ctx := testCtx(t)
	tun := b.connect(ctx, t, "")
	tun.send(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"block"}}`)
	for { // the child logs "blocked <its id>" once it has the call
		if m, text := tun.recv(); m.Method == "notifications/message" && strings.Contains(text, "blocked ") {
			break
		}
	}
	tun.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b","reason":"test"}}`)
	// The fixture logs "cancelled <its id>" when the cancellation names
	// the blocked call; the tunnel gets the child's logs.
	for {
		m, text := tun.recv()
		if m.Kind == wire.KindResponse {
			t.Fatalf("got %s, want no response for the cancelled call", text)
		}
		if m.Method == "notifications/message" && strings.Contains(text, "cancelled ") {
			if strings.Contains(text, `"b"`) {
				t.Errorf("the child saw the tunnel's id: %s", text)
			}
			if !strings.Contains(text, `reason \"test\"`) {
				t.Errorf("the child's cancellation log %s; want the client's reason \"test\"", text)
			}
			break
		}
	}
	tun.send(`{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"progress","arguments":{"steps":3},"_meta":{"progressToken":"pt"}}}`)
	rest, err := tun.closeAndDrain()
	if err != nil {
		t.Fatalf("tunnel end = %v, want OK", err)
	}
	var got []string
	for _, text := range rest {
		m, _ := wire.Decode([]byte(text))
		switch {
		case m.Kind == wire.KindResponse:
			got = append(got, "response "+string(m.ID))
		case m.Method == "notifications/progress":
			tok, _ := rawjson.Member(m.Params, "progressToken")
			got = append(got, "progress "+string(tok))
		}
	}
	want := []string{`progress "pt"`, `progress "pt"`, `progress "pt"`, `response "p"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after half-close (-want +got):\n%s", diff)
	}
}

// TestConnectServerRequests routes a legacy child's request into the
// tunnel under a bridge-minted id, ahead of an opted-in stream, and the
// tunnel's answer back to the child.
func TestConnectServerRequests(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, streamsFixtureServer(t, "", "legacy"))
	ctx := testCtx(t)
	b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{ServerRequests: true}) // never asked: the tunnel wins
	tun := b.connect(ctx, t, "")
	tun.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}}}`)
	m, text := tun.response("1", func(m wire.Message, text string) {
		if m.Kind != wire.KindRequest {
			return
		}
		if m.Method != "sampling/createMessage" || !strings.HasPrefix(string(m.ID), `"sr-`) {
			t.Errorf("request in the tunnel = %s, want sampling/createMessage under a minted string id", text)
		}
		tun.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"role":"assistant","content":{"type":"text","text":"from the tunnel"},"model":"m"}}`)
	})
	if !strings.Contains(string(m.Result), `from the tunnel`) {
		t.Errorf("ask = %s, want the tunnel's answer", text)
	}
	if _, err := tun.closeAndDrain(); err != nil {
		t.Errorf("tunnel end = %v", err)
	}
}

// TestConnectListen opens a listen through a 2026 tunnel: the
// acknowledgement and the events carry the tunnel's own subscription id.
func TestConnectListen(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, peerServer("", testkit.GoSDKServer(t)))
	ctx := testCtx(t)
	tun := b.connect(ctx, t, "")
	tun.send(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`)
	m, text := tun.recv()
	if m.Method != "notifications/subscriptions/acknowledged" || !strings.Contains(text, `"io.modelcontextprotocol/subscriptionId":"L"`) {
		t.Fatalf("first message = %s, want the acknowledgement for \"L\"", text)
	}
	tun.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_trigger_tool_change","arguments":{}}}`)
	// The event and the tool's result may come in either order.
	var event string
	tun.response("1", func(m wire.Message, text string) {
		if m.Method == "notifications/tools/list_changed" {
			event = text
		}
	})
	for event == "" {
		if m, text := tun.recv(); m.Method == "notifications/tools/list_changed" {
			event = text
		}
	}
	if !strings.Contains(event, `"io.modelcontextprotocol/subscriptionId":"L"`) {
		t.Errorf("event = %s, want the tunnel's subscription id", event)
	}
	tun.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}`)
	rest, err := tun.closeAndDrain()
	if err != nil {
		t.Fatalf("tunnel end = %v", err)
	}
	for _, text := range rest {
		if strings.Contains(text, `"id":"L"`) {
			t.Errorf("after the tunnel cancelled the listen: %s", text)
		}
	}
}

// TestConnectChildExits ends the tunnel with UNAVAILABLE when its child
// exits.
func TestConnectChildExits(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, streamsFixtureServer(t, "", "legacy"))
	ctx := testCtx(t)
	tun := b.connect(ctx, t, "")
	tun.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"exit"}}`)
	for {
		_, err := tun.st.Recv()
		if err != nil {
			wantCode(t, "Recv after the child exited", err, codes.Unavailable)
			return
		}
	}
}

// TestConnectServerField refuses an unknown server before anything
// reaches a child.
func TestConnectServerField(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, streamsFixtureServer(t, "a", "legacy"))
	ctx := testCtx(t)
	st, err := b.client.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.Send(&mcpbridgev1.ConnectRequest{Server: "b", MessageJson: `{"jsonrpc":"2.0","id":1,"method":"ping"}`})
	_, err = st.Recv()
	wantCode(t, "Connect to an unknown server", err, codes.InvalidArgument)
}

// TestConnectLegacyTunnelState checks what a legacy tunnel keeps to
// itself: initialize answered from the negotiated state, its own log
// level, its own resource subscriptions (released at its end), and no
// subscriptions/listen.
func TestConnectLegacyTunnelState(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, streamsFixtureServer(t, "", "legacy"))
	ctx := testCtx(t)
	tun := b.connect(ctx, t, "")
	tun.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	want := `{"protocolVersion":"2025-11-25","capabilities":` + fixtureCaps + `,"serverInfo":{"name":"streams-fixture","version":"1.0.0"},"instructions":"fixture"}`
	if m, _ := tun.response("0", nil); string(m.Result) != want {
		t.Errorf("initialize = %s, want %s", m.Result, want)
	}
	tun.send(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{}}}`)
	if m, text := tun.response("1", nil); !strings.Contains(string(m.Error), "-32601") {
		t.Errorf("subscriptions/listen on a legacy child = %s, want -32601", text)
	}
	tun.send(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}`)
	tun.response("2", nil)
	tun.send(`{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"file:///t"}}`)
	tun.response("3", nil)
	for _, n := range []string{
		`{"method":"notifications/message","params":{"level":"info","data":"too low"}}`,
		`{"method":"notifications/resources/updated","params":{"uri":"file:///other"}}`,
		`{"method":"notifications/message","params":{"level":"error","data":"shown"}}`,
		`{"method":"notifications/resources/updated","params":{"uri":"file:///t"}}`,
	} {
		b.callTool(ctx, t, "", "notify", n)
	}
	var got []string
	for len(got) < 2 {
		m, text := tun.recv()
		if m.Kind == wire.KindNotification {
			got = append(got, text)
		}
	}
	wantNotes := []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"shown"}}`,
		`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///t"}}`,
	}
	if diff := cmp.Diff(wantNotes, got); diff != "" {
		t.Errorf("notifications in the tunnel (-want +got):\n%s", diff)
	}
	if _, err := tun.closeAndDrain(); err != nil {
		t.Fatalf("tunnel end = %v", err)
	}
	// The tunnel's subscription was released before its stream ended.
	if got, want := toolText(t, b.callTool(ctx, t, "", "counts", "")), `{"subscribe":{"file:///t":1},"unsubscribe":{"file:///t":1}}`; got != want {
		t.Errorf("counts after the tunnel ended = %s, want %s", got, want)
	}
}

// TestConnectServerRequestCancelled forwards the child's cancellation of a
// request it sent into the tunnel, under the minted id.
func TestConnectServerRequestCancelled(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, streamsFixtureServer(t, "", "legacy"))
	ctx := testCtx(t)
	tun := b.connect(ctx, t, "")
	tun.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"method":"elicitation/create","params":{"message":"m"}}}}`)
	var asked string
	for asked == "" {
		if m, _ := tun.recv(); m.Kind == wire.KindRequest {
			asked = string(m.ID)
		}
	}
	b.callTool(ctx, t, "", "cancelasks", "")
	// The cancellation and the call's result may come in either order.
	var result, text string
	for asked != "" || result == "" {
		m, line := tun.recv()
		switch {
		case m.Method == "notifications/cancelled":
			if id, _ := rawjson.Member(m.Params, "requestId"); string(id) == asked {
				asked = ""
			}
		case m.Kind == wire.KindResponse && string(m.ID) == "1":
			result, text = string(m.Result), line
		}
	}
	if !strings.Contains(result, "cancelled") {
		t.Errorf("ask = %s", text)
	}
	if _, err := tun.closeAndDrain(); err != nil {
		t.Errorf("tunnel end = %v", err)
	}
}

// A 2026 tunnel is transparent: the child gets the client's own _meta, so
// a request without the required _meta, or naming a version the child
// does not speak, gets the child's own answer (-32602, -32022 with
// supported and requested), as it would without the bridge, and a
// complete request gets its result.
func TestConnectPassesTheClientsMeta(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		argv func(testing.TB) []string
		// the child refuses a request without _meta (the Go SDK server
		// answers it as a legacy request instead: its own answer too)
		strict bool
	}{
		{"go-sdk", testkit.GoSDKServer, false},
		{"runtime", func(tb testing.TB) []string { return nil }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var srv ServerConfig
			if argv := tc.argv(t); argv != nil {
				srv = peerServer("", argv)
			} else {
				srv = fixtureChild(t, "", time.Second)
			}
			b := startStreamsBridge(t, srv)
			ctx := testCtx(t)
			tun := b.connect(ctx, t, "")

			tun.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
			m, text := tun.response("1", nil)
			if tc.strict && !strings.Contains(string(m.Error), "-32602") {
				t.Errorf("tools/list without _meta = %s, want the child's -32602", text)
			}
			if !tc.strict && strings.Contains(string(m.Result), "resultType") {
				t.Errorf("tools/list without _meta = %s, want the child's legacy answer: the bridge added _meta", text)
			}

			bad := strings.Replace(testkit.WithModernMeta(`{}`), `"2026-07-28"`, `"v999.0.0"`, 1)
			tun.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":` + bad + `}`)
			m, text = tun.response("2", nil)
			var e struct {
				Code int64
				Data struct {
					Supported []string
					Requested string
				}
			}
			if json.Unmarshal(m.Error, &e) != nil || e.Code != -32022 || !slices.Contains(e.Data.Supported, "2026-07-28") || e.Data.Requested != "v999.0.0" {
				t.Errorf("tools/list at v999.0.0 = %s, want -32022 with supported and requested", text)
			}

			tun.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":` + testkit.WithModernMeta(`{}`) + `}`)
			if m, text := tun.response("3", nil); m.Result == nil {
				t.Errorf("tools/list with the 2026 _meta = %s, want a result", text)
			}
		})
	}
}

// TestTunnelChildren: a tunnel that opens with initialize gets a child of
// its own, started with that initialize and stopped when the tunnel ends
// (Tunnel private, the default); with Tunnel shared it uses the server's
// child; a server that refuses the client's initialize (a 2026-07-28
// child) serves the tunnel from its own child, across eras.
func TestTunnelChildren(t *testing.T) {
	t.Parallel()
	const initialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"host","version":"1"}}}`
	private := streamsFixtureServer(t, "private", "legacy")
	shared := streamsFixtureServer(t, "shared", "legacy")
	shared.Tunnel = TunnelShared
	modern := streamsFixtureServer(t, "modern", "modern")
	b := startStreamsBridge(t, private, shared, modern)
	ctx := testCtx(t)
	children := func(server string) []*mcpbridgev1.Child {
		t.Helper()
		resp, err := b.client.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: server})
		if err != nil {
			t.Fatal(err)
		}
		return resp.GetChildren()
	}
	for _, c := range []struct {
		server string
		want   int // children while two tunnels are open
	}{{"private", 3}, {"shared", 1}, {"modern", 1}} {
		var tuns []*tunnelConn
		for range 2 {
			tun := b.connectWith(ctx, t, c.server, initialize)
			if m, text := tun.response(`"init"`, nil); m.HasError() || !strings.Contains(text, `"serverInfo"`) {
				t.Fatalf("%s: initialize = %s", c.server, text)
			}
			tuns = append(tuns, tun)
		}
		if got := children(c.server); len(got) != c.want {
			t.Errorf("%s: %d children with two tunnels open, want %d: %v", c.server, len(got), c.want, got)
		}
		for _, tun := range tuns {
			if _, err := tun.closeAndDrain(); err != nil {
				t.Errorf("%s: the tunnel ended with %v", c.server, err)
			}
		}
		deadline := time.Now().Add(30 * time.Second)
		for len(children(c.server)) != 1 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if got := children(c.server); len(got) != 1 {
			t.Errorf("%s: %d children after the tunnels ended, want the server's own: %v", c.server, len(got), got)
		}
	}
}
