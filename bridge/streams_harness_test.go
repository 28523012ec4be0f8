package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// testWait bounds every wait for an event in these tests; events come
// much sooner, so only a broken bridge reaches it.
const testWait = 20 * time.Second

// streamsBridge is a Service behind a real gRPC server on loopback and a
// client connected to it. Cleanup stops the server, the client and every
// child.
type streamsBridge struct {
	svc    *Service
	client mcpbridgev1.BridgeServiceClient
	addr   string // the gRPC server's host:port, for clients in other processes
}

func startStreamsBridge(tb testing.TB, servers ...ServerConfig) *streamsBridge {
	tb.Helper()
	for i := range servers {
		if servers[i].Grace == 0 {
			servers[i].Grace = time.Second
		}
	}
	log := slog.New(slog.DiscardHandler)
	if os.Getenv("BRIDGE_TEST_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	svc, err := New(Config{Servers: servers, Logger: log})
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		svc.Close()
		tb.Fatalf("listen: %v", err)
	}
	gs := svc.NewGRPCServer()
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = gs.Serve(lis)
	}()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		gs.Stop()
		<-served
		svc.Close()
		tb.Fatalf("grpc.NewClient: %v", err)
	}
	tb.Cleanup(func() {
		conn.Close()
		gs.Stop()
		<-served
		svc.Close()
	})
	return &streamsBridge{svc: svc, client: mcpbridgev1.NewBridgeServiceClient(conn), addr: lis.Addr().String()}
}

// streamsFixtureServer runs the "streams" fixture as a server.
func streamsFixtureServer(tb testing.TB, name, era string) ServerConfig {
	tb.Helper()
	sc := fixtureServer(tb, name, "streams", "STREAMS_FIXTURE_ERA="+era)
	sc.Grace = 0
	return sc
}

// peerServer runs a real peer from its argv.
func peerServer(name string, argv []string) ServerConfig {
	return ServerConfig{Name: name, Command: argv[0], Args: argv[1:]}
}

// everythingCaps are the client capabilities under which
// server-everything registers its roots, sampling and elicitation tools.
const everythingCaps = `{"roots":{},"sampling":{},"elicitation":{}}`

func testCtx(tb testing.TB) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	tb.Cleanup(cancel)
	return ctx
}

// callTool runs tools/call through the unary Call RPC and returns the
// result's JSON text.
func (b *streamsBridge) callTool(ctx context.Context, tb testing.TB, server, name, args string) string {
	tb.Helper()
	if args == "" {
		args = "{}"
	}
	res, err := b.client.Call(ctx, &mcpbridgev1.CallRequest{
		Server: server, Method: "tools/call", ParamsJson: `{"name":"` + name + `","arguments":` + args + `}`,
	})
	if err != nil {
		tb.Fatalf("Call(tools/call %s) = %v", name, err)
	}
	return res.GetResultJson()
}

// toolText is the first text block of a tools/call result.
func toolText(tb testing.TB, result string) string {
	tb.Helper()
	var r struct {
		Content []struct{ Text string }
	}
	if err := json.Unmarshal([]byte(result), &r); err != nil || len(r.Content) == 0 {
		tb.Fatalf("tool result %s has no text", result)
	}
	return r.Content[0].Text
}

// subscribe opens a Subscribe stream and returns it with its
// acknowledgement.
func (b *streamsBridge) subscribe(ctx context.Context, tb testing.TB, req *mcpbridgev1.SubscribeRequest) (grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse], *mcpbridgev1.SubscriptionAcknowledged) {
	tb.Helper()
	st, err := b.client.Subscribe(ctx, req)
	if err != nil {
		tb.Fatalf("Subscribe: %v", err)
	}
	first, err := st.Recv()
	if err != nil {
		tb.Fatalf("Subscribe: first Recv = %v", err)
	}
	ack := first.GetAcknowledged()
	if ack == nil {
		tb.Fatalf("Subscribe: first message = %v, want acknowledged", first)
	}
	return st, ack
}

// wantCode checks a gRPC error's code.
func wantCode(tb testing.TB, what string, err error, want codes.Code) {
	tb.Helper()
	if status.Code(err) != want {
		tb.Fatalf("%s = %v, want %v", what, err, want)
	}
}

// tunnelConn is a Connect stream with helpers for JSON-RPC lines.
type tunnelConn struct {
	tb testing.TB
	st grpc.BidiStreamingClient[mcpbridgev1.ConnectRequest, mcpbridgev1.ConnectResponse]
}

func (b *streamsBridge) connect(ctx context.Context, tb testing.TB, server string) *tunnelConn {
	tb.Helper()
	return b.connectWith(ctx, tb, server, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// connectWith opens a tunnel whose first message is first: a host's
// initialize, for the child of its own that it gets (connect's first
// message is not one, and shares the server's children).
func (b *streamsBridge) connectWith(ctx context.Context, tb testing.TB, server, first string) *tunnelConn {
	tb.Helper()
	st, err := b.client.Connect(ctx)
	if err != nil {
		tb.Fatalf("Connect: %v", err)
	}
	if err := st.Send(&mcpbridgev1.ConnectRequest{Server: server, MessageJson: first}); err != nil {
		tb.Fatalf("Connect: first Send: %v", err)
	}
	return &tunnelConn{tb: tb, st: st}
}

func (c *tunnelConn) send(line string) {
	c.tb.Helper()
	if err := c.st.Send(&mcpbridgev1.ConnectRequest{MessageJson: line}); err != nil {
		c.tb.Fatalf("Connect: Send(%s) = %v", line, err)
	}
}

// recv returns the next message from the tunnel, decoded.
func (c *tunnelConn) recv() (wire.Message, string) {
	c.tb.Helper()
	resp, err := c.st.Recv()
	if err != nil {
		c.tb.Fatalf("Connect: Recv = %v", err)
	}
	text := resp.GetMessageJson()
	m, err := wire.Decode([]byte(text))
	if err != nil {
		c.tb.Fatalf("Connect: the bridge sent %q, not JSON-RPC: %v", text, err)
	}
	return m, text
}

// response reads until the response with id (JSON text) and returns it;
// other messages go to other.
func (c *tunnelConn) response(id string, other func(wire.Message, string)) (wire.Message, string) {
	c.tb.Helper()
	for {
		m, text := c.recv()
		if m.Kind == wire.KindResponse && string(m.ID) == id {
			return m, text
		}
		if other != nil {
			other(m, text)
		}
	}
}

// closeAndDrain half-closes the tunnel and returns everything it sends
// until it ends, with the final status.
func (c *tunnelConn) closeAndDrain() ([]string, error) {
	c.tb.Helper()
	if err := c.st.CloseSend(); err != nil {
		c.tb.Fatalf("CloseSend: %v", err)
	}
	var got []string
	for {
		resp, err := c.st.Recv()
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got = append(got, resp.GetMessageJson())
	}
}

// directPeer connects a stdio.Client straight to a peer, for comparing
// results with the bridge's.
func directPeer(tb testing.TB, argv []string, caps string) *stdio.Client {
	tb.Helper()
	sc := ServerConfig{Command: argv[0], Args: argv[1:]}
	if caps != "" {
		sc.Capabilities = json.RawMessage(caps)
	}
	return directClient(tb, sc)
}

var (
	_ = testkit.GoSDKServer
)
