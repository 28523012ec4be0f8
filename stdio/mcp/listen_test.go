package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
)

func noop(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
	return mcp.TextResult("ok"), nil
}

// toolsAndResources is a server with tools and resources but no prompts.
func toolsAndResources(tb testing.TB) *mcp.Server {
	srv := newServer(tb, "test-server", mcp.Config{})
	srv.AddTool(mcp.Tool{Name: "a"}, noop)
	srv.AddResource(mcp.Resource{URI: "test://watched", Name: "watched"}, mcp.TextResource("w"))
	return srv
}

func TestListen(t *testing.T) {
	srv := toolsAndResources(t)
	p := serve(t, srv)
	p.send(request("L1", "subscriptions/listen", `{`+meta26+`,"notifications":{"toolsListChanged":true,"promptsListChanged":true,`+
		`"resourcesListChanged":false,"resourceSubscriptions":["test://watched","test://dir/"],"taskIds":["t"]}}`))
	want := `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":` +
		`{"toolsListChanged":true,"resourceSubscriptions":["test://watched","test://dir/"]},` +
		`"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"}}}`
	if got := p.next(); got != want {
		t.Fatalf("acknowledgement =\n%s\nwant\n%s", got, want)
	}
	srv.AddTool(mcp.Tool{Name: "b"}, noop)
	if got, want := p.next(), `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"}}}`; got != want {
		t.Errorf("event =\n%s\nwant\n%s", got, want)
	}
	// Not subscribed, then subscribed (directly and as a sub-resource):
	// only the latter arrive, in order.
	srv.ResourceUpdated("test://other")
	srv.NotifyPromptsChanged()
	srv.NotifyResourcesChanged()
	srv.ResourceUpdated("test://watched")
	if got, want := p.next(), `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched","_meta":{"io.modelcontextprotocol/subscriptionId":"L1"}}}`; got != want {
		t.Errorf("event =\n%s\nwant\n%s", got, want)
	}
	srv.ResourceUpdated("test://dir/file")
	if got, want := p.next(), `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://dir/file","_meta":{"io.modelcontextprotocol/subscriptionId":"L1"}}}`; got != want {
		t.Errorf("event =\n%s\nwant\n%s", got, want)
	}
	// A second stream on the same connection; cancelling the first leaves
	// it working.
	p.send(request(2, "subscriptions/listen", `{`+meta26+`,"notifications":{"toolsListChanged":true}}`))
	p.next() // its acknowledgement
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L1"}}`)
	// The cancellation is handled inline before the next line is read, so
	// once ping is answered L1 is gone.
	if got := p.call(request(3, "ping", "")); got != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Fatalf("ping = %s", got)
	}
	srv.RemoveTools("b")
	if got, want := p.next(), `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`; got != want {
		t.Errorf("event =\n%s\nwant\n%s", got, want)
	}
	if rest := p.eof(); len(rest) != 0 {
		t.Errorf("after EOF: %q, want nothing (streams close silently)", rest)
	}
}

func TestListenErrors(t *testing.T) {
	p := serve(t, toolsAndResources(t))
	for i, filter := range []string{`"notifications":{"toolsListChanged":"yes"}`, `"notifications":[]`, ``,
		`"notifications":{"resourceSubscriptions":"x"}`} {
		params := `{` + meta26
		if filter != "" {
			params += `,` + filter
		}
		wantError(t, p.call(request(i, "subscriptions/listen", params+`}`)), jsonText(i), -32602)
	}
	wantError(t, p.call(request(10, "subscriptions/listen", `{"notifications":{}}`)), "10", -32602)
	p.initialize("2025-11-25", `{}`)
	wantError(t, p.call(request(11, "subscriptions/listen", `{"notifications":{}}`)), "11", -32601)
	p.eof()
}

// Legacy sessions get unsolicited list changes once initialized, and
// resources/updated for what they subscribed to.
func TestLegacyNotifications(t *testing.T) {
	srv := toolsAndResources(t)
	p := serve(t, srv)
	srv.AddTool(mcp.Tool{Name: "before"}, noop) // not initialized yet: nothing
	p.initialize("2025-11-25", `{}`)
	srv.AddTool(mcp.Tool{Name: "b"}, noop)
	if got := p.next(); got != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
		t.Errorf("got %s, want tools/list_changed", got)
	}
	wantResult(t, p.call(request(1, "resources/subscribe", `{"uri":"test://watched"}`)), "1")
	srv.ResourceUpdated("test://other")
	srv.ResourceUpdated("test://watched")
	if got := p.next(); got != `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched"}}` {
		t.Errorf("got %s, want resources/updated", got)
	}
	wantResult(t, p.call(request(2, "resources/unsubscribe", `{"uri":"test://watched"}`)), "2")
	srv.ResourceUpdated("test://watched")
	if got := p.call(request(3, "ping", "")); got != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("got %s after unsubscribing, want only ping's reply", got)
	}
	wantError(t, p.call(request(4, "resources/subscribe", `{}`)), "4", -32602)
	p.eof()
}

// Producers never block on a slow client: changes coalesce while a stream
// is not pulled, so however many happen, one of each kind is pending.
func TestChangesCoalesce(t *testing.T) {
	srv := toolsAndResources(t)
	sess := srv.NewSession(nil)
	defer sess.Close()
	src, err := sess.Listen(context.Background(), &seam.Request{ID: json.RawMessage(`1`), Method: "subscriptions/listen",
		Params: json.RawMessage(`{` + meta26 + `,"notifications":{"toolsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["test://watched"]}}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close(nil)
	for range 1000 {
		srv.NotifyToolsChanged()
		srv.NotifyResourcesChanged()
		srv.ResourceUpdated("test://watched")
	}
	var got []string
	for range 3 {
		method, params, err := src.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, method+string(params))
	}
	want := []string{"notifications/tools/list_changed", "notifications/resources/list_changed",
		`notifications/resources/updated{"uri":"test://watched"}`}
	if !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := src.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next with nothing pending = %v, want context.Canceled", err)
	}
}
