package grpcdoor

import (
	"context"
	"maps"
	"slices"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// subscribe opens a Subscribe stream and returns it with its first
// message, the acknowledgement.
func subscribe(ctx context.Context, t *testing.T, client mcpbridgev1.BridgeServiceClient, req *mcpbridgev1.SubscribeRequest) (grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse], *mcpbridgev1.SubscriptionAcknowledged) {
	t.Helper()
	st, err := client.Subscribe(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.Recv()
	if err != nil {
		t.Fatalf("Subscribe(%v) = %v", req, err)
	}
	if m.GetAcknowledged() == nil {
		t.Fatalf("Subscribe(%v): first message %v, want the acknowledgement", req, m)
	}
	return st, m.GetAcknowledged()
}

// nextEvent reads st until a message for which want holds; any other end
// fails the test. The stream's context bounds the wait.
func nextEvent(t *testing.T, st grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse], want func(*mcpbridgev1.SubscribeResponse) bool) *mcpbridgev1.SubscribeResponse {
	t.Helper()
	for {
		m, err := st.Recv()
		if err != nil {
			t.Fatalf("the stream ended with %v before the event", err)
		}
		if want(m) {
			return m
		}
	}
}

// TestSubscribe shows Subscribe on a child of each era: the acknowledgement
// is what the child supports, then a resource update and a tool list
// change come as events, and a legacy child's server requests are offered
// to a stream that opted in.
func TestSubscribe(t *testing.T) {
	t.Parallel()
	_, client := twoEras(t, startEras(t))
	ctx := testCtx(t)
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			sctx, cancel := context.WithCancel(ctx)
			defer cancel()
			st, ack := subscribe(sctx, t, client, &mcpbridgev1.SubscribeRequest{Server: era, ToolsListChanged: true, ResourcesListChanged: true,
				ResourceSubscriptions: []string{"mem://a", "mem://a"}, ServerRequests: era == "legacy", LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO})
			if !ack.GetToolsListChanged() || !ack.GetResourcesListChanged() || ack.GetPromptsListChanged() || !slices.Equal(ack.GetResourceSubscriptions(), []string{"mem://a"}) {
				t.Errorf("acknowledgement %v, want tools and resources list changes and mem://a alone", ack)
			}
			if _, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: era, Name: "touch", Arguments: args(t, map[string]any{"uri": "mem://a"})}); err != nil {
				t.Fatal(err)
			}
			m := nextEvent(t, st, func(m *mcpbridgev1.SubscribeResponse) bool { return m.GetResourceUpdated() != nil })
			if m.GetResourceUpdated().GetUri() != "mem://a" {
				t.Errorf("event %v, want mem://a updated", m)
			}
			if _, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: era, Name: "grow"}); err != nil {
				t.Fatal(err)
			}
			nextEvent(t, st, func(m *mcpbridgev1.SubscribeResponse) bool { return m.GetToolsListChanged() != nil })
			if era != "legacy" {
				return
			}
			// The child asks for input during a unary call: the stream
			// that opted in is offered the request, and its answer
			// reaches the child.
			done := make(chan string, 1)
			go func() {
				res, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: era, Name: "ask"})
				if err != nil || len(res.GetContent()) != 1 {
					done <- err.Error()
					return
				}
				done <- res.GetContent()[0].GetText().GetText()
			}()
			sr := nextEvent(t, st, func(m *mcpbridgev1.SubscribeResponse) bool { return m.GetServerRequest() != nil }).GetServerRequest()
			if _, err := client.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{Server: era, Id: sr.GetId(),
				Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `{"action":"decline"}`}}); err != nil {
				t.Fatalf("RespondToServerRequest = %v", err)
			}
			if got := <-done; got != "decline" {
				t.Errorf("ask answered through the Subscribe stream = %q, want decline", got)
			}
			// A log of the child reaches the stream at its level.
			if _, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: era, Name: "steps", Arguments: args(t, map[string]any{"n": 1})}); err != nil {
				t.Fatal(err)
			}
			m = nextEvent(t, st, func(m *mcpbridgev1.SubscribeResponse) bool { return m.GetLog() != nil })
			if m.GetLog().GetLevel() != mcpbridgev1.LoggingLevel_LOGGING_LEVEL_INFO || m.GetLog().GetLogger() != "fixture" {
				t.Errorf("log event %v, want the fixture's info", m)
			}
		})
	}
	_, err := client.Subscribe(ctx, &mcpbridgev1.SubscribeRequest{Server: "legacy", ResourceSubscriptions: []string{""}})
	if err == nil {
		err = streamEnd(client.Subscribe(ctx, &mcpbridgev1.SubscribeRequest{Server: "legacy", ResourceSubscriptions: []string{""}}))
	}
	wantField(t, "Subscribe(empty URI)", err, "resource_subscriptions")
}

// TestSubscribeEnds shows how a Subscribe stream ends: with UNAVAILABLE
// when its child exits, with UNAVAILABLE and RetryInfo when the bridge
// drains, at once for a stream opened after the drain, and when the
// client cancels it.
func TestSubscribeEnds(t *testing.T) {
	t.Parallel()
	core, client := twoEras(t, startEras(t))
	ctx := testCtx(t)
	for _, era := range eras {
		t.Run(era+" client cancels", func(t *testing.T) {
			sctx, cancel := context.WithCancel(ctx)
			st, _ := subscribe(sctx, t, client, &mcpbridgev1.SubscribeRequest{Server: era, ToolsListChanged: true})
			cancel()
			if _, err := recvAll(st); status.Code(err) != codes.Canceled {
				t.Errorf("Subscribe after the client's cancel = %v, want CANCELLED", err)
			}
		})
	}
	t.Run("drain", func(t *testing.T) {
		var streams []grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse]
		for _, era := range eras {
			st, _ := subscribe(ctx, t, client, &mcpbridgev1.SubscribeRequest{Server: era, ToolsListChanged: true})
			streams = append(streams, st)
		}
		core.drain(rpcerr.ErrDraining)
		for i, st := range streams {
			_, err := recvAll(st)
			d := wantStatus(t, eras[i]+": Subscribe at the drain", err, codes.Unavailable, rpcerr.ReasonChildUnavailable, jsonrpc.CodeConnectionClosed)
			if d.retry.GetRetryDelay().AsDuration() <= 0 {
				t.Errorf("%s: Subscribe at the drain = %v, want RetryInfo", eras[i], err)
			}
		}
		err := streamEnd(client.Subscribe(ctx, &mcpbridgev1.SubscribeRequest{Server: "legacy", ToolsListChanged: true}))
		d := wantStatus(t, "Subscribe after the drain", err, codes.Unavailable, rpcerr.ReasonChildUnavailable, jsonrpc.CodeConnectionClosed)
		if d.retry == nil {
			t.Errorf("Subscribe after the drain = %v, want RetryInfo", err)
		}
	})
	// The drained core refuses every stream; a core that is not draining
	// serves the same servers.
	client = serve(t, newCore(slices.Collect(maps.Values(core.servers))...))
	for _, era := range eras {
		t.Run(era+" child exits", func(t *testing.T) {
			st, _ := subscribe(ctx, t, client, &mcpbridgev1.SubscribeRequest{Server: era, ToolsListChanged: true})
			_, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: era, Name: "exit"})
			wantStatus(t, "CallTool(exit)", err, codes.Unavailable, rpcerr.ReasonChildUnavailable, jsonrpc.CodeConnectionClosed)
			_, err = recvAll(st)
			wantStatus(t, "Subscribe after the child exited", err, codes.Unavailable, rpcerr.ReasonChildUnavailable, jsonrpc.CodeConnectionClosed)
		})
	}
}
