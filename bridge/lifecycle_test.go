package bridge

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// TestShutdownSequence drives Serve and Shutdown as a program that
// embeds the bridge would: while a call is held past the shutdown
// deadline, Shutdown turns health NOT_SERVING at once, waits the drain
// delay and the graceful stop, then ends the held call UNAVAILABLE with
// RetryInfo at the deadline and returns the deadline's error; Serve
// returns ErrServiceClosed, and the health listener answers until the
// end.
func TestShutdownSequence(t *testing.T) {
	t.Parallel()
	svc, err := New(Config{Servers: []ServerConfig{policyServer(t, "p", PolicyShared)}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	listen := func() net.Listener {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return lis
	}
	grpcLis, healthLis := listen(), listen()
	served := make(chan error, 1)
	go func() {
		served <- svc.Serve(Listeners{GRPC: grpcLis, Health: healthLis}, ServeOptions{DrainDelay: 300 * time.Millisecond})
	}()
	dial := func(addr string) *grpc.ClientConn {
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	bc := mcpbridgev1.NewBridgeServiceClient(dial(grpcLis.Addr().String()))
	health := healthpb.NewHealthClient(dial(healthLis.Addr().String()))
	ctx := testCtx(t)
	if _, err := bc.Ping(ctx, &mcpbridgev1.PingRequest{Server: "p"}); err != nil {
		t.Fatal(err)
	}
	held := make(chan error, 1)
	go func() {
		_, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "p", Name: "hold", Arguments: argsStruct(`{"ms":60000}`)})
		held <- err
	}()
	for { // until the child runs the hold
		n, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "p", Name: "count", Arguments: argsStruct(`{"name":"hold"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if n.GetContent()[0].GetText().GetText() == "1" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}

	stopCtx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- svc.Shutdown(stopCtx) }()
	for { // health NOT_SERVING first, while the drain delay runs
		res, err := health.Check(ctx, &healthpb.HealthCheckRequest{})
		if err != nil {
			t.Fatalf("health during the drain: %v", err)
		}
		if res.GetStatus() == healthpb.HealthCheckResponse_NOT_SERVING {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-held:
		t.Fatalf("the held call ended before the deadline: %v", err)
	default:
	}
	err = <-held
	wantCode(t, "the held call at the shutdown deadline", err, codes.Unavailable)
	if !hasRetryInfo(err) {
		t.Errorf("the held call at the deadline = %v, want RetryInfo", err)
	}
	if err := <-stopped; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown = %v, want the deadline's error: calls were aborted", err)
	}
	if err := <-served; !errors.Is(err, ErrServiceClosed) {
		t.Errorf("Serve = %v, want ErrServiceClosed", err)
	}
	if err := svc.Shutdown(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a second Shutdown = %v, want the first one's outcome", err)
	}
}
