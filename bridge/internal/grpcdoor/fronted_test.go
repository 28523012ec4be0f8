package grpcdoor

import (
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// testServers covers the RPCs about the servers: GetServer, ListServers
// (only the servers the caller may use) and Ping (ping, or server/discover
// on a 2026 child).
func testServers(t *testing.T, servers []*pool.Server) {
	core, client := twoEras(t, servers)
	core.hidden["modern"] = true // AllowServer refuses it: ListServers leaves it out
	ctx := testCtx(t)
	for era, version := range map[string]string{"legacy": protocol.Version20251125, "modern": protocol.Version20260728} {
		res, err := client.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: era, WaitForReady: true})
		if err != nil {
			t.Fatalf("GetServer(%s) = %v", era, err)
		}
		if res.GetName() != era || res.GetProtocolVersion() != version || res.GetChild().GetPid() == 0 ||
			res.GetServerInfo().GetFields()["name"].GetStringValue() != "grpcdoor-fixture" {
			t.Errorf("GetServer(%s) = %v, want its %s child described", era, res, version)
		}
		method := "ping"
		if era == "modern" {
			method = "server/discover"
		}
		ping, err := client.Ping(ctx, &mcpbridgev1.PingRequest{Server: era})
		if err != nil {
			t.Fatalf("Ping(%s) = %v", era, err)
		}
		if ping.GetMethod() != method || ping.GetRoundTrip().AsDuration() <= 0 || ping.GetChild().GetPid() != res.GetChild().GetPid() {
			t.Errorf("Ping(%s) = %v, want %s to child %d", era, ping, method, res.GetChild().GetPid())
		}
	}
	list, err := client.ListServers(ctx, &mcpbridgev1.ListServersRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if s := list.GetServers(); len(s) != 1 || s[0].GetName() != "legacy" {
		t.Errorf("ListServers = %v, want legacy alone", list)
	}
	core.hidden = map[string]bool{}
	list, err = client.ListServers(ctx, &mcpbridgev1.ListServersRequest{})
	if s := list.GetServers(); err != nil || len(s) != 2 || s[0].GetName() != "legacy" || s[1].GetName() != "modern" {
		t.Errorf("ListServers = %v, %v; want legacy and modern", list, err)
	}
}

// TestRouteRefusals shows the ways a request fails before any child
// answers it: Lookup's status passes through as it is, the door's refusal
// is the request's status, and a server without a child is UNAVAILABLE.
func TestRouteRefusals(t *testing.T) {
	t.Parallel()
	legacy := startServer(t, "legacy", "legacy", nil)
	broken := startServer(t, "broken", "legacy", func(sc *pool.ServerConfig) {
		sc.Command, sc.Args = "/bin/sh", []string{"-c", "exit 7"}
		sc.MaxRestarts = 1
	})
	core := newCore(legacy, broken)
	client := serve(t, core)
	denying := newCore(legacy)
	// A rule that no anonymous caller matches: the door refuses every
	// request to legacy.
	denying.door = door.New(nil, access.Rules{{Principals: []string{"apikey:nobody"}, Servers: []string{"legacy"}, Tools: []string{"*"}}}, door.Limits{})
	denied := serve(t, denying)
	ctx := testCtx(t)

	unknown := map[string]func(c mcpbridgev1.BridgeServiceClient) error{
		"ListTools": func(c mcpbridgev1.BridgeServiceClient) error {
			_, err := c.ListTools(ctx, &mcpbridgev1.ListToolsRequest{Server: "nope"})
			return err
		},
		"CallTool": func(c mcpbridgev1.BridgeServiceClient) error {
			_, err := c.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "nope", Name: "echo"})
			return err
		},
		"Call": func(c mcpbridgev1.BridgeServiceClient) error {
			_, err := c.Call(ctx, &mcpbridgev1.CallRequest{Server: "nope", Method: "tools/list"})
			return err
		},
		"Ping": func(c mcpbridgev1.BridgeServiceClient) error {
			_, err := c.Ping(ctx, &mcpbridgev1.PingRequest{Server: "nope"})
			return err
		},
		"GetServer": func(c mcpbridgev1.BridgeServiceClient) error {
			_, err := c.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: "nope"})
			return err
		},
		"CallStream": func(c mcpbridgev1.BridgeServiceClient) error {
			return streamEnd(c.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: "nope", Method: "tools/list"}))
		},
		"CallToolStream": func(c mcpbridgev1.BridgeServiceClient) error {
			return streamEnd(c.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: "nope", Name: "echo"}))
		},
		"Subscribe": func(c mcpbridgev1.BridgeServiceClient) error {
			return streamEnd(c.Subscribe(ctx, &mcpbridgev1.SubscribeRequest{Server: "nope"}))
		},
		"RespondToServerRequest": func(c mcpbridgev1.BridgeServiceClient) error {
			_, err := c.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{Server: "nope", Id: "x",
				Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `{}`}})
			return err
		},
	}
	for rpc, call := range unknown {
		d := wantStatus(t, rpc+"(unknown server)", call(client), codes.InvalidArgument, rpcerr.ReasonUnknownServer, jsonrpc.CodeInvalidParams)
		if d.info.GetMetadata()["server"] != "nope" {
			t.Errorf("%s(unknown server): ErrorInfo %v, want server nope", rpc, d.info)
		}
	}

	refused := map[string]func(c mcpbridgev1.BridgeServiceClient) error{
		"ListTools": func(c mcpbridgev1.BridgeServiceClient) error {
			_, err := c.ListTools(ctx, &mcpbridgev1.ListToolsRequest{Server: "legacy"})
			return err
		},
		"GetServer": func(c mcpbridgev1.BridgeServiceClient) error {
			_, err := c.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: "legacy"})
			return err
		},
		"CallToolStream": func(c mcpbridgev1.BridgeServiceClient) error {
			return streamEnd(c.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: "legacy", Name: "echo"}))
		},
		"Subscribe": func(c mcpbridgev1.BridgeServiceClient) error {
			return streamEnd(c.Subscribe(ctx, &mcpbridgev1.SubscribeRequest{Server: "legacy", ToolsListChanged: true}))
		},
	}
	for rpc, call := range refused {
		wantStatus(t, rpc+"(denied)", call(denied), codes.PermissionDenied, rpcerr.ReasonPermissionDenied, jsonrpc.CodeInvalidParams)
	}
	// The same requests pass the open door.
	if _, err := client.ListTools(ctx, &mcpbridgev1.ListToolsRequest{Server: "legacy"}); err != nil {
		t.Errorf("ListTools through the open door = %v", err)
	}

	// A server whose child cannot start: calls are UNAVAILABLE, and
	// GetServer, even waiting for it, describes it.
	_, err := client.Ping(ctx, &mcpbridgev1.PingRequest{Server: "broken"})
	wantStatus(t, "Ping(broken)", err, codes.Unavailable, rpcerr.ReasonChildUnavailable, jsonrpc.CodeConnectionClosed)
	res, err := client.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: "broken", WaitForReady: true})
	if err != nil || res.GetName() != "broken" || res.GetProtocolVersion() != "" {
		t.Errorf("GetServer(broken) = %v, %v; want it described, with no protocol", res, err)
	}
	err = streamEnd(client.Subscribe(ctx, &mcpbridgev1.SubscribeRequest{Server: "broken", ToolsListChanged: true}))
	wantStatus(t, "Subscribe(broken)", err, codes.Unavailable, rpcerr.ReasonChildUnavailable, jsonrpc.CodeConnectionClosed)
}

// streamEnd reads a server stream to its end and returns it: nil for
// io.EOF.
func streamEnd[T any](st grpc.ServerStreamingClient[T], err error) error {
	if err != nil {
		return err
	}
	_, err = recvAll(st)
	return err
}
