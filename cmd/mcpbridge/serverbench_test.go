package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/cmd/mcpbridge/internal/sidebysidetest"
	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// BenchmarkEchoServer measures stdio MCP servers as a host sees them: one
// child process over real pipes, negotiated with stdio.Connect and driven
// by the project's stdio.Client, with 1, 8 and 64 tools/call requests in
// flight. It compares the demo server's echo tool with the two servers from
// outside the project (docs/testing.md, "Real peers"), in the same run and
// with the same client:
//
//   - server=demo: `mcpbridge demo`, tool echo;
//   - server=gosdk: the Go SDK conformance everything-server, which has no
//     echo tool: test_simple_text, its cheapest tool (fixed text, no
//     schema), stands in for it;
//   - server=everything: the npm server-everything, tool echo (legacy
//     only; skipped when not installed).
//
// Every request is the same `tools/call {"name":…,"arguments":{"message":"hello"}}`.
// The demo and the Go SDK server are driven in both eras: 2026-07-28
// stamps _meta on every request, 2025-11-25 is the era server-everything
// speaks, so era=2025-11-25 compares the three servers on equal terms.
//
// Each server=…/era=… starts one child and keeps it for its inflight
// sub-benchmarks, so start-up and negotiation (and node's warm-up on the
// first run) are never timed. Reported: req/s over the timed part; the
// median and 99th percentile of the per-call latencies (p50-µs, p99-µs);
// and the CPU time per request of the server process (srv-cpu-µs/op, on
// Linux) and of the client, this process (cli-cpu-µs/op). Nothing asserts
// on timing (docs/contributing.md, "Tests"). The figures of docs/performance.md come from
//
//	for i in 1 2 3 4 5; do go test -run '^$' -bench BenchmarkEchoServer -benchtime 3s -count 1 ./cmd/mcpbridge/; done
//
// which interleaves the servers, so each sees the machine's other load
// alike.
func BenchmarkEchoServer(b *testing.B) {
	for _, s := range benchServers {
		b.Run("server="+s.name, func(b *testing.B) {
			for _, version := range s.eras {
				b.Run("era="+version, func(b *testing.B) {
					c := startBenchServer(b, s, version)
					for _, n := range []int{1, 8, 64} {
						b.Run(fmt.Sprintf("inflight=%d", n), func(b *testing.B) { benchEcho(b, c, s, n) })
					}
				})
			}
		})
	}
}

// benchServer is one server under test.
type benchServer struct {
	name   string
	argv   func(testing.TB) []string
	eras   []string
	params json.RawMessage // of every tools/call
	want   []byte          // in every result: the tool's text
}

// demoCPUProfile, when set, makes each demo child write a CPU profile to
// this path with its era appended (-cpuprofile of mcpbridge demo), e.g.
//
//	go test -run '^$' -bench 'EchoServer/server=demo' -demo.cpuprofile /tmp/demo.prof ./cmd/mcpbridge/
var demoCPUProfile = flag.String("demo.cpuprofile", "", "BenchmarkEchoServer: write each demo child's CPU profile to `file`.<era>")

var benchServers = []benchServer{{
	name: "demo",
	argv: func(testing.TB) []string {
		// No ticker: the counter's notifications would be the only other
		// traffic, and nothing subscribes.
		return []string{mcpbridgeBin, "demo", "-tick", "0", "-log-level", "warn"}
	},
	eras:   eras,
	params: json.RawMessage(`{"name":"echo","arguments":{"message":"hello"}}`),
	want:   []byte(`"text":"hello"`),
}, {
	name:   "gosdk",
	argv:   testkit.GoSDKServer,
	eras:   eras,
	params: json.RawMessage(`{"name":"test_simple_text","arguments":{"message":"hello"}}`),
	want:   []byte(`"text":"This is a simple text response for testing."`),
}, {
	name:   "everything",
	argv:   testkit.ServerEverything,
	eras:   []string{protocol.Version20251125},
	params: json.RawMessage(`{"name":"echo","arguments":{"message":"hello"}}`),
	want:   []byte(`"text":"Echo: hello"`),
}}

// startBenchServer runs s as a child negotiated at version, checks one call
// and stops the child when b ends: Close, then SIGTERM and SIGKILL to its
// group if it lingers (server-everything ignores EOF while timers run).
func startBenchServer(b *testing.B, s benchServer, version string) *stdio.Client {
	b.Helper()
	argv := s.argv(b)
	if s.name == "demo" && *demoCPUProfile != "" {
		argv = append(argv, "-cpuprofile", *demoCPUProfile+"."+version)
	}
	stderr := &testkit.SyncBuffer{}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := stdio.Connect(ctx, func(ctx context.Context) (*stdio.Client, error) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stderr = stderr
		c, err := stdio.Start(ctx, cmd, stdio.ClientConfig{})
		if err == nil {
			b.Cleanup(func() { testkit.StopChild(b, c, 2*time.Second) })
		}
		return c, err
	}, stdio.ConnectConfig{Versions: []string{version}})
	if err != nil {
		b.Fatalf("Connect(%s at %s): %v\nstderr:\n%s", s.name, version, err, stderr)
	}
	if got := c.Protocol(); got != version {
		b.Fatalf("%s: Protocol() = %s, want %s", s.name, got, version)
	}
	res, err := c.Call(ctx, "tools/call", s.params, nil)
	if err != nil || !bytes.Contains(res, s.want) || bytes.Contains(res, []byte(`"isError":true`)) {
		b.Fatalf("%s: tools/call %s = %s, %v; want a result with %s", s.name, s.params, res, err, s.want)
	}
	return c
}

// benchEcho makes b.N calls of s's echo from inflight goroutines
// (runLoad), reporting the server process's CPU per call as srv-cpu-µs/op.
func benchEcho(b *testing.B, c *stdio.Client, s benchServer, inflight int) {
	runLoad(b, inflight, map[string]int{"srv": c.Pid()}, func() error {
		res, err := c.Call(context.Background(), "tools/call", s.params, nil)
		if err == nil && !bytes.Contains(res, s.want) {
			err = fmt.Errorf("tools/call %s = %s", s.params, res)
		}
		return err
	})
}

// BenchmarkSideBySide measures the side-by-side server (package
// cmd/mcpbridge/internal/sidebysidetest) as each library serves it: server=sdk, the
// Go SDK version, and server=mcpbridge, the stdio/mcp version, each built
// as its own program and driven like BenchmarkEchoServer's servers, with
// the same client and metrics. It calls tool=add ({"a":2,"b":3}, a typed
// result with structured content) and tool=greet ({"name":"Ada"}, text),
// at 1 and 64 requests in flight, in both eras. Both children of an era
// are started first and the two servers alternate at each point, so that
// each sees the machine's other load alike. The figures of docs/server.md come from
//
//	go test -run '^$' -bench SideBySide -benchtime 2s -count 3 ./cmd/mcpbridge/
func BenchmarkSideBySide(b *testing.B) {
	servers := make([]benchServer, len(sidebysidetest.Servers))
	for i, name := range sidebysidetest.Servers {
		bin := sidebysidetest.Build(b, name) // once, for every sub-benchmark
		servers[i] = benchServer{name: name, argv: func(testing.TB) []string { return []string{bin} }}
	}
	calls := []struct {
		tool   string
		params json.RawMessage
		want   []byte
	}{
		{"add", json.RawMessage(`{"name":"add","arguments":{"a":2,"b":3}}`), []byte(`"structuredContent":{"sum":5}`)},
		{"greet", json.RawMessage(`{"name":"greet","arguments":{"name":"Ada"}}`), []byte(`"text":"Hello, Ada!"`)},
	}
	for _, version := range eras {
		b.Run("era="+version, func(b *testing.B) {
			clients := make([]*stdio.Client, len(servers))
			for i, s := range servers {
				s.params, s.want = calls[0].params, calls[0].want
				clients[i] = startBenchServer(b, s, version)
			}
			for _, call := range calls {
				for _, n := range []int{1, 64} {
					for i, s := range servers {
						s.params, s.want = call.params, call.want
						b.Run(fmt.Sprintf("tool=%s/inflight=%d/server=%s", call.tool, n, s.name), func(b *testing.B) {
							benchEcho(b, clients[i], s, n)
						})
					}
				}
			}
		})
	}
}

// selfCPU returns the CPU time the benchmark process (the client) has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU returns the CPU time (user and system, all threads) that
// process pid has used, from /proc/pid/stat; ok is false where there is no
// such file. Per request, it says what the server itself costs, which the
// machine's other load disturbs far less than requests/s (the client runs
// on the same two cores).
func processCPU(pid int) (time.Duration, bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The fields after the parenthesised command name, which may hold
	// spaces: state is field 3, utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	// In clock ticks of USER_HZ, which is 100 on every Linux platform Go
	// supports.
	return time.Duration(utime+stime) * (time.Second / 100), true
}

// processSleeps returns how many times the threads of process pid have
// blocked (voluntary context switches, summed over /proc/pid/task): each
// is a thread going to sleep for want of work, and being woken again is
// most of what a call costs a process at low load. Threads that have
// exited are not counted; a Go process keeps its threads.
func processSleeps(pid int) (int64, bool) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, false
	}
	var n int64
	for _, t := range tasks {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		if err != nil {
			continue // the thread exited meanwhile
		}
		for line := range strings.Lines(string(raw)) {
			if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
				k, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				if err != nil {
					return 0, false
				}
				n += k
			}
		}
	}
	return n, true
}
