package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
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
		{mcp.Version20260728, "", `{"name":"echo","arguments":{"text":"hello"},` + meta26 + `}`},
		{mcp.Version20251125, mcp.Version20251125, `{"name":"echo","arguments":{"text":"hello"}}`},
	} {
		b.Run("era="+era.name, func(b *testing.B) {
			benchHandle(b, mcp.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, era.version, era.params)
		})
	}
}

// benchHandle times sess.Handle of one tools/call on a test server built
// with cfg, after a legacy initialize when version is set.
func benchHandle(b *testing.B, cfg mcp.Config, version, params string) {
	srv := newTestServer(b, cfg)
	sess := srv.NewSession(nil)
	b.Cleanup(sess.Close)
	ctx := context.Background()
	if version != "" {
		if _, err := sess.Handle(ctx, &server.Request{ID: json.RawMessage(`0`), Method: "initialize",
			Params: json.RawMessage(`{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)}); err != nil {
			b.Fatal(err)
		}
	}
	req := &server.Request{ID: json.RawMessage(`1`), Method: "tools/call", Params: json.RawMessage(params), Version: version}
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
		{mcp.Version20260728, "", `{"name":"echo","arguments":{"text":"hello"},` + withMeta(mcp.Version20260728, traceparent) + `}`},
		{mcp.Version20251125, mcp.Version20251125, `{"name":"echo","arguments":{"text":"hello"},` + withMeta(mcp.Version20251125, traceparent) + `}`},
	} {
		b.Run("era="+era.name, func(b *testing.B) {
			benchHandle(b, mcp.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), TracerProvider: tp}, era.version, era.params)
		})
	}
}
