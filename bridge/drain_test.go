package bridge

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// Shutdown ends the long-lived streams at once, an idle tunnel and a
// quiet subscription alike, with UNAVAILABLE and RetryInfo, so that a
// graceful stop of the gRPC server is held only by calls; a call in
// flight is still answered.
func TestShutdownEndsLongLivedStreams(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	logs := &testkit.Lines{}
	svc := newService(t, Config{Servers: []ServerConfig{fixtureChild(t, "", time.Second)}, Logger: logs.Logger()})
	gs := svc.NewGRPCServer()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }()
	defer func() { gs.Stop(); <-served }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	bc := mcpbridgev1.NewBridgeServiceClient(conn)

	sub, err := bc.Subscribe(ctx, &mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	if ack, err := sub.Recv(); err != nil || ack.GetAcknowledged() == nil {
		t.Fatalf("Subscribe = %v, %v; want its acknowledgement", ack, err)
	}
	tun, err := bc.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tun.Send(&mcpbridgev1.ConnectRequest{MessageJson: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}); err != nil {
		t.Fatal(err)
	}
	if _, err := tun.Recv(); err != nil {
		t.Fatalf("the tunnel's first answer: %v", err)
	}
	slow := make(chan error, 1)
	go func() {
		_, err := callTool(ctx, bc, "block", `{}`)
		slow <- err
	}()
	logs.WaitFor(ctx, t, "fixture: blocking")

	svc.Drain()
	for name, recv := range map[string]func() error{
		"Subscribe": func() error { _, err := sub.Recv(); return err },
		"Connect": func() error {
			for {
				if _, err := tun.Recv(); err != nil {
					return err
				}
			}
		},
	} {
		err := recv()
		if err == io.EOF {
			t.Fatalf("%s ended OK at Shutdown, want UNAVAILABLE", name)
		}
		_, rpc, info, retry := splitStatus(err)
		if code := status.Code(err); code != codes.Unavailable || rpc.GetMessage() != "The bridge is shutting down" || info.GetReason() != "CHILD_UNAVAILABLE" || retry == nil {
			t.Errorf("%s at Shutdown = %v (retry %v), want UNAVAILABLE \"The bridge is shutting down\" with RetryInfo", name, err, retry)
		}
	}
	stopped := make(chan struct{})
	go func() {
		gs.GracefulStop() // waits for the blocked call only
		close(stopped)
	}()
	select {
	case <-stopped:
		t.Fatal("GracefulStop returned with a call in flight")
	case <-time.After(200 * time.Millisecond):
	}
	gs.Stop() // the shutdown timeout: the call is cancelled
	<-stopped
	if err := <-slow; status.Code(err) != codes.Unavailable && status.Code(err) != codes.Canceled {
		t.Errorf("the call in flight at Stop = %v, want it ended", err)
	}
}

// After Shutdown the overall health is NOT_SERVING and LivenessService
// still SERVING (a liveness probe must not restart a draining bridge); a
// new Subscribe is refused at once with UNAVAILABLE and RetryInfo, while
// calls are still served. Abort then ends the call in flight, and any
// later one, with UNAVAILABLE and RetryInfo, so that their callers retry
// on another replica.
func TestAbortEndsCallsWithRetryInfo(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	logs := &testkit.Lines{}
	svc := newService(t, Config{Servers: []ServerConfig{fixtureChild(t, "", time.Second)}, Logger: logs.Logger()})
	conn := loopbackBridge(t, svc)
	bc := mcpbridgev1.NewBridgeServiceClient(conn)
	hc := healthpb.NewHealthClient(conn)
	settle(ctx, t, func() error {
		if res, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}); res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			return fmt.Errorf("health = %v, %v; want SERVING", res, err)
		}
		return nil
	})
	slow := make(chan error, 1)
	go func() {
		_, err := callTool(ctx, bc, "block", `{}`)
		slow <- err
	}()
	logs.WaitFor(ctx, t, "fixture: blocking")

	svc.Drain()
	for service, want := range map[string]healthpb.HealthCheckResponse_ServingStatus{
		"": healthpb.HealthCheckResponse_NOT_SERVING, LivenessService: healthpb.HealthCheckResponse_SERVING,
	} {
		if res, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: service}); err != nil || res.GetStatus() != want {
			t.Errorf("health of %q after Shutdown = %v, %v; want %v", service, res.GetStatus(), err, want)
		}
	}
	isDrained := func(what string, err error) {
		t.Helper()
		_, rpc, _, retry := splitStatus(err)
		if status.Code(err) != codes.Unavailable || rpc.GetMessage() != "The bridge is shutting down" || retry == nil {
			t.Errorf("%s = %v (retry %v), want UNAVAILABLE \"The bridge is shutting down\" with RetryInfo", what, err, retry)
		}
	}
	// Each is refused before it sends anything, its acknowledgement
	// included (once, under load, one was acknowledged first).
	for range 20 {
		sub, err := bc.Subscribe(ctx, &mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
		if err == nil {
			_, err = sub.Recv()
		}
		isDrained("a Subscribe after Shutdown", err)
	}
	if _, err := bc.Ping(ctx, &mcpbridgev1.PingRequest{}); err != nil {
		t.Errorf("a call after Shutdown = %v, want it served", err)
	}
	select {
	case err := <-slow:
		t.Fatalf("the call in flight ended at Shutdown: %v", err)
	default:
	}

	svc.Abort()
	isDrained("the call in flight at Abort", <-slow)
	_, err := bc.Ping(ctx, &mcpbridgev1.PingRequest{})
	isDrained("a call after Abort", err)
	logs.WaitFor(ctx, t, "fixture: cancelled") // on the child too
}

// A long-lived stream opened after Shutdown is refused before it begins:
// its context is already cancelled when the handler gets it, not a moment
// later by AfterFunc's goroutine, when it might have sent its first
// message (a Subscribe's acknowledgement once did, under load).
func TestLongLivedAfterShutdownIsRefusedAtOnce(t *testing.T) {
	svc := newService(t, Config{Servers: []ServerConfig{fixtureChild(t, "", time.Second)}, Logger: slog.New(slog.DiscardHandler)})
	svc.Drain()
	for range 100 {
		ctx, end := svc.longLived(context.Background())
		refused := rpcerr.RefusedDraining(ctx)
		end()
		if !refused {
			t.Fatal("a stream's context after Shutdown is not yet cancelled with errDraining")
		}
	}
}
