package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
)

// BenchmarkHandle measures the runtime alone, without a transport: one
// session's Handle of a tools/call of the echo fixture, in each era, on
// the goroutine that calls it. What it allocates is what the runtime costs
// per request (the transport's own cost is server.BenchmarkServeEcho's).
//
//	go test -run '^$' -bench BenchmarkHandle -benchmem ./stdio/mcp
func BenchmarkHandle(b *testing.B) {
	for _, era := range []struct {
		name    string
		version string // the session's, from initialize; "" on 2026-07-28
		params  string
	}{
		{stdio.Version20260728, "", `{"name":"echo","arguments":{"text":"hello"},` + meta26 + `}`},
		{stdio.Version20251125, stdio.Version20251125, `{"name":"echo","arguments":{"text":"hello"}}`},
	} {
		b.Run("era="+era.name, func(b *testing.B) {
			benchHandle(b, mcp.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, era.version, era.params)
		})
	}
}

// benchHandle times sess.Handle of one tools/call on a test server built
// with cfg, after a legacy initialize when version is set.
func benchHandle(b *testing.B, cfg mcp.Config, version, params string) {
	benchHandleOn(b, newTestServer(b, cfg), version, params)
}

// benchHandleOn is benchHandle on the server srv.
func benchHandleOn(b *testing.B, srv *mcp.Server, version, params string) {
	sess := srv.NewSession(nil)
	b.Cleanup(sess.Close)
	ctx := context.Background()
	if version != "" {
		if _, err := sess.Handle(ctx, &seam.Request{ID: json.RawMessage(`0`), Method: "initialize",
			Params: json.RawMessage(`{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)}); err != nil {
			b.Fatal(err)
		}
	}
	req := &seam.Request{ID: json.RawMessage(`1`), Method: "tools/call", Params: json.RawMessage(params), Version: version}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sess.Handle(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHandleTraced is BenchmarkHandle with tracing on: an SDK
// TracerProvider that samples every span and hands it to a span processor
// that drops it, so that what is timed is the runtime's instrumentation and
// the SDK's span, not an exporter.
//
//	go test -run '^$' -bench BenchmarkHandle -benchmem ./stdio/mcp
func BenchmarkHandleTraced(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	b.Cleanup(func() { tp.Shutdown(context.Background()) })
	for _, era := range []struct {
		name    string
		version string
		params  string
	}{
		{stdio.Version20260728, "", `{"name":"echo","arguments":{"text":"hello"},` + withMeta(stdio.Version20260728, traceparent) + `}`},
		{stdio.Version20251125, stdio.Version20251125, `{"name":"echo","arguments":{"text":"hello"},` + withMeta(stdio.Version20251125, traceparent) + `}`},
	} {
		b.Run("era="+era.name, func(b *testing.B) {
			benchHandle(b, mcp.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), TracerProvider: tp}, era.version, era.params)
		})
	}
}

type forecastArgs struct {
	City  string `json:"city" mcp:"minLength=1"`
	Days  int    `json:"days,omitempty" mcp:"minimum=1,maximum=10"`
	Units string `json:"units,omitempty" mcp:"enum=celsius|fahrenheit"`
}

type forecast struct {
	City  string `json:"city"`
	Days  int    `json:"days"`
	High  int    `json:"high"`
	Units string `json:"units"`
}

// BenchmarkTypedTool compares one tool registered with mcp.AddTool, whose
// arguments the runtime validates against the inferred schema and decodes,
// and whose result it marshals as structuredContent and text, with the
// same tool registered raw (the same schemas, given by hand) whose handler
// does json.Unmarshal into the same struct, without validation, and builds
// the same result. Both run through a session's Handle, the runtime's
// whole request path, as BenchmarkHandle does.
//
//	go test -run '^$' -bench BenchmarkTypedTool -benchmem -count 6 ./stdio/mcp
func BenchmarkTypedTool(b *testing.B) {
	quiet := mcp.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	typed := func(b *testing.B) *mcp.Server {
		srv := newServer(b, "bench", quiet)
		mcp.AddTool(srv, mcp.Tool{Name: "forecast"}, func(_ context.Context, _ *mcp.CallToolRequest, in forecastArgs) (forecast, error) {
			return forecast{City: in.City, Days: in.Days, High: 21, Units: in.Units}, nil
		})
		return srv
	}
	raw := func(b *testing.B) *mcp.Server {
		// The schemas the typed tool advertises, copied from tools/list.
		srv := newServer(b, "bench", quiet)
		mcp.AddTool(srv, mcp.Tool{Name: "schemas"}, func(context.Context, *mcp.CallToolRequest, forecastArgs) (forecast, error) {
			return forecast{}, nil
		})
		list, err := srv.NewSession(nil).Handle(context.Background(), &seam.Request{ID: json.RawMessage(`1`), Method: "tools/list", Params: json.RawMessage(`{` + meta26 + `}`)})
		if err != nil {
			b.Fatal(err)
		}
		var tools struct{ Tools []mcp.Tool }
		if err := json.Unmarshal(list, &tools); err != nil || len(tools.Tools) != 1 {
			b.Fatalf("tools/list = %s, %v", list, err)
		}
		srv.RemoveTools("schemas")
		srv.AddTool(mcp.Tool{Name: "forecast", InputSchema: tools.Tools[0].InputSchema, OutputSchema: tools.Tools[0].OutputSchema},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
				var in forecastArgs
				if err := json.Unmarshal(req.Arguments, &in); err != nil {
					return nil, err
				}
				out, err := json.Marshal(forecast{City: in.City, Days: in.Days, High: 21, Units: in.Units})
				if err != nil {
					return nil, err
				}
				return &mcp.ToolResult{Content: []mcp.Content{mcp.Text(string(out))}, StructuredContent: json.RawMessage(out)}, nil
			})
		return srv
	}
	args := `"arguments":{"city":"Paris","days":3,"units":"celsius"}`
	for _, era := range []struct {
		name    string
		version string
		params  string
	}{
		{stdio.Version20260728, "", `{"name":"forecast",` + args + `,` + meta26 + `}`},
		{stdio.Version20251125, stdio.Version20251125, `{"name":"forecast",` + args + `}`},
	} {
		for _, tool := range []struct {
			name  string
			build func(*testing.B) *mcp.Server
		}{{"typed", typed}, {"raw", raw}} {
			b.Run("era="+era.name+"/tool="+tool.name, func(b *testing.B) {
				benchHandleOn(b, tool.build(b), era.version, era.params)
			})
		}
	}
}
