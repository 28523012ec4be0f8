package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// A traced server: each request is a server span whose parent is the
// caller's span, named by the traceparent in params._meta, and a handler
// starts child spans from its ctx with the same TracerProvider. Here the
// provider records into memory; a real program would export over OTLP.
func ExampleConfig_tracerProvider() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())

	srv, err := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"}, mcp.Config{TracerProvider: tp})
	if err != nil {
		log.Fatal(err)
	}
	srv.AddTool(mcp.Tool{Name: "forecast"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		// ctx carries the request's span: this span is its child.
		_, span := tp.Tracer("weather").Start(ctx, "lookup")
		defer span.End()
		return mcp.TextResult("Sunny"), nil
	})

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error)
	go func() {
		done <- server.Serve(context.Background(), srv, inR, outW, server.Config{})
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	// The caller's span is 00f067aa0ba902b7, in trace 4bf92f35....
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},`+
		`"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}`)
	lines.Scan() // the response; both spans have ended
	inW.Close()
	<-done

	ended := spans.GetSpans()
	names := map[string]string{"00f067aa0ba902b7": "the caller"}
	for _, s := range ended {
		names[s.SpanContext.SpanID().String()] = s.Name
	}
	for _, s := range ended {
		fmt.Printf("%s (%s), child of %s, trace %s\n", s.Name, s.SpanKind, names[s.Parent.SpanID().String()], s.SpanContext.TraceID())
	}
	// Output:
	// lookup (internal), child of tools/call forecast, trace 4bf92f3577b34da6a3ce929d0e0e4736
	// tools/call forecast (server), child of the caller, trace 4bf92f3577b34da6a3ce929d0e0e4736
}
