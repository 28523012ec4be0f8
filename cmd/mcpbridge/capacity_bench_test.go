//go:build linux

package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// BenchmarkCapacity measures what one replica costs, for sizing a
// deployment (docs/scaling.md): a real `mcpbridge serve` process fronting
// the demo, driven over gRPC on loopback from this process.
//
//   - calls: 64 callers of CallTool(echo) on a shared child. Reported as
//     BenchmarkFloor's (runLoad): the bridge process's CPU per call
//     (bridge-cpu-µs/op) and the child's (child-cpu-µs/op), read from
//     /proc; req/s. One core of bridge CPU
//     serves 1e6 / bridge-cpu-µs/op calls a second.
//   - sessions: 50 sessions of a session server, each started by one call.
//     Reported: the proportional memory (PSS) per session of its child and reaper
//     (child-KiB/session) and of the bridge (bridge-KiB/session).
//   - subscribers: 1,000 Subscribe streams on one child. Reported: the
//     bridge's memory (PSS) per stream (bridge-KiB/subscriber).
//
// docs/scaling.md's figures come from
//
//	go test -run '^$' -bench Capacity -benchtime 3s -count 3 ./cmd/mcpbridge/
func BenchmarkCapacity(b *testing.B) {
	demo := yamlList([]string{mcpbridgeBin, "demo", "-tick", "0"})
	config := writeConfig(b, "", fmt.Sprintf(`servers:
  - name: shared
    command: %[1]s
  - name: sessions
    command: %[1]s
    policy: session
    session: {max: 1000}
`, demo))
	// At --log-level warn, as in production under load: no line per call.
	cmd, bc := startQuietBridge(b, "--config", config)
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Minute)
	defer cancel()
	child := readyChild(b, bc, "shared")
	bridge := cmd.Process.Pid

	// Memory first, before the calls leave garbage behind: the memory
	// (PSS) of the bridge before and after, and of each session's
	// processes. b.Loop runs each function once per -count.
	round := 0
	b.Run("sessions", func(b *testing.B) {
		const sessions = 50
		round++
		before := pssKiB(b, bridge)
		var children int64
		for s := range sessions {
			sctx := metadata.AppendToOutgoingContext(ctx, "mcp-session", fmt.Sprintf("capacity-%d-%d", round, s))
			if _, err := bc.CallTool(sctx, &mcpbridgev1.CallToolRequest{Server: "sessions", Name: "echo"}); err != nil {
				b.Fatal(err)
			}
			res, err := bc.GetServer(sctx, &mcpbridgev1.GetServerRequest{Server: "sessions"})
			if err != nil {
				b.Fatal(err)
			}
			pid := int(res.GetChild().GetPid())
			children += pssKiB(b, pid) + pssKiB(b, parentOf(b, pid)) // the child and its reaper
		}
		after := pssKiB(b, bridge)
		for b.Loop() { // nothing to time: its ns/op means nothing
		}
		b.ReportMetric(float64(children)/sessions, "child-KiB/session")
		b.ReportMetric(float64(after-before)/sessions, "bridge-KiB/session")
	})

	b.Run("subscribers", func(b *testing.B) {
		const streams = 1000
		sctx, stop := context.WithCancel(ctx)
		defer stop()
		before := pssKiB(b, bridge)
		for range streams {
			s, err := bc.Subscribe(sctx, &mcpbridgev1.SubscribeRequest{Server: "shared", ToolsListChanged: true, ResourceSubscriptions: []string{"demo://counter"}})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Recv(); err != nil { // the acknowledgement
				b.Fatal(err)
			}
		}
		after := pssKiB(b, bridge)
		for b.Loop() {
		}
		b.ReportMetric(float64(after-before)/streams, "bridge-KiB/subscriber")
	})

	b.Run("calls", func(b *testing.B) {
		req := &mcpbridgev1.CallToolRequest{Server: "shared", Name: "echo"}
		runLoad(b, 64, map[string]int{"bridge": bridge, "child": child}, func() error {
			_, err := bc.CallTool(ctx, req)
			return err
		})
	})
}

// pssKiB returns the proportional set size of process pid, in KiB: its
// resident memory, with each page shared among n processes counted 1/n
// (the children and reapers share the binary's pages), which sums over
// processes to what they use together.
func pssKiB(tb testing.TB, pid int) int64 {
	tb.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return n
		}
	}
	tb.Fatalf("no Pss for process %d", pid)
	return 0
}
