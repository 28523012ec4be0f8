package bridge

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

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

	svc.Shutdown()
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
