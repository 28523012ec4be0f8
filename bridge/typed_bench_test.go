package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// BenchmarkCallTool compares one tool's round trip through the bridge
// with the same tools/call sent directly by a stdio.Client to the same kind
// of child, at 1 and 16 concurrent callers:
//
//   - bridge: CallTool over gRPC on loopback (typed request, the bridge's
//     stdio.Client, typed response), the client from the generated stubs;
//   - service: Service.CallTool called in process, the bridge's own work
//     without the gRPC transport;
//   - direct: stdio.Client.Call of tools/call.
//
// The bridge must never be the bottleneck: service should stay close to
// direct. The bridge figure adds gRPC on loopback, and its client shares
// the machine with the bridge and the child. Reproduce with
//
//	go test -run '^$' -bench CallTool -benchtime 3s ./bridge/
//
// Nothing here asserts on timing (STYLE.md, Tests).
func BenchmarkCallTool(b *testing.B) {
	for _, child := range []struct {
		name string
		sc   func(testing.TB) ServerConfig
		tool string
		args map[string]any
	}{
		{"go-sdk", func(tb testing.TB) ServerConfig { return goSDKServer(tb, "") }, "test_simple_text", nil},
		{"server-everything", func(tb testing.TB) ServerConfig { return everythingServer(tb, "") }, "echo", map[string]any{"message": "hello"}},
		{"typed-child", func(tb testing.TB) ServerConfig { return typedChildServer(tb, "", "modern") }, "echo", map[string]any{"message": "hello"}},
	} {
		for _, callers := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/bridge/callers=%d", child.name, callers), func(b *testing.B) {
				h := startTypedBridge(b, child.sc(b))
				req := &mcpbridgev1.CallToolRequest{Name: child.tool}
				if child.args != nil {
					req.Arguments = mustStruct(b, child.args)
				}
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
			b.Run(fmt.Sprintf("%s/service/callers=%d", child.name, callers), func(b *testing.B) {
				h := startTypedBridge(b, child.sc(b))
				req := &mcpbridgev1.CallToolRequest{Name: child.tool}
				if child.args != nil {
					req.Arguments = mustStruct(b, child.args)
				}
				call := func() error {
					_, err := h.svc.CallTool(context.Background(), req)
					return err
				}
				if err := call(); err != nil {
					b.Fatal(err)
				}
				runCallers(b, callers, call)
			})
			b.Run(fmt.Sprintf("%s/direct/callers=%d", child.name, callers), func(b *testing.B) {
				c := directClient(b, child.sc(b))
				params := map[string]any{"name": child.tool}
				if child.args != nil {
					params["arguments"] = child.args
				}
				raw, _ := json.Marshal(params)
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
