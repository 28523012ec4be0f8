package bridge

import (
	"context"
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
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

// processCPU is this process's CPU time so far, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
