//go:build linux

package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// BenchmarkCapacity measures what one replica costs, for sizing a
// deployment (docs/scaling.md): a real `mcpbridge serve` process fronting
// the demo, driven over gRPC on loopback from this process.
//
//   - calls: 64 callers of CallTool(echo) on a shared child. Reported: the
//     bridge process's CPU per call (bridge-cpu-µs/op) and the child's
//     (child-cpu-µs/op), read from /proc; calls/s. One core of bridge CPU
//     serves 1e6 / bridge-cpu-µs/op calls a second.
//   - sessions: 20 sessions of a session server, each started by one call.
//     Reported: the resident memory per session of its child and reaper
//     (child-KiB/session) and of the bridge (bridge-KiB/session).
//   - subscribers: 1,000 Subscribe streams on one child. Reported: the
//     bridge's resident memory per stream (bridge-KiB/subscriber).
//
// docs/scaling.md's figures come from
//
//	go test -run '^$' -bench Capacity -benchtime 3s -count 3 ./cmd/mcpbridge/
func BenchmarkCapacity(b *testing.B) {
	config := b.TempDir() + "/mcpbridge.yaml"
	yaml := fmt.Sprintf(`servers:
  - name: shared
    command: [%[1]q, demo, -tick, "0"]
  - name: sessions
    command: [%[1]q, demo, -tick, "0"]
    policy: session
    session: {max: 100}
`, mcpbridgeBin)
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		b.Fatal(err)
	}
	br := startBridge(b, nil, "--config", config, "--log-level", "warn")
	bc := mcpbridgev1.NewBridgeServiceClient(br.conn(b))
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Minute)
	defer cancel()
	res, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: "shared", WaitForReady: true})
	if err != nil {
		b.Fatal(err)
	}
	child := int(res.GetChild().GetPid())
	bridge := br.cmd.Process.Pid

	b.Run("calls", func(b *testing.B) {
		const callers = 64
		req := &mcpbridgev1.CallToolRequest{Server: "shared", Name: "echo"}
		for range 200 { // warm: connections, buffers, the child's JIT-free start
			if _, err := bc.CallTool(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
		bcpu0, _ := processCPU(bridge)
		ccpu0, _ := processCPU(child)
		b.ResetTimer()
		start := time.Now()
		var wg sync.WaitGroup
		work := make(chan struct{}, callers)
		go func() {
			for range b.N {
				work <- struct{}{}
			}
			close(work)
		}()
		for range callers {
			wg.Go(func() {
				for range work {
					if _, err := bc.CallTool(ctx, req); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		b.StopTimer()
		bcpu1, _ := processCPU(bridge)
		ccpu1, _ := processCPU(child)
		b.ReportMetric(float64(bcpu1-bcpu0)/1e3/float64(b.N), "bridge-cpu-µs/op")
		b.ReportMetric(float64(ccpu1-ccpu0)/1e3/float64(b.N), "child-cpu-µs/op")
		b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	})

	b.Run("sessions", func(b *testing.B) {
		const sessions = 20
		for i := range b.N {
			before := rssKiB(b, bridge)
			pids := make([]int, 0, sessions)
			for s := range sessions {
				key := fmt.Sprintf("capacity-%d-%d", i, s)
				if _, err := bc.CallTool(metadata.AppendToOutgoingContext(ctx, "mcp-session", key),
					&mcpbridgev1.CallToolRequest{Server: "sessions", Name: "echo"}); err != nil {
					b.Fatal(err)
				}
				res, err := bc.GetServer(metadata.AppendToOutgoingContext(ctx, "mcp-session", key), &mcpbridgev1.GetServerRequest{Server: "sessions"})
				if err != nil {
					b.Fatal(err)
				}
				pids = append(pids, int(res.GetChild().GetPid()))
			}
			var children int64
			for _, pid := range pids {
				children += rssKiB(b, pid) + rssKiB(b, parentOf(b, pid)) // the child and its reaper
			}
			b.ReportMetric(float64(children)/sessions, "child-KiB/session")
			b.ReportMetric(float64(rssKiB(b, bridge)-before)/sessions, "bridge-KiB/session")
		}
	})

	b.Run("subscribers", func(b *testing.B) {
		const streams = 1000
		for range b.N {
			sctx, stop := context.WithCancel(ctx)
			before := rssKiB(b, bridge)
			for range streams {
				s, err := bc.Subscribe(sctx, &mcpbridgev1.SubscribeRequest{Server: "shared", ToolsListChanged: true, ResourceSubscriptions: []string{"demo://counter"}})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Recv(); err != nil { // the acknowledgement
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rssKiB(b, bridge)-before)/streams, "bridge-KiB/subscriber")
			stop()
		}
	})
}

// rssKiB returns the resident set of process pid, in KiB.
func rssKiB(tb testing.TB, pid int) int64 {
	tb.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return n
		}
	}
	tb.Fatalf("no VmRSS for process %d", pid)
	return 0
}

