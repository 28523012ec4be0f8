package bridge

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// payloadRecorder is a grpc stats handler that records every message the
// server received and decoded (stats.InPayload), by method.
type payloadRecorder struct {
	mu       sync.Mutex
	payloads []receivedPayload
}

type receivedPayload struct {
	method string
	bytes  int
}

type methodKey struct{}

func (r *payloadRecorder) TagRPC(ctx context.Context, info *stats.RPCTagInfo) context.Context {
	return context.WithValue(ctx, methodKey{}, info.FullMethodName)
}

func (r *payloadRecorder) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if in, ok := s.(*stats.InPayload); ok {
		method, _ := ctx.Value(methodKey{}).(string)
		r.mu.Lock()
		r.payloads = append(r.payloads, receivedPayload{method, in.WireLength})
		r.mu.Unlock()
	}
}

func (r *payloadRecorder) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}
func (r *payloadRecorder) HandleConn(context.Context, stats.ConnStats) {}

func (r *payloadRecorder) received(method string) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var sizes []int
	for _, p := range r.payloads {
		if p.method == method {
			sizes = append(sizes, p.bytes)
		}
	}
	return sizes
}

// countingConn counts the bytes a client writes to the connection.
type countingConn struct {
	net.Conn
	written *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.written.Add(int64(n))
	return n, err
}

// TestUnauthenticatedMessageNotRead: with authentication on, a caller
// without credentials who sends a 15 MiB CallTool is refused
// UNAUTHENTICATED before the bridge reads the message. The server's stats
// handler sees no message of the refused call (it sees the authenticated
// call's that follows), and the client could not even put the message on
// the wire: the stream was refused at its headers, so that no more than
// its first flow-control window was sent.
func TestUnauthenticatedMessageNotRead(t *testing.T) {
	t.Parallel()
	a, err := access.New(context.Background(), access.Config{APIKeys: []access.APIKey{{Principal: "alice", SHA256: access.HashKey(aliceKey)}}})
	if err != nil {
		t.Fatal(err)
	}
	svc := newService(t, Config{Servers: []ServerConfig{policyServer(t, "p", PolicyShared)}, Logger: slog.New(slog.DiscardHandler), Auth: a})
	rec := &payloadRecorder{}
	addr := serveLoopbackAddr(t, svc.NewGRPCServer(grpc.StatsHandler(rec)))
	var written atomic.Int64
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
			if err != nil {
				return nil, err
			}
			return countingConn{Conn: c, written: &written}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	bc := mcpbridgev1.NewBridgeServiceClient(conn)
	ctx := testCtx(t)
	const callTool = "/mcpbridge.v1.BridgeService/CallTool"

	const big = 15 << 20 // under the 16 MiB default of MaxMessageBytes
	args, err := structpb.NewStruct(map[string]any{"blob": strings.Repeat("x", big)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "p", Name: "pid", Arguments: args})
	if st, _ := status.FromError(err); st.Code() != codes.Unauthenticated || st.Message() != "authentication required" {
		t.Fatalf("an unauthenticated 15 MiB CallTool = %v, want UNAUTHENTICATED \"authentication required\"", err)
	}
	if got := rec.received(callTool); len(got) != 0 {
		t.Errorf("the bridge received CallTool messages of %v bytes from a caller without credentials; want none", got)
	}
	if n := written.Load(); n >= 1<<20 {
		t.Errorf("the client wrote %d bytes for the refused call; want less than 1 MiB of the %d-byte message", n, big)
	}

	// The recorder does see messages: the authenticated caller's.
	if _, err := toolPid(as(ctx, aliceKey), bc, "p", "pid", ""); err != nil {
		t.Fatalf("alice's CallTool = %v", err)
	}
	if got := rec.received(callTool); len(got) != 1 || got[0] >= 1<<20 {
		t.Errorf("the bridge received CallTool messages of %v bytes; want alice's small one alone", got)
	}
}

// TestMetadataBounded: a call's metadata, which the bridge reads before it
// knows the caller, is bounded (maxHeaderListSize): a health check with
// 100 KiB of metadata fails, one with 16 KiB is served.
func TestMetadataBounded(t *testing.T) {
	t.Parallel()
	svc := newService(t, Config{Servers: []ServerConfig{policyServer(t, "p", PolicyShared)}, Logger: slog.New(slog.DiscardHandler)})
	hc := healthpb.NewHealthClient(loopbackBridge(t, svc))
	ctx := testCtx(t)
	check := func(size int) error {
		_, err := hc.Check(metadata.AppendToOutgoingContext(ctx, "x-padding", strings.Repeat("x", size)), &healthpb.HealthCheckRequest{Service: ""})
		return err
	}
	if err := check(16 << 10); err != nil {
		t.Errorf("a health check with 16 KiB of metadata = %v, want it served", err)
	}
	if err := check(100 << 10); status.Code(err) != codes.Internal {
		t.Errorf("a health check with 100 KiB of metadata = %v, want it refused (INTERNAL)", err)
	}
}
