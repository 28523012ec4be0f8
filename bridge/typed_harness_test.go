package bridge

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// typedGrace is the stop grace of test children: server-everything ignores
// stdin EOF while its timers run, so it needs the SIGTERM.
const typedGrace = 500 * time.Millisecond

// typedHarness is a bridge serving real gRPC on loopback, and a client of
// it made from the generated stubs.
type typedHarness struct {
	svc *Service
	bc  mcpbridgev1.BridgeServiceClient
}

// startTypedBridge starts a Service fronting servers, serves it on
// 127.0.0.1:0 with NewGRPCServer, and dials it. Cleanup closes the client,
// stops the gRPC server and waits for Serve to return, then stops every
// child (svc.Close).
func startTypedBridge(tb testing.TB, servers ...ServerConfig) *typedHarness {
	tb.Helper()
	svc, err := New(Config{Servers: servers, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	tb.Cleanup(func() { svc.Close() }) // after serveLoopback's cleanup
	conn := serveLoopback(tb, svc.NewGRPCServer())
	return &typedHarness{svc: svc, bc: mcpbridgev1.NewBridgeServiceClient(conn)}
}

// serveLoopback serves gs on 127.0.0.1:0 and dials it. Cleanup closes the
// connection, then stops gs and waits for Serve to return.
func serveLoopback(tb testing.TB, gs *grpc.Server) *grpc.ClientConn {
	tb.Helper()
	conn, err := grpc.NewClient(serveLoopbackAddr(tb, gs), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		tb.Fatalf("NewClient: %v", err)
	}
	tb.Cleanup(func() { conn.Close() })
	return conn
}

// serveLoopbackAddr serves gs on 127.0.0.1:0 and returns its address, for
// a test that dials it its own way. Cleanup stops gs and waits for Serve
// to return.
func serveLoopbackAddr(tb testing.TB, gs *grpc.Server) string {
	tb.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("Listen: %v", err)
	}
	served := make(chan struct{})
	go func() { // stopped by gs.Stop in cleanup
		defer close(served)
		gs.Serve(lis)
	}()
	tb.Cleanup(func() {
		gs.Stop()
		<-served
	})
	return lis.Addr().String()
}

// goSDKServer fronts the Go SDK conformance server; versions pins its era
// (none: negotiated, which is 2026-07-28).
func goSDKServer(tb testing.TB, name string, versions ...string) ServerConfig {
	argv := testkit.GoSDKServer(tb)
	return ServerConfig{Name: name, Command: argv[0], Args: argv[1:], Versions: versions, Grace: typedGrace}
}

// everythingServer fronts the npm server-everything (legacy era); it skips
// the test when the peer is not installed.
func everythingServer(tb testing.TB, name string) ServerConfig {
	argv := testkit.ServerEverything(tb)
	return ServerConfig{Name: name, Command: argv[0], Args: argv[1:], Grace: typedGrace}
}

// fixtureServer fronts a fixture of this test binary.
func fixtureServer(tb testing.TB, name, fixture string, env ...string) ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	vars := envVars(append([]string{testkit.FixtureEnv + "=" + fixture, testkit.QuickRaceExit()}, env...)...)
	return ServerConfig{Name: name, Command: exe, Env: vars, Grace: typedGrace}
}

// typedChildServer fronts the "typed-child" fixture in an era ("modern" or
// "legacy").
func typedChildServer(tb testing.TB, name, era string) ServerConfig {
	return fixtureServer(tb, name, "typed-child", typedChildEraEnv+"="+era)
}

// directClient connects a stdio.Client to the child sc describes, as the
// bridge's supervisor would, for comparisons with the bridge. Cleanup stops
// the child and waits until it is gone.
func directClient(tb testing.TB, sc ServerConfig) *stdio.Client {
	tb.Helper()
	cfg := stdio.ClientConfig{Logger: slog.New(slog.DiscardHandler)}
	var started []*stdio.Client
	c, err := stdio.Connect(context.Background(), func(ctx context.Context) (*stdio.Client, error) {
		c, err := stdio.Start(ctx, pool.Command(&sc, &strings.Builder{}, nil), cfg)
		if err == nil {
			started = append(started, c)
		}
		return c, err
	}, stdio.ConnectConfig{Versions: sc.Versions, Capabilities: pool.Capabilities(&sc)}) // what the bridge declares
	tb.Cleanup(func() {
		for _, c := range started {
			testkit.StopChild(tb, c, typedGrace)
		}
	})
	if err != nil {
		tb.Fatalf("Connect(%s): %v", sc.Command, err)
	}
	return c
}

// statusDetails checks that err is a status with code want and returns its
// JsonRpcError and ErrorInfo details, failing the test when either is
// missing.
func statusDetails(tb testing.TB, err error, want codes.Code) (*mcpbridgev1.JsonRpcError, *errdetails.ErrorInfo) {
	tb.Helper()
	st, ok := status.FromError(err)
	if !ok || st.Code() != want {
		tb.Fatalf("error = %v, want code %v", err, want)
	}
	var rpc *mcpbridgev1.JsonRpcError
	var info *errdetails.ErrorInfo
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *mcpbridgev1.JsonRpcError:
			rpc = d
		case *errdetails.ErrorInfo:
			info = d
		}
	}
	if rpc == nil || info == nil {
		tb.Fatalf("status %v has details %v, want a JsonRpcError and an ErrorInfo", st, st.Details())
	}
	return rpc, info
}

// recvAll reads a stream to its end: every message, and the final error
// (nil for OK).
func recvAll[T any](stream grpc.ServerStreamingClient[T]) ([]*T, error) {
	var out []*T
	for {
		m, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		out = append(out, m)
	}
}
