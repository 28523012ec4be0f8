package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// nextEvent reads the stream until keep accepts a message.
func nextEvent(tb testing.TB, st grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse], keep func(*mcpbridgev1.SubscribeResponse) bool) *mcpbridgev1.SubscribeResponse {
	tb.Helper()
	for {
		m, err := st.Recv()
		if err != nil {
			tb.Fatalf("Subscribe: Recv = %v", err)
		}
		if keep(m) {
			return m
		}
	}
}

// TestSubscribeListenGoSDK subscribes to the Go SDK conformance server, a
// 2026-07-28 child: the stream is a subscriptions/listen, list changes
// that a tool triggers arrive, and so do the watched resource's updates.
func TestSubscribeListenGoSDK(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, peerServer("", testkit.GoSDKServer(t)))
	ctx := testCtx(t)
	if v := getProtocol(ctx, t, b, ""); v != "2026-07-28" {
		t.Fatalf("protocol = %q, want 2026-07-28", v)
	}
	st, ack := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{
		ToolsListChanged: true, ResourceSubscriptions: []string{"test://watched-resource"},
	})
	want := &mcpbridgev1.SubscriptionAcknowledged{ToolsListChanged: true, ResourceSubscriptions: []string{"test://watched-resource"}}
	if diff := cmp.Diff(want, ack, protocmp.Transform()); diff != "" {
		t.Errorf("acknowledged (-want +got):\n%s", diff)
	}
	b.callTool(ctx, t, "", "test_trigger_tool_change", "")
	nextEvent(t, st, func(m *mcpbridgev1.SubscribeResponse) bool { return m.GetToolsListChanged() != nil })
	// The watched resource changes every 3 s.
	up := nextEvent(t, st, func(m *mcpbridgev1.SubscribeResponse) bool { return m.GetResourceUpdated() != nil })
	if got := up.GetResourceUpdated().GetUri(); got != "test://watched-resource" {
		t.Errorf("resource_updated.uri = %q, want test://watched-resource", got)
	}
}

func getProtocol(ctx context.Context, tb testing.TB, b *streamsBridge, server string) string {
	tb.Helper()
	res, err := b.client.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: server, WaitForReady: true})
	if err != nil {
		tb.Fatalf("GetServer: %v", err)
	}
	return res.GetProtocolVersion()
}

// TestSubscribeListenLifecycle covers how a 2026 Subscribe stream ends,
// against the fixture: cancelling it cancels the listen on the child, the
// child ending the listen ends it and every stream sharing it with OK, and
// the child exiting ends them with UNAVAILABLE.
func TestSubscribeListenLifecycle(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, streamsFixtureServer(t, "", "modern"))
	ctx := testCtx(t)

	t.Run("cancel", func(t *testing.T) {
		sctx, cancel := context.WithCancel(ctx)
		st, ack := b.subscribe(sctx, t, &mcpbridgev1.SubscribeRequest{PromptsListChanged: true})
		if !ack.GetPromptsListChanged() {
			t.Errorf("acknowledged = %v, want prompts_list_changed", ack)
		}
		b.callTool(ctx, t, "", "notify", `{"method":"notifications/prompts/list_changed","params":{"_meta":{"k":"v"}}}`)
		m := nextEvent(t, st, func(*mcpbridgev1.SubscribeResponse) bool { return true })
		if got := m.GetPromptsListChanged().GetMeta().AsMap(); !cmp.Equal(got, map[string]any{"k": "v"}) {
			t.Errorf("prompts_list_changed.meta = %v, want {k:v} without the subscription id", got)
		}
		b.callTool(ctx, t, "", "waitlistens", `{"n":1}`)
		cancel()
		// The fixture answers once the child saw notifications/cancelled.
		b.callTool(ctx, t, "", "waitlistens", `{"n":0}`)
	})

	// Two streams share one listen; both end with it.
	t.Run("child ends the listen", func(t *testing.T) {
		st1, _ := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
		st2, _ := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
		b.callTool(ctx, t, "", "waitlistens", `{"n":1}`)
		b.callTool(ctx, t, "", "endlisten", "")
		for i, st := range []grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse]{st1, st2} {
			if m, err := st.Recv(); err == nil || err.Error() != "EOF" {
				t.Fatalf("stream %d: Recv after the child ended the listen = %v, %v; want EOF", i+1, m, err)
			}
		}
	})

	t.Run("child exits", func(t *testing.T) {
		st1, _ := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
		st2, _ := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
		_, err := b.client.Call(ctx, &mcpbridgev1.CallRequest{Method: "tools/call", ParamsJson: `{"name":"exit"}`})
		wantCode(t, "Call(exit)", err, codes.Unavailable)
		for _, st := range []grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse]{st1, st2} {
			_, err = st.Recv()
			wantCode(t, "Recv after the child exited", err, codes.Unavailable)
		}
	})
}

// TestSubscribeLegacyServerEverything subscribes twice to one resource of
// server-everything, a legacy child: both streams get the updates that
// toggle-subscriber-updates starts, from one resources/subscribe.
func TestSubscribeLegacyServerEverything(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, peerServer("", testkit.ServerEverything(t)))
	ctx := testCtx(t)
	res, err := b.client.Call(ctx, &mcpbridgev1.CallRequest{Method: "resources/list"})
	if err != nil {
		t.Fatalf("Call(resources/list): %v", err)
	}
	var list struct{ Resources []struct{ URI string } }
	if err := json.Unmarshal([]byte(res.GetResultJson()), &list); err != nil || len(list.Resources) == 0 {
		t.Fatalf("resources/list = %s, %v", res.GetResultJson(), err)
	}
	uri := list.Resources[0].URI
	req := &mcpbridgev1.SubscribeRequest{ToolsListChanged: true, ResourceSubscriptions: []string{uri}}
	st1, ack := b.subscribe(ctx, t, req)
	st2, _ := b.subscribe(ctx, t, req)
	want := &mcpbridgev1.SubscriptionAcknowledged{ToolsListChanged: true, ResourceSubscriptions: []string{uri}}
	if diff := cmp.Diff(want, ack, protocmp.Transform()); diff != "" {
		t.Errorf("acknowledged (-want +got):\n%s", diff)
	}
	b.callTool(ctx, t, "", "toggle-subscriber-updates", "")
	defer b.callTool(context.WithoutCancel(ctx), t, "", "toggle-subscriber-updates", "") // stop its timer
	for i, st := range []grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse]{st1, st2} {
		m := nextEvent(t, st, func(m *mcpbridgev1.SubscribeResponse) bool { return m.GetResourceUpdated() != nil })
		if got := m.GetResourceUpdated().GetUri(); got != uri {
			t.Errorf("stream %d: resource_updated.uri = %q, want %q", i+1, got, uri)
		}
	}
}

// TestSubscribeLegacyFanOut checks the legacy fan-out against the fixture:
// each stream gets the kinds it asked for, updates of its URIs and of
// their sub-resources, logs at its level, and every stream of a URI gets
// each update.
func TestSubscribeLegacyFanOut(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, streamsFixtureServer(t, "", "legacy"))
	ctx := testCtx(t)
	a, ackA := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{
		ToolsListChanged: true, ResourceSubscriptions: []string{"file:///a", "file:///dir"},
	})
	c, ackC := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{
		ResourcesListChanged: true, ResourceSubscriptions: []string{"file:///a"}, LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_WARNING,
	})
	if diff := cmp.Diff(&mcpbridgev1.SubscriptionAcknowledged{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///a", "file:///dir"}}, ackA, protocmp.Transform()); diff != "" {
		t.Errorf("acknowledged A (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&mcpbridgev1.SubscriptionAcknowledged{ResourcesListChanged: true, ResourceSubscriptions: []string{"file:///a"}}, ackC, protocmp.Transform()); diff != "" {
		t.Errorf("acknowledged C (-want +got):\n%s", diff)
	}
	notify := func(method, params string) {
		b.callTool(ctx, t, "", "notify", fmt.Sprintf(`{"method":%q,"params":%s}`, method, params))
	}
	notify("notifications/resources/updated", `{"uri":"file:///b"}`)         // nobody
	notify("notifications/message", `{"level":"info","data":"quiet"}`)       // below C's level
	notify("notifications/prompts/list_changed", `{}`)                       // nobody asked
	notify("notifications/resources/updated", `{"uri":"file:///dir/x.txt"}`) // A: a sub-resource
	notify("notifications/resources/updated", `{"uri":"file:///a"}`)         // A and C
	notify("notifications/message", `{"level":"error","logger":"l","data":{"n":1}}`)
	notify("notifications/tools/list_changed", `{}`)
	notify("notifications/resources/list_changed", `{}`)

	got := func(st grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse], n int) []string {
		var out []string
		for range n {
			m := nextEvent(t, st, func(*mcpbridgev1.SubscribeResponse) bool { return true })
			switch {
			case m.GetResourceUpdated() != nil:
				out = append(out, "updated "+m.GetResourceUpdated().GetUri())
			case m.GetLog() != nil:
				out = append(out, fmt.Sprintf("log %v %s %v", m.GetLog().GetLevel(), m.GetLog().GetLogger(), m.GetLog().GetData().AsInterface()))
			case m.GetToolsListChanged() != nil:
				out = append(out, "tools")
			case m.GetResourcesListChanged() != nil:
				out = append(out, "resources")
			default:
				out = append(out, m.String())
			}
		}
		return out
	}
	wantA := []string{"updated file:///dir/x.txt", "updated file:///a", "tools"}
	if diff := cmp.Diff(wantA, got(a, 3)); diff != "" {
		t.Errorf("stream A events (-want +got):\n%s", diff)
	}
	wantC := []string{"updated file:///a", "log LOGGING_LEVEL_ERROR l map[n:1]", "resources"}
	if diff := cmp.Diff(wantC, got(c, 3)); diff != "" {
		t.Errorf("stream C events (-want +got):\n%s", diff)
	}
	counts := toolText(t, b.callTool(ctx, t, "", "counts", ""))
	if want := `{"subscribe":{"file:///a":1,"file:///dir":1},"unsubscribe":{}}`; counts != want {
		t.Errorf("the child's subscribe counts = %s, want %s", counts, want)
	}
}

// TestSubscribeLegacyRefcount shows that a URI is subscribed on the child
// once for all its subscribers, Subscribe streams and Connect tunnels
// alike, and unsubscribed only when the last one leaves.
func TestSubscribeLegacyRefcount(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, streamsFixtureServer(t, "", "legacy"))
	ctx := testCtx(t)
	counts := func() string { return toolText(t, b.callTool(ctx, t, "", "counts", "")) }
	// A watcher of the fixture's logs, which say "subscribe <uri>" and
	// "unsubscribe <uri>" as the child handles them.
	logs, _ := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO})
	nextLog := func() string {
		m := nextEvent(t, logs, func(m *mcpbridgev1.SubscribeResponse) bool { return m.GetLog() != nil })
		return m.GetLog().GetData().GetStringValue()
	}

	// A tunnel subscribes first: the child gets resources/subscribe.
	tun := b.connect(ctx, t, "")
	tun.send(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"file:///x"}}`)
	if m, text := tun.response("1", nil); string(m.Result) != "{}" {
		t.Fatalf("tunnel resources/subscribe = %s", text)
	}
	if got := nextLog(); got != "subscribe file:///x" {
		t.Fatalf("child log = %q, want subscribe file:///x", got)
	}
	// Two Subscribe streams join without reaching the child.
	sctx1, cancel1 := context.WithCancel(ctx)
	s1, _ := b.subscribe(sctx1, t, &mcpbridgev1.SubscribeRequest{ResourceSubscriptions: []string{"file:///x"}})
	sctx2, cancel2 := context.WithCancel(ctx)
	s2, _ := b.subscribe(sctx2, t, &mcpbridgev1.SubscribeRequest{ResourceSubscriptions: []string{"file:///x"}})
	if got, want := counts(), `{"subscribe":{"file:///x":1},"unsubscribe":{}}`; got != want {
		t.Fatalf("counts with three subscribers = %s, want %s", got, want)
	}
	// Every subscriber gets the update.
	b.callTool(ctx, t, "", "notify", `{"method":"notifications/resources/updated","params":{"uri":"file:///x"}}`)
	for i, st := range []grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse]{s1, s2} {
		if m := nextEvent(t, st, func(*mcpbridgev1.SubscribeResponse) bool { return true }); m.GetResourceUpdated().GetUri() != "file:///x" {
			t.Errorf("stream %d got %v, want resource_updated file:///x", i+1, m)
		}
	}
	// The tunnel leaves (its answer comes after the release): the child is
	// not told while the streams remain.
	tun.send(`{"jsonrpc":"2.0","id":2,"method":"resources/unsubscribe","params":{"uri":"file:///x"}}`)
	tun.response("2", nil)
	if got, want := counts(), `{"subscribe":{"file:///x":1},"unsubscribe":{}}`; got != want {
		t.Fatalf("counts after the tunnel left = %s, want %s", got, want)
	}
	// The streams leave; the last one makes the bridge unsubscribe, once.
	cancel1()
	cancel2()
	if got := nextLog(); got != "unsubscribe file:///x" {
		t.Fatalf("child log = %q, want unsubscribe file:///x", got)
	}
	// A newcomer subscribes afresh.
	s3, ack := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{ResourceSubscriptions: []string{"file:///x"}})
	if !slices.Equal(ack.GetResourceSubscriptions(), []string{"file:///x"}) {
		t.Errorf("acknowledged = %v", ack)
	}
	if got := nextLog(); got != "subscribe file:///x" {
		t.Fatalf("child log = %q, want subscribe file:///x", got)
	}
	if got, want := counts(), `{"subscribe":{"file:///x":2},"unsubscribe":{"file:///x":1}}`; got != want {
		t.Fatalf("final counts = %s, want %s", got, want)
	}
	_ = s3
	if _, err := tun.closeAndDrain(); err != nil {
		t.Fatalf("tunnel end = %v", err)
	}
}

// TestSubscribeDropsOldest floods a stream whose client does not read:
// the bridge's buffer stays bounded, the oldest events go, and `dropped`
// accounts for every one of them.
func TestSubscribeDropsOldest(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, streamsFixtureServer(t, "", "legacy"))
	ctx := testCtx(t)
	st, _ := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///f"}})
	const n = 30000
	b.callTool(ctx, t, "", "flood", fmt.Sprintf(`{"n":%d,"uri":"file:///f"}`, n))
	got, dropped, last := 0, 0, -1
	for {
		m, err := st.Recv()
		if err != nil {
			t.Fatalf("Recv: %v", err)
		}
		dropped += int(m.GetDropped())
		if m.GetToolsListChanged() != nil { // the marker after the flood
			break
		}
		seq := int(m.GetResourceUpdated().GetMeta().AsMap()["seq"].(float64))
		if seq <= last {
			t.Fatalf("seq %d after %d: events out of order", seq, last)
		}
		if want := last + 1 + int(m.GetDropped()); seq != want {
			t.Fatalf("seq %d with dropped %d after %d, want %d", seq, m.GetDropped(), last, want)
		}
		last = seq
		got++
	}
	if got+dropped != n {
		t.Errorf("received %d + dropped %d = %d, want %d", got, dropped, got+dropped, n)
	}
	if dropped == 0 {
		t.Errorf("nothing was dropped: the flood did not fill the buffer")
	}
	t.Logf("received %d, dropped %d", got, dropped)
}

// TestSubscribeLegacyChildExits ends a legacy Subscribe stream with
// UNAVAILABLE when the child exits.
func TestSubscribeLegacyChildExits(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, streamsFixtureServer(t, "", "legacy"))
	ctx := testCtx(t)
	st, _ := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///x"}})
	_, err := b.client.Call(ctx, &mcpbridgev1.CallRequest{Method: "tools/call", ParamsJson: `{"name":"exit"}`})
	wantCode(t, "Call(exit)", err, codes.Unavailable)
	_, err = st.Recv()
	wantCode(t, "Recv after the child exited", err, codes.Unavailable)
}
