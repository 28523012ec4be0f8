package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// BenchmarkFloor measures the bridge's own CPU per call against the floor
// of what it has to do: serve a gRPC call and make a stdio call. Each
// path runs in processes of its own, so that /proc tells their
// CPU apart, with 1, 8 and 64 callers, interleaved:
//
//   - path=grpc-echo: a bare grpc.Server (a process of its own: this test
//     binary as a fixture, no interceptors) answering CallTool with the
//     request's message: the gRPC server's share of a call
//     (srv-cpu-µs/op);
//   - path=direct: a stdio.Client in this process calling tools/call on a
//     demo child: the stdio client's share (cli-cpu-µs/op) and the
//     child's (child-cpu-µs/op);
//   - path=bridge: `mcpbridge serve --log-level warn` fronting the same
//     kind of child, called with CallTool from this process: the bridge
//     process's CPU (bridge-cpu-µs/op; the child's is its own process's,
//     child-cpu-µs/op);
//   - path=pipe-proxy, at one caller: the least a bridge can be (the
//     pipeproxy fixture, a gRPC handler that writes to its child and
//     reads the answer itself), reported as the bridge is.
//
// The floor of the bridge is srv-cpu-µs/op of grpc-echo plus cli-cpu-µs/op
// of direct at the same callers; docs/performance.md compares them, with
// p50 and p99 against the sum of the hops, from
//
//	go test -run '^$' -bench 'Floor$' -benchtime 3s -count 3 ./cmd/mcpbridge/
//
// Nothing asserts on timing.
func BenchmarkFloor(b *testing.B) {
	paths := startFloorPaths(b)
	for _, callers := range []int{1, 8, 64} {
		for _, p := range paths {
			if p.one && callers > 1 {
				continue
			}
			b.Run(fmt.Sprintf("callers=%d/path=%s", callers, p.name), func(b *testing.B) {
				runLoad(b, callers, p.procs, p.call)
			})
		}
	}
}

// BenchmarkFloorAtRate is BenchmarkFloor at a fixed rate of calls instead
// of a fixed number of callers: up to 64 callers start calls on a
// schedule of rate calls a second, so that every path does the same
// number of calls a second and its CPU per call is not lowered by the
// batching a faster path enjoys at the same number of callers. (At 8
// callers the bare gRPC server answers several times the bridge's calls
// a second, and each of its wake-ups serves more of them.) A path that
// cannot keep up falls behind its schedule; req/s shows it. Keeping the
// schedule costs this process CPU of its own (timers, sleeps), which
// path=none measures alone: a call that does nothing. The stdio client's
// share is direct's cli-cpu-µs/op less none's.
//
//	go test -run '^$' -bench FloorAtRate -benchtime 4s -count 3 ./cmd/mcpbridge/
func BenchmarkFloorAtRate(b *testing.B) {
	paths := append(startFloorPaths(b), floorPath{name: "none", call: func() error { return nil }})
	for _, rate := range []int{500, 2000, 5000} {
		for _, p := range paths {
			if p.one && rate > 500 {
				continue
			}
			b.Run(fmt.Sprintf("rate=%d/path=%s", rate, p.name), func(b *testing.B) {
				runLoadPaced(b, 64, rate, p.procs, p.call)
			})
		}
	}
}

// floorPath is one path of the floor benchmarks: a call, and the
// processes whose CPU it reports.
type floorPath struct {
	name  string
	procs map[string]int
	call  func() error
	// one: the path takes one call at a time (pipe-proxy), so it runs at
	// one caller and at 500 calls a second only: at 2,000 a second its
	// calls (about 250 µs each here) would queue behind one another.
	one bool
}

// startFloorPaths starts the processes of BenchmarkFloor's three paths.
func startFloorPaths(b *testing.B) []floorPath {
	ctx := b.Context()
	echo := startGRPCFixture(b, "grpcecho")
	direct := startBenchServer(b, benchServers[0], "2026-07-28") // the demo
	br, bc := startQuietBridge(b, "--", mcpbridgeBin, "demo", "-tick", "0", "-log-level", "warn")
	pp := startGRPCFixture(b, "pipeproxy", "PIPEPROXY_BIN="+mcpbridgeBin)
	bridgeChild := readyChild(b, bc, "")
	args, err := structpb.NewStruct(map[string]any{"message": "hello"})
	if err != nil {
		b.Fatal(err)
	}
	req := &mcpbridgev1.CallToolRequest{Name: "echo", Arguments: args}
	params := json.RawMessage(`{"name":"echo","arguments":{"message":"hello"}}`)
	checkEcho, checkDirect := textIs("hello"), rawHas(`"text":"hello"`)
	return []floorPath{
		{name: "grpc-echo", procs: map[string]int{"srv": echo.pid}, call: func() error { return checkEcho(echo.bc.CallTool(ctx, req)) }},
		{name: "direct", procs: map[string]int{"child": direct.Pid()}, call: func() error { return checkDirect(direct.Call(ctx, "tools/call", params, nil)) }},
		{name: "bridge", procs: map[string]int{"bridge": br.Process.Pid, "child": bridgeChild}, call: func() error { return checkEcho(bc.CallTool(ctx, req)) }},
		{name: "pipe-proxy", procs: map[string]int{"bridge": pp.pid, "child": pp.child}, call: func() error { return checkEcho(pp.bc.CallTool(ctx, req)) }, one: true},
	}
}

// bridgeCPUProfile, when set, makes the bridge of each process benchmark
// (startQuietBridge) write a CPU
// profile of its whole run to this file (serve --cpuprofile), e.g.
//
//	go test -run '^$' -bench 'Floor/callers=64/path=bridge' -bridge.cpuprofile /tmp/bridge.prof ./cmd/mcpbridge/
//	go tool pprof -top /tmp/bridge.prof
var bridgeCPUProfile = flag.String("bridge.cpuprofile", "", "process benchmarks: write the bridge's CPU profile to `file`")

// bridgeMemProfile does the same for the bridge's allocations (serve
// --memprofile), for go tool pprof -sample_index=alloc_objects.
var bridgeMemProfile = flag.String("bridge.memprofile", "", "process benchmarks: write the bridge's allocation profile to `file`")

// runLoad makes b.N calls from callers goroutines and reports req/s, the
// p50 and p99 latency, this process's CPU per call (cli-cpu-µs/op) and
// that of each named process (<name>-cpu-µs/op), and how often per call
// each one's threads went to sleep (cli-sleeps/op, <name>-sleeps/op).
func runLoad(b *testing.B, callers int, procs map[string]int, call func() error) {
	runLoadPaced(b, callers, 0, procs, call)
}

// runLoadPaced is runLoad with the calls started on a schedule of rate a
// second (none when rate is 0): call n starts no earlier than n/rate
// seconds after the first, on whichever of the callers is free. Latency
// is measured from the call's start.
func runLoadPaced(b *testing.B, callers, rate int, procs map[string]int, call func() error) {
	for range 100 { // warm: connections, buffers, stacks
		if err := call(); err != nil {
			b.Fatal(err)
		}
	}
	cpu0, sleeps0 := map[string]time.Duration{}, map[string]int64{}
	for name, pid := range procs {
		cpu0[name], _ = processCPU(pid)
		sleeps0[name], _ = processSleeps(pid)
	}
	self0 := selfCPU()
	selfSleeps0, _ := processSleeps(os.Getpid())
	var next atomic.Int64
	lats := make([][]time.Duration, callers)
	errs := make(chan error, callers)
	var wg sync.WaitGroup
	b.ResetTimer()
	begin := time.Now()
	for g := range callers {
		wg.Go(func() {
			lat := make([]time.Duration, 0, b.N/callers+1)
			defer func() { lats[g] = lat }()
			for n := next.Add(1); n <= int64(b.N); n = next.Add(1) {
				if rate > 0 {
					time.Sleep(time.Until(begin.Add(time.Duration(n-1) * time.Second / time.Duration(rate))))
				}
				start := time.Now()
				err := call()
				lat = append(lat, time.Since(start))
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	self1 := selfCPU()
	selfSleeps1, _ := processSleeps(os.Getpid())
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	for name, pid := range procs {
		if cpu1, ok := processCPU(pid); ok {
			b.ReportMetric(float64(cpu1-cpu0[name])/1e3/float64(b.N), name+"-cpu-µs/op")
		}
		if n, ok := processSleeps(pid); ok {
			b.ReportMetric(float64(n-sleeps0[name])/float64(b.N), name+"-sleeps/op")
		}
	}
	b.ReportMetric(float64(self1-self0)/1e3/float64(b.N), "cli-cpu-µs/op")
	b.ReportMetric(float64(selfSleeps1-selfSleeps0)/float64(b.N), "cli-sleeps/op")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	all := slices.Concat(lats...)
	slices.Sort(all)
	at := func(q float64) float64 { return float64(all[int(q*float64(len(all)-1))]) / 1e3 }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}

// startQuietBridge runs `mcpbridge serve --log-level warn args...` on a
// free loopback port (at warn the log names no port: it is picked here)
// and dials it. Cleanup stops it. MCPBRIDGE_BENCH_BRIDGE names another
// mcpbridge binary to run as the bridge (the children stay this tree's).
func startQuietBridge(b *testing.B, args ...string) (*exec.Cmd, mcpbridgev1.BridgeServiceClient) {
	b.Helper()
	addr := closedPort(b)
	bin := mcpbridgeBin
	if v := os.Getenv("MCPBRIDGE_BENCH_BRIDGE"); v != "" {
		bin = v // another build of the bridge, for A/B runs (docs/performance.md)
	}
	argv := []string{"serve", "--listen", addr, "--log-level", "warn"}
	if *bridgeCPUProfile != "" {
		argv = append(argv, "--cpuprofile", *bridgeCPUProfile)
	}
	if *bridgeMemProfile != "" {
		argv = append(argv, "--memprofile", *bridgeMemProfile)
	}
	cmd := exec.Command(bin, append(argv, args...)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	return cmd, mcpbridgev1.NewBridgeServiceClient(dial(b, addr))
}

// readyChild waits for server's child (the only server: "") to be ready
// and returns its pid.
func readyChild(b *testing.B, bc mcpbridgev1.BridgeServiceClient, server string) int {
	b.Helper()
	res, err := bc.GetServer(b.Context(), &mcpbridgev1.GetServerRequest{Server: server, WaitForReady: true}, grpc.WaitForReady(true))
	if err != nil {
		b.Fatal(err)
	}
	return int(res.GetChild().GetPid())
}

// textIs checks that a CallTool answer's first block is the text want.
func textIs(want string) func(*mcpbridgev1.CallToolResponse, error) error {
	return func(res *mcpbridgev1.CallToolResponse, err error) error {
		if err == nil && (len(res.GetContent()) == 0 || res.GetContent()[0].GetText().GetText() != want) {
			err = fmt.Errorf("CallTool = %v", res)
		}
		return err
	}
}

// rawHas checks that a tools/call result's JSON text holds fragment.
func rawHas(fragment string) func(json.RawMessage, error) error {
	return func(res json.RawMessage, err error) error {
		if err == nil && !strings.Contains(string(res), fragment) {
			err = fmt.Errorf("tools/call = %s", res)
		}
		return err
	}
}

// fixtureProcess is a gRPC fixture in a process of its own: grpcecho, a
// bare grpc.Server, or pipeproxy, whose child is child.
type fixtureProcess struct {
	pid, child int
	bc         mcpbridgev1.BridgeServiceClient
}

// startGRPCFixture runs this test binary as the gRPC fixture name, which
// prints its address (and its child's pid, if it has one), and dials it.
func startGRPCFixture(b *testing.B, name string, env ...string) fixtureProcess {
	b.Helper()
	said, pid := startFixture(b, name, env...)
	addr, childPid, _ := strings.Cut(said, " ")
	p := fixtureProcess{pid: pid, bc: mcpbridgev1.NewBridgeServiceClient(dial(b, addr))}
	if childPid != "" {
		var err error
		if p.child, err = strconv.Atoi(childPid); err != nil {
			b.Fatalf("the %s fixture said %q", name, said)
		}
	}
	return p
}

// startFixture runs this test binary as the fixture name, which prints a
// line (its address) on stdout, and returns the line, trimmed, and the
// fixture's pid; cleanup kills it.
func startFixture(b *testing.B, name string, env ...string) (line string, pid int) {
	b.Helper()
	cmd := testkit.FixtureCommand(b, name, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	said, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("the %s fixture said no address: %v", name, err)
	}
	return strings.TrimSpace(said), cmd.Process.Pid
}

// runGRPCEchoFixture serves testkit.GRPCEcho on 127.0.0.1:0, prints the address on
// stdout and serves until killed.
func runGRPCEchoFixture() int {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "grpcecho:", err)
		return 2
	}
	gs := grpc.NewServer()
	mcpbridgev1.RegisterBridgeServiceServer(gs, testkit.GRPCEcho{})
	fmt.Println(lis.Addr().String())
	if err := gs.Serve(lis); err != nil {
		fmt.Fprintln(os.Stderr, "grpcecho:", err)
		return 1
	}
	return 0
}

// BenchmarkSlowChild measures a child slower than the gRPC hop, the Go SDK
// conformance server (its test_simple_text tool, 2026-07-28), straight
// over stdio and through the bridge with one child and with pools of 2
// and 4, at 1, 8 and 64 callers, interleaved: whether the bridge keeps it
// busy (its requests/s through the bridge against its direct requests/s)
// and spreads it over cores. Reported as BenchmarkFloor's, from
//
//	go test -run '^$' -bench SlowChild -benchtime 3s -count 3 ./cmd/mcpbridge/
func BenchmarkSlowChild(b *testing.B) {
	ctx := b.Context()
	direct := startBenchServer(b, benchServers[1], "2026-07-28") // gosdk
	server := testkit.GoSDKServer(b)
	type bridged struct {
		name  string
		procs map[string]int
		bc    mcpbridgev1.BridgeServiceClient
	}
	var bridges []bridged
	for _, shape := range []struct{ name, policy, size string }{{"bridge", "shared", "1"}, {"pool=2", "pool", "2"}, {"pool=4", "pool", "4"}} {
		br, bc := startQuietBridge(b, append([]string{"--policy", shape.policy, "--pool-size", shape.size, "--"}, server...)...)
		procs := map[string]int{"bridge": br.Process.Pid}
		if child := readyChild(b, bc, ""); shape.size == "1" {
			procs["child"] = child // a pool's other children are not counted
		}
		bridges = append(bridges, bridged{shape.name, procs, bc})
	}
	req := &mcpbridgev1.CallToolRequest{Name: "test_simple_text"}
	const want = "This is a simple text response for testing."
	checkBridged, checkDirect := textIs(want), rawHas(want)
	for _, callers := range []int{1, 8, 64, 256} {
		b.Run(fmt.Sprintf("callers=%d/path=direct", callers), func(b *testing.B) {
			runLoad(b, callers, map[string]int{"child": direct.Pid()}, func() error {
				return checkDirect(direct.Call(ctx, "tools/call", benchServers[1].params, nil))
			})
		})
		for _, br := range bridges {
			b.Run(fmt.Sprintf("callers=%d/path=%s", callers, br.name), func(b *testing.B) {
				runLoad(b, callers, br.procs, func() error {
					return checkBridged(br.bc.CallTool(ctx, req))
				})
			})
		}
	}
}

// BenchmarkLargeResultProcess moves one 10 MiB tool result (the demo's
// large_result) to the caller straight over stdio and through the bridge,
// alternately, and reports MB/s and what each side allocated per byte of
// result: the stdio client (this process, runtime.MemStats) and the
// bridge process (its go_memstats_alloc_bytes_total, scraped from
// --metrics-listen before and after). A bridge that copied the result
// once more than it must would show one more byte per byte. From
//
//	go test -run '^$' -bench LargeResultProcess -benchtime 20x -count 3 ./cmd/mcpbridge/
func BenchmarkLargeResultProcess(b *testing.B) {
	const size = 10 << 20
	ctx := b.Context()
	direct := startBenchServer(b, benchServers[0], "2026-07-28")
	metricsAddr := closedPort(b)
	_, bc := startQuietBridge(b, "--metrics-listen", metricsAddr, "--", mcpbridgeBin, "demo", "-tick", "0", "-log-level", "warn")
	readyChild(b, bc, "")
	allocated := func() uint64 {
		return uint64(scrape(b, "http://"+metricsAddr+"/metrics")["go_memstats_alloc_bytes_total"][0].value)
	}
	args, err := structpb.NewStruct(map[string]any{"bytes": size})
	if err != nil {
		b.Fatal(err)
	}
	req := &mcpbridgev1.CallToolRequest{Name: "large_result", Arguments: args}
	params := json.RawMessage(fmt.Sprintf(`{"name":"large_result","arguments":{"bytes":%d}}`, size))
	var ms runtime.MemStats
	selfAlloc := func() uint64 { runtime.ReadMemStats(&ms); return ms.TotalAlloc }
	report := func(b *testing.B, allocated uint64, who string) {
		b.SetBytes(size)
		b.ReportMetric(float64(allocated)/float64(b.N)/size, who+"-alloc-B/B")
	}
	b.Run("path=direct", func(b *testing.B) {
		a0 := selfAlloc()
		for b.Loop() {
			res, err := direct.Call(ctx, "tools/call", params, nil)
			if err != nil || len(res) < size {
				b.Fatalf("large_result = %d bytes, %v", len(res), err)
			}
		}
		report(b, selfAlloc()-a0, "cli")
	})
	// What a host does with the result directly: decode it (here with
	// encoding/json, as the Go SDK does), as the bridge does for its
	// callers.
	b.Run("path=direct-decoded", func(b *testing.B) {
		a0 := selfAlloc()
		for b.Loop() {
			res, err := direct.Call(ctx, "tools/call", params, nil)
			var r struct {
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
				StructuredContent any            `json:"structuredContent"`
				IsError           bool           `json:"isError"`
				Meta              map[string]any `json:"_meta"`
			}
			if err == nil {
				err = json.Unmarshal(res, &r)
			}
			if err != nil || len(r.Content) != 1 || len(r.Content[0].Text) != size {
				b.Fatalf("large_result decoded: %v", err)
			}
		}
		report(b, selfAlloc()-a0, "cli")
	})
	b.Run("path=bridge", func(b *testing.B) {
		a0, c0 := allocated(), selfAlloc()
		for b.Loop() {
			res, err := bc.CallTool(ctx, req, grpc.MaxCallRecvMsgSize(32<<20))
			if err != nil || len(res.GetContent()) != 1 || len(res.GetContent()[0].GetText().GetText()) != size {
				b.Fatalf("large_result through the bridge: %v", err)
			}
		}
		report(b, allocated()-a0, "bridge")
		report(b, selfAlloc()-c0, "cli")
	})
}

// pipeProxy is the pipeproxy fixture: the least a bridge can be. A bare
// grpc.Server (no interceptors) whose CallTool handler writes tools/call
// to one demo child's stdin and reads the child's answer from its stdout
// itself: no correlation, no supervision, no reader goroutine between the
// child and the handler, one call in flight at a time (a mutex). Its
// latency is what a gRPC front for a stdio child costs with nothing of its
// own (docs/performance.md, "The least a bridge can be"). BenchmarkFloor
// and BenchmarkFloorAtRate run it at one caller and at 500 calls a second
// only, where one call in flight does not queue.
type pipeProxy struct {
	mcpbridgev1.UnimplementedBridgeServiceServer
	mu  sync.Mutex
	in  io.Writer
	out *bufio.Reader
	id  int64
	buf []byte
}

// pipeProxyMeta is the _meta every 2026-07-28 request carries.
const pipeProxyMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func (p *pipeProxy) CallTool(_ context.Context, req *mcpbridgev1.CallToolRequest) (*mcpbridgev1.CallToolResponse, error) {
	args, err := protojson.Marshal(req.GetArguments())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	name, _ := json.Marshal(req.GetName())
	p.mu.Lock()
	defer p.mu.Unlock()
	p.id++
	p.buf = fmt.Appendf(p.buf[:0], `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s,"arguments":%s,%s}}`+"\n", p.id, name, args, pipeProxyMeta)
	if _, err := p.in.Write(p.buf); err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	line, err := p.out.ReadSlice('\n')
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	var msg struct {
		ID     int64
		Result *struct {
			Content []struct{ Type, Text string }
			IsError bool
		}
		Error *struct {
			Code    int
			Message string
		}
	}
	switch err := json.Unmarshal(line, &msg); {
	case err != nil:
		return nil, status.Error(codes.Internal, err.Error())
	case msg.Error == nil && msg.Result == nil:
		return nil, status.Errorf(codes.Internal, "neither result nor error: %s", line)
	case msg.ID != p.id:
		return nil, status.Errorf(codes.Internal, "answer to %d, not %d", msg.ID, p.id)
	case msg.Error != nil:
		return nil, status.Error(codes.Unknown, msg.Error.Message)
	}
	res := &mcpbridgev1.CallToolResponse{IsError: msg.Result.IsError}
	for _, c := range msg.Result.Content {
		res.Content = append(res.Content, &mcpbridgev1.Content{Block: &mcpbridgev1.Content_Text{Text: &mcpbridgev1.TextContent{Text: c.Text}}})
	}
	return res, nil
}

// runPipeProxyFixture starts a demo child (the mcpbridge binary named by
// PIPEPROXY_BIN), serves pipeProxy on 127.0.0.1:0, prints the address and
// the child's pid on stdout and serves until killed; the child ends with
// its stdin.
func runPipeProxyFixture() int {
	child := exec.Command(os.Getenv("PIPEPROXY_BIN"), "demo", "-tick", "0", "-log-level", "warn")
	child.Stderr = os.Stderr
	in, err := child.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pipeproxy:", err)
		return 2
	}
	out, err := child.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pipeproxy:", err)
		return 2
	}
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "pipeproxy:", err)
		return 2
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pipeproxy:", err)
		return 2
	}
	gs := grpc.NewServer()
	mcpbridgev1.RegisterBridgeServiceServer(gs, &pipeProxy{in: in, out: bufio.NewReaderSize(out, 64<<10)})
	fmt.Println(lis.Addr().String(), child.Process.Pid)
	if err := gs.Serve(lis); err != nil {
		fmt.Fprintln(os.Stderr, "pipeproxy:", err)
		return 1
	}
	return 0
}
