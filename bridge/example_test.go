package bridge_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/bridge"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// New fronts stdio MCP servers, and NewGRPCServer serves them as the gRPC
// service mcpbridge.v1.BridgeService. Here the one server, "weather", is
// this package's test binary re-executed as a small stdio MCP server with
// a forecast tool; any command works the same way (Command "npx", Args
// "-y", "@modelcontextprotocol/server-everything", say). A client made
// from the generated stubs calls its tool and lists the servers over
// loopback.
func ExampleNew() {
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	svc, err := bridge.New(bridge.Config{
		Servers: []bridge.ServerConfig{{
			Name:    "weather",
			Command: exe,
			Env:     []bridge.EnvVar{{Name: testkit.FixtureEnv, Value: "weather"}},
		}},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer svc.Close() // last: stops the children

	gs := svc.NewGRPCServer()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	served := make(chan error)
	go func() { served <- gs.Serve(lis) }()
	defer func() {
		gs.Stop()
		<-served
	}()

	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	client := mcpbridgev1.NewBridgeServiceClient(conn)
	ctx := context.Background()

	args, err := structpb.NewStruct(map[string]any{"city": "Paris"})
	if err != nil {
		log.Fatal(err)
	}
	res, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "weather", Name: "forecast", Arguments: args})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.GetContent()[0].GetText().GetText())

	list, err := client.ListServers(ctx, &mcpbridgev1.ListServersRequest{})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range list.GetServers() {
		fmt.Println(s.GetName(), s.GetProtocolVersion(), s.GetServerInfo().GetFields()["name"].GetStringValue())
	}
	// Output:
	// Sunny in Paris
	// weather 2026-07-28 weather
}

// Serve and Shutdown are the bridge's whole lifecycle, as http.Server's
// are: a program embeds the bridge by opening its listeners, serving on
// them, and calling Shutdown when it stops, which drains health and the
// long-lived streams, waits for the calls in flight until its context
// ends, aborts the rest with UNAVAILABLE and RetryInfo, and stops the
// children. Here the gRPC API and the HTTP door (MCP Streamable HTTP at
// /mcp/weather) both serve the weather server.
func ExampleService_Serve() {
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	svc, err := bridge.New(bridge.Config{
		Servers: []bridge.ServerConfig{{Name: "weather", Command: exe, Env: []bridge.EnvVar{{Name: testkit.FixtureEnv, Value: "weather"}}}},
		Logger:  slog.New(slog.DiscardHandler),
	})
	if err != nil {
		log.Fatal(err)
	}
	grpcLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	httpLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- svc.Serve(bridge.Listeners{GRPC: grpcLis, HTTP: httpLis}, bridge.ServeOptions{}) }()

	conn, err := grpc.NewClient(grpcLis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	args, _ := structpb.NewStruct(map[string]any{"city": "Oslo"})
	res, err := mcpbridgev1.NewBridgeServiceClient(conn).CallTool(context.Background(),
		&mcpbridgev1.CallToolRequest{Name: "forecast", Arguments: args})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.GetContent()[0].GetText().GetText())

	// A remote MCP host would use http://<addr>/mcp/weather.
	fmt.Println(strings.HasPrefix("http://"+httpLis.Addr().String()+"/mcp/weather", "http://127.0.0.1:"))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	fmt.Println(svc.Shutdown(ctx), <-served)
	// Output:
	// Sunny in Oslo
	// true
	// <nil> bridge: service closed
}
