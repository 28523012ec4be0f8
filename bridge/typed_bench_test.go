package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// benchCallers are the concurrent callers of every comparison.
var benchCallers = []int{1, 8, 64}

// BenchmarkCallTool compares one tool's round trip through the bridge
// with, in the same run, the same tools/call sent straight over stdio to
// the same kind of child, and with a bare gRPC echo that has no child:
//
//   - path=bridge: CallTool over gRPC on loopback to a Service made by New
//     and served by NewGRPCServer (interceptors included), the client
//     from the generated stubs;
//   - path=service: Service.CallTool called in process: the bridge's own
//     work without the gRPC transport;
//   - path=direct: stdio.Client.Call of tools/call, negotiated with
//     stdio.Connect as the supervisor does;
//   - grpc-echo: a plain grpc.Server whose CallTool answers the message
//     itself, with the same request and response messages: the cost of
//     the gRPC hop alone.
//
// The children: runtime (the "child" fixture: package stdio/mcp, a fast
// child, 2026-07-28), go-sdk (the Go SDK conformance server, 2026-07-28,
// its test_simple_text tool) and server-everything (npm, 2025-11-25, its
// echo tool); the last two are slower than the gRPC hop. Each path starts
// its own child; a first call before timing makes sure it is up.
//
// Reported per sub-benchmark: req/s, p50-µs and p99-µs. Reproduce with
//
//	go test -run '^$' -bench 'CallTool$|GRPCEcho|LargeResult' -benchtime 3s ./bridge/
//
// Nothing here asserts on timing (docs/contributing.md, "Tests").
func BenchmarkCallTool(b *testing.B) {
	for _, child := range []struct {
		name string
		sc   func(testing.TB) ServerConfig
		tool string
		args map[string]any
	}{
		{"runtime", func(tb testing.TB) ServerConfig { return fixtureChild(tb, "", typedGrace) }, "echo", map[string]any{"message": "hello"}},
		{"go-sdk", func(tb testing.TB) ServerConfig { return goSDKServer(tb, "") }, "test_simple_text", nil},
		{"server-everything", func(tb testing.TB) ServerConfig { return everythingServer(tb, "") }, "echo", map[string]any{"message": "hello"}},
	} {
		req := &mcpbridgev1.CallToolRequest{Name: child.tool}
		params := map[string]any{"name": child.tool}
		if child.args != nil {
			req.Arguments = mustStruct(b, child.args)
			params["arguments"] = child.args
		}
		raw, _ := json.Marshal(params)
		for _, callers := range benchCallers {
			b.Run(fmt.Sprintf("child=%s/path=bridge/callers=%d", child.name, callers), func(b *testing.B) {
				h := startTypedBridge(b, child.sc(b))
				call := func() error {
					res, err := h.bc.CallTool(context.Background(), req)
					if err == nil && (res.GetIsError() || len(res.GetContent()) == 0) {
						err = fmt.Errorf("CallTool = %v", res)
					}
					return err
				}
				if err := call(); err != nil { // the child is up before timing starts
					b.Fatal(err)
				}
				runCallers(b, callers, call)
			})
			b.Run(fmt.Sprintf("child=%s/path=service/callers=%d", child.name, callers), func(b *testing.B) {
				h := startTypedBridge(b, child.sc(b))
				call := func() error {
					_, err := h.svc.CallTool(context.Background(), req)
					return err
				}
				if err := call(); err != nil {
					b.Fatal(err)
				}
				runCallers(b, callers, call)
			})
			b.Run(fmt.Sprintf("child=%s/path=direct/callers=%d", child.name, callers), func(b *testing.B) {
				c := directClient(b, child.sc(b))
				call := func() error {
					_, err := c.Call(context.Background(), "tools/call", json.RawMessage(raw), nil)
					return err
				}
				if err := call(); err != nil {
					b.Fatal(err)
				}
				runCallers(b, callers, call)
			})
		}
	}
}

// BenchmarkGRPCEcho is the bare gRPC baseline of BenchmarkCallTool: the
// same CallTool messages over loopback to a plain grpc.Server that answers
// with the request's message and starts no child.
func BenchmarkGRPCEcho(b *testing.B) {
	bc := startGRPCEcho(b)
	req := &mcpbridgev1.CallToolRequest{Name: "echo", Arguments: mustStruct(b, map[string]any{"message": "hello"})}
	call := func() error {
		res, err := bc.CallTool(context.Background(), req)
		if err == nil && res.GetContent()[0].GetText().GetText() != "hello" {
			err = fmt.Errorf("CallTool = %v", res)
		}
		return err
	}
	for _, callers := range benchCallers {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			if err := call(); err != nil {
				b.Fatal(err)
			}
			runCallers(b, callers, call)
		})
	}
}

// startGRPCEcho serves testkit.GRPCEcho on 127.0.0.1:0 and dials it.
func startGRPCEcho(tb testing.TB) mcpbridgev1.BridgeServiceClient {
	gs := grpc.NewServer()
	mcpbridgev1.RegisterBridgeServiceServer(gs, testkit.GRPCEcho{})
	return mcpbridgev1.NewBridgeServiceClient(serveLoopback(tb, gs))
}

// BenchmarkLargeResult moves one 10 MiB tool result from the runtime
// child to the caller, through the bridge (gRPC on loopback, the client
// from the generated stubs) and straight over stdio, in the same run.
// MB/s is the result's text bytes per second.
func BenchmarkLargeResult(b *testing.B) {
	const size = 10 << 20
	args := map[string]any{"bytes": size}
	b.Run("path=bridge", func(b *testing.B) {
		h := startTypedBridge(b, fixtureChild(b, "", typedGrace))
		req := &mcpbridgev1.CallToolRequest{Name: "large", Arguments: mustStruct(b, args)}
		call := func() error {
			res, err := h.bc.CallTool(context.Background(), req, grpc.MaxCallRecvMsgSize(64<<20))
			if err == nil && len(res.GetContent()[0].GetText().GetText()) != size {
				err = fmt.Errorf("CallTool: %d content blocks", len(res.GetContent()))
			}
			return err
		}
		runLarge(b, size, call)
	})
	b.Run("path=direct", func(b *testing.B) {
		c := directClient(b, fixtureChild(b, "", typedGrace))
		raw, _ := json.Marshal(map[string]any{"name": "large", "arguments": args})
		call := func() error {
			res, err := c.Call(context.Background(), "tools/call", json.RawMessage(raw), nil)
			if err == nil && len(res) < size {
				err = fmt.Errorf("tools/call: %d bytes", len(res))
			}
			return err
		}
		runLarge(b, size, call)
	})
}

// BenchmarkLargeStructured moves results that are mostly
// structuredContent (the "structured-child" fixture: 500 and 5,000
// records, about 90 KiB and 910 KiB of JSON, with the serverInfo _meta)
// through the bridge: CallTool over gRPC on loopback (path=bridge) and
// Service.CallTool in process (path=service). The JSON becomes a
// google.protobuf.Value per value, which the gRPC path then marshals
// (bridge/internal/apiwire/calltool.go). MB/s is the result's JSON
// bytes a second; cpu-µs/op this process's CPU a call (the caller and the
// bridge; the child is a process of its own).
//
//	go test -run '^$' -bench LargeStructured -benchtime 3s ./bridge/
func BenchmarkLargeStructured(b *testing.B) {
	for _, n := range []int{500, 5000} {
		size := int64(len(structuredResult(n)))
		req := &mcpbridgev1.CallToolRequest{Name: "records", Arguments: mustStruct(b, map[string]any{"records": n})}
		check := func(res *mcpbridgev1.CallToolResponse, err error) error {
			if err == nil && len(res.GetStructuredContent().GetStructValue().GetFields()["records"].GetListValue().GetValues()) != n {
				err = fmt.Errorf("CallTool: structured_content %.100v", res.GetStructuredContent())
			}
			return err
		}
		b.Run(fmt.Sprintf("records=%d/path=bridge", n), func(b *testing.B) {
			h := startTypedBridge(b, fixtureServer(b, "", "structured-child"))
			runLargeCPU(b, size, func() error {
				return check(h.bc.CallTool(context.Background(), req, grpc.MaxCallRecvMsgSize(64<<20)))
			})
		})
		b.Run(fmt.Sprintf("records=%d/path=service", n), func(b *testing.B) {
			h := startTypedBridge(b, fixtureServer(b, "", "structured-child"))
			runLargeCPU(b, size, func() error { return check(h.svc.CallTool(context.Background(), req)) })
		})
	}
}

// runLargeCPU is runLarge, reporting also this process's CPU a call.
func runLargeCPU(b *testing.B, size int64, call func() error) {
	if err := call(); err != nil {
		b.Fatal(err)
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	b.SetBytes(size)
	start := cpu()
	b.ResetTimer()
	for b.Loop() {
		if err := call(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpu()-start).Microseconds())/float64(b.N), "cpu-µs/op")
}

// runLarge makes one untimed call, so that the child is up, then times
// b.N calls of size bytes each.
func runLarge(b *testing.B, size int64, call func() error) {
	if err := call(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		if err := call(); err != nil {
			b.Fatal(err)
		}
	}
}

// runCallers runs b.N calls from n goroutines at once and reports req/s
// and the latency percentiles p50 and p99.
func runCallers(b *testing.B, n int, call func() error) {
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range n {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				t0 := time.Now()
				if err := call(); err != nil {
					b.Error(err)
					return
				}
				lat[i] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(0, "ns/op") // req/s says it; ns/op would mix in the callers
}
