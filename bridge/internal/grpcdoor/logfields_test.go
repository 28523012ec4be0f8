package grpcdoor

import (
	"context"
	"testing"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// fields are the log fields of ctx, as a map.
func fields(ctx context.Context) map[string]any {
	out := map[string]any{}
	for it := logging.ExtractFields(ctx).Iterator(); it.Next(); {
		k, v := it.At()
		out[k] = v
	}
	return out
}

// recvStream is a server stream whose one message is msg.
type recvStream struct {
	grpc.ServerStream
	ctx context.Context
	msg *mcpbridgev1.CallRequest
}

func (s recvStream) Context() context.Context { return s.ctx }
func (s recvStream) RecvMsg(m any) error {
	*(m.(*mcpbridgev1.CallRequest)) = mcpbridgev1.CallRequest{Server: s.msg.GetServer(), Method: s.msg.GetMethod()}
	return nil
}

// A call's log line names its server (the mcp-server metadata, else the
// request's field, else the only server), its MCP method and its tool,
// prompt or resource; a stream's, those of its first message too.
func TestLogFields(t *testing.T) {
	core := newCore()
	core.servers["only"] = (*pool.Server)(nil)
	lf := NewLogFields(core)
	unary := func(ctx context.Context, method string, req any) map[string]any {
		var got map[string]any
		_, err := lf.Unary(ctx, req, &grpc.UnaryServerInfo{FullMethod: "/mcpbridge.v1.BridgeService/" + method},
			func(ctx context.Context, _ any) (any, error) { got = fields(ctx); return nil, nil })
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	byMetadata := metadata.NewIncomingContext(t.Context(), metadata.Pairs(ServerMetadataKey, "demo"))
	for _, c := range []struct {
		name   string
		got    map[string]any
		server any
		method any
		mcp    any
	}{
		{"CallTool by metadata", unary(byMetadata, "CallTool", &mcpbridgev1.CallToolRequest{Name: "echo"}), "demo", "tools/call", "echo"},
		{"ReadResource by field", unary(t.Context(), "ReadResource", &mcpbridgev1.ReadResourceRequest{Server: "docs", Uri: "file:///a"}), "docs", "resources/read", "file:///a"},
		{"Call of the only server", unary(t.Context(), "Call", &mcpbridgev1.CallRequest{Method: "ping"}), "only", "ping", nil},
	} {
		if c.got[logServer] != c.server || c.got[logMCPMethod] != c.method || c.got[logMCPName] != c.mcp {
			t.Errorf("%s: fields %v; want server %v, mcp.method %v, mcp.name %v", c.name, c.got, c.server, c.method, c.mcp)
		}
	}
	if got := unary(t.Context(), "ListServers", &mcpbridgev1.ListServersRequest{}); got[logServer] != nil {
		t.Errorf("ListServers names a server: %v", got)
	}

	ctx := logging.InjectFields(t.Context(), logging.Fields{})
	var got map[string]any
	err := lf.Stream(nil, recvStream{ctx: ctx, msg: &mcpbridgev1.CallRequest{Server: "docs", Method: "resources/subscribe"}},
		&grpc.StreamServerInfo{FullMethod: "/mcpbridge.v1.BridgeService/CallStream"},
		func(_ any, ss grpc.ServerStream) error {
			var m mcpbridgev1.CallRequest
			if err := ss.RecvMsg(&m); err != nil {
				return err
			}
			got = fields(ss.Context())
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if got[logServer] != "docs" || got[logMCPMethod] != "resources/subscribe" {
		t.Errorf("a stream's fields after its first message: %v", got)
	}
}
