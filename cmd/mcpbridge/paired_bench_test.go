//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// BenchmarkPaired measures two paths at the same time rather than one
// after the other: each on a bridge of its own (the same build, the same
// configuration, children of their own), with 64 callers each, for the
// same window. On a machine whose cores are shared and noisy, two
// sub-benchmarks run one after the other see different machines, and the
// ratio of their CPU a call moves by more than the differences the
// project's targets are about (docs/performance.md); two loads that run
// together see the same one. Each pair reports each side's bridge CPU a
// call (a-cpu-µs/op, b-cpu-µs/op) and requests/s, and their ratios, b to
// a (cpu-ratio, req-ratio):
//
//   - pair=floor: a bare gRPC server answering CallTool (a) against a bare
//     net/http server answering the same call as a 2026-07-28 POST with an
//     SSE event (b), neither with an MCP server behind it: what the two
//     transports cost apart from everything the bridge does;
//   - pair=same: CallTool on both, the method's own error (a ratio of 1
//     but for the noise the pairing leaves);
//   - pair=mcp-2026: CallTool (a) against stateless 2026-07-28 POSTs to
//     /mcp (b);
//   - pair=mcp-2025: CallTool (a) against POSTs in one 2025-11-25 session
//     at /mcp (b);
//   - pair=aggregate-grpc: CallTool of the demo's echo on the demo (a)
//     against demo_echo on an aggregate of the demo and a second demo (b);
//   - pair=aggregate-http: the same in one 2025-11-25 session each, at
//     /mcp/demo (a) and /mcp/all (b).
//
// From
//
//	go test -run '^$' -bench Paired -benchtime 5s -count 5 ./cmd/mcpbridge/
//
// Nothing asserts on timing.
func BenchmarkPaired(b *testing.B) {
	ctx := b.Context()
	path := aggregateBenchConfig(b)
	type side struct {
		pid  int
		http string
		grpc mcpbridgev1.BridgeServiceClient
	}
	start := func() side {
		addr := closedPort(b)
		br, bc := startQuietBridge(b, "--config", path, "--http-listen", addr)
		readyChild(b, bc, "demo")
		readyChild(b, bc, "other")
		return side{pid: br.Process.Pid, http: "http://" + addr, grpc: bc}
	}
	sa, sb := start(), start()

	args, err := structpb.NewStruct(map[string]any{"message": "hello"})
	if err != nil {
		b.Fatal(err)
	}
	checkEcho := textIs("hello")
	callTool := func(s side, server, name string) func() error {
		req := &mcpbridgev1.CallToolRequest{Server: server, Name: name, Arguments: args}
		return func() error { return checkEcho(s.grpc.CallTool(ctx, req)) }
	}
	mcpModern := newMCPHTTPBench(b, sb.http+"/mcp/demo", true)
	mcpLegacy := newMCPHTTPBench(b, sb.http+"/mcp/demo", false)
	memberHTTP := newMCPHTTPBench(b, sa.http+"/mcp/demo", false)
	aggHTTP := newMCPHTTPBench(b, sb.http+"/mcp/all", false)
	grpcEcho := startGRPCFixture(b, "grpcecho")
	httpEchoAddr, httpEchoPid := startHTTPEcho(b)
	httpEcho := newMCPHTTPBench(b, "http://"+httpEchoAddr+"/mcp", true)
	echoReq := &mcpbridgev1.CallToolRequest{Name: "echo", Arguments: args}
	pairs := []struct {
		name       string
		pidA, pidB int
		a, b       func() error
	}{
		{"floor", grpcEcho.pid, httpEchoPid, func() error { return checkEcho(grpcEcho.bc.CallTool(ctx, echoReq)) }, httpEcho.echo},
		{"same", sa.pid, sb.pid, callTool(sa, "demo", "echo"), callTool(sb, "demo", "echo")},
		{"mcp-2026", sa.pid, sb.pid, callTool(sa, "demo", "echo"), mcpModern.echo},
		{"mcp-2025", sa.pid, sb.pid, callTool(sa, "demo", "echo"), mcpLegacy.echo},
		{"aggregate-grpc", sa.pid, sb.pid, callTool(sa, "demo", "echo"), callTool(sb, "all", "demo_echo")},
		{"aggregate-http", sa.pid, sb.pid, memberHTTP.echo, func() error { return aggHTTP.callEcho("demo_echo") }},
	}
	for _, p := range pairs {
		b.Run("pair="+p.name, func(b *testing.B) {
			runPair(b, 64, p.pidA, p.a, p.pidB, p.b)
		})
	}
}

// runPair runs callers callers of callA (bridge pidA) and as many of callB
// (bridge pidB) at once, until 2·b.N calls are done between them, and
// reports each side's bridge CPU a call and requests/s, and their ratios.
func runPair(b *testing.B, callers, pidA int, callA func() error, pidB int, callB func() error) {
	for range 100 { // warm: connections, buffers, stacks
		if err := callA(); err != nil {
			b.Fatal(err)
		}
		if err := callB(); err != nil {
			b.Fatal(err)
		}
	}
	cpuA0, _ := processCPU(pidA)
	cpuB0, _ := processCPU(pidB)
	var done, countA, countB atomic.Int64
	var stop atomic.Bool
	errs := make(chan error, 2*callers)
	var wg sync.WaitGroup
	load := func(call func() error, count *atomic.Int64) {
		for range callers {
			wg.Go(func() {
				for !stop.Load() {
					if err := call(); err != nil {
						errs <- err
						stop.Store(true)
						return
					}
					count.Add(1)
					if done.Add(1) >= int64(2*b.N) {
						stop.Store(true)
					}
				}
			})
		}
	}
	b.ResetTimer()
	load(callA, &countA)
	load(callB, &countB)
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	cpuA1, okA := processCPU(pidA)
	cpuB1, okB := processCPU(pidB)
	if !okA || !okB || countA.Load() == 0 || countB.Load() == 0 {
		b.Fatal("no CPU figures, or a side made no call")
	}
	perA := float64(cpuA1-cpuA0) / 1e3 / float64(countA.Load())
	perB := float64(cpuB1-cpuB0) / 1e3 / float64(countB.Load())
	secs := b.Elapsed().Seconds()
	b.ReportMetric(perA, "a-cpu-µs/op")
	b.ReportMetric(perB, "b-cpu-µs/op")
	b.ReportMetric(perB/perA, "cpu-ratio")
	b.ReportMetric(float64(countA.Load())/secs, "a-req/s")
	b.ReportMetric(float64(countB.Load())/secs, "b-req/s")
	b.ReportMetric(float64(countB.Load())/float64(countA.Load()), "req-ratio")
}

// startHTTPEcho starts the httpecho fixture (runHTTPEchoFixture) and
// returns its address and pid; cleanup stops it.
func startHTTPEcho(b *testing.B) (string, int) {
	b.Helper()
	return startFixture(b, "httpecho")
}

// runHTTPEchoFixture serves, on 127.0.0.1:0, the least an MCP endpoint on
// net/http does for a tools/call of the demo's echo: it reads the POST,
// decodes the message, and answers its id with the message argument as
// one text block in an SSE event (as the bridge's /mcp answers), with no
// MCP server behind it. It prints the address and serves until killed:
// the HTTP half of the floor, beside runGRPCEchoFixture's gRPC half.
func runHTTPEchoFixture() int {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "httpecho:", err)
		return 2
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		m, derr := wire.Decode(body)
		if err != nil || derr != nil || m.Kind != wire.KindRequest {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		args, _ := rawjson.Member(m.Params, "arguments")
		text, _ := rawjson.Member(args, "message")
		result := append(append([]byte(`{"content":[{"type":"text","text":`), text...), "}]}"...)
		event := append([]byte("event: message\ndata: "), wire.AppendResponse(nil, m.ID, result)...)
		w.Header()["Content-Type"] = []string{"text/event-stream"}
		w.WriteHeader(http.StatusOK)
		w.Write(append(bytes.TrimSuffix(event, []byte("\n")), "\n\n"...))
	})}
	fmt.Println(lis.Addr().String())
	if err := srv.Serve(lis); err != nil {
		fmt.Fprintln(os.Stderr, "httpecho:", err)
		return 1
	}
	return 0
}
