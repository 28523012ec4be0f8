package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// Serve serves an MCP runtime over any reader and writer. Here two pipes
// stand in for the client, which writes to the server's input and reads
// its output: a 2025-11-25 client initializes, then calls a tool. At the
// end of the input Serve answers what it has read and returns nil.
func ExampleServe() {
	srv, err := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	type forecastArgs struct {
		City string `json:"city" jsonschema:"the city"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "forecast", Description: "Tomorrow's forecast for a city"},
		func(_ context.Context, _ *mcp.CallToolRequest, in forecastArgs) (string, error) {
			return "Sunny in " + in.City, nil
		})

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error)
	go func() {
		done <- server.Serve(context.Background(), srv, inR, outW, server.Config{RequestTimeout: time.Minute})
		outW.Close()
	}()
	out := bufio.NewScanner(outR)

	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",`+
		`"capabilities":{},"clientInfo":{"name":"example","version":"1.0.0"}}}`)
	out.Scan() // the initialize result
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Paris"}}}`)
	out.Scan()
	fmt.Println(out.Text())

	inW.Close()
	fmt.Println(<-done)
	// Output:
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Sunny in Paris"}]}}
	// <nil>
}

// Run is a server program's main: it takes standard output for the
// protocol, serves standard input until it ends, and at SIGINT or SIGTERM
// lets the requests in flight finish before it returns. (*mcp.Server).Run
// is the same with the default Config.
func ExampleRun() {
	srv, err := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	type forecastArgs struct {
		City string `json:"city" jsonschema:"the city"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "forecast", Description: "Tomorrow's forecast for a city"},
		func(_ context.Context, _ *mcp.CallToolRequest, in forecastArgs) (string, error) {
			return "Sunny in " + in.City, nil
		})
	if err := server.Run(context.Background(), srv, server.Config{RequestTimeout: time.Minute}); err != nil {
		log.Fatal(err)
	}
}
