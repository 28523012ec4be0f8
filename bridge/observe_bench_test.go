package bridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// BenchmarkObservability compares, in one run, the same CallTool (the
// policy fixture's pid tool, a fast child) from 8 callers with neither
// metrics nor tracing, with metrics, with tracing that samples nothing
// (spans are made but not recorded; the traceparent still reaches the
// child), with tracing that samples everything (exported in batches to an
// exporter that discards them), and with both. cpu-µs/op is this
// process's CPU per call: the callers' and the bridge's, not the child's;
// the callers do the same work in every case, so the difference from
// obs=off is what observing costs the bridge. Reproduce with
//
//	go test -run '^$' -bench 'Observability$' -benchtime 3s -count 3 ./bridge/
func BenchmarkObservability(b *testing.B) {
	sampled := func(s sdktrace.Sampler) func() *sdktrace.TracerProvider {
		return func() *sdktrace.TracerProvider {
			return sdktrace.NewTracerProvider(sdktrace.WithSampler(s), sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		}
	}
	for _, c := range []struct {
		name    string
		metrics bool
		tracing func() *sdktrace.TracerProvider
	}{
		{"obs=off", false, nil},
		{"obs=metrics", true, nil},
		{"obs=tracing-unsampled", false, sampled(sdktrace.NeverSample())},
		{"obs=tracing-sampled", false, sampled(sdktrace.AlwaysSample())},
		{"obs=both-sampled", true, sampled(sdktrace.AlwaysSample())},
	} {
		b.Run(c.name+"/callers=8", func(b *testing.B) {
			cfg := Config{Servers: []ServerConfig{fixtureServer(b, "", "policy")}, Logger: slog.New(slog.DiscardHandler)}
			if c.metrics {
				cfg.Metrics = prometheus.NewRegistry()
			}
			if c.tracing != nil {
				tp := c.tracing()
				b.Cleanup(func() { tp.Shutdown(context.Background()) })
				cfg.TracerProvider = tp
			}
			svc, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { svc.Close() })
			bc := mcpbridgev1.NewBridgeServiceClient(serveLoopback(b, svc.NewGRPCServer()))
			ctx := context.Background()
			req := &mcpbridgev1.CallToolRequest{Name: "pid"}
			call := func() error { _, err := bc.CallTool(ctx, req); return err }
			if err := call(); err != nil {
				b.Fatal(err)
			}
			cpu0 := processCPU()
			runCallers(b, 8, call)
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// BenchmarkObserveOperation is the observer's own work for one request to
// a child, alone: begin, the _meta merge, the request id hook and end,
// without an observer (off), with metrics, and with tracing unsampled and
// sampled (spans made, not exported). Reproduce with
//
//	go test -run '^$' -bench 'ObserveOperation' -benchmem ./bridge/
func BenchmarkObserveOperation(b *testing.B) {
	params := json.RawMessage(`{"name":"pid","arguments":{}}`)
	res := json.RawMessage(`{"content":[{"type":"text","text":"1"}]}`)
	for _, c := range []struct {
		name    string
		metrics bool
		sampler sdktrace.Sampler
	}{
		{"obs=off", false, nil},
		{"obs=metrics", true, nil},
		{"obs=tracing-unsampled", false, sdktrace.NeverSample()},
		{"obs=tracing-sampled", false, sdktrace.AlwaysSample()},
	} {
		b.Run(c.name, func(b *testing.B) {
			cfg := Config{}
			if c.metrics {
				cfg.Metrics = prometheus.NewRegistry()
			}
			if c.sampler != nil {
				tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(c.sampler))
				b.Cleanup(func() { tp.Shutdown(context.Background()) })
				cfg.TracerProvider = tp
			}
			o, err := newObserver(&cfg)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				kind, names := target("tools/call", params)
				op := o.begin(ctx, "s", nil, "tools/call", params, kind, names, false)
				opts := op.options(&stdio.CallOptions{})
				if opts.OnRequestID != nil {
					opts.OnRequestID(1)
				}
				op.end(res, nil)
			}
		})
	}
}

// processCPU is this process's CPU time so far, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
