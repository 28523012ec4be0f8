//go:build linux

package main

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
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
//   - sessions: a bridge of its own (a new one each round, like a replica
//     of the chart's default config) with 50 sessions of a session
//     server, each started by one call, measured once all are up.
//     Reported per session: the proportional memory (PSS) of its child
//     and reaper (child-KiB/session); their private memory (USS), what
//     one more session adds (child-private-KiB/session); and the growth
//     of the bridge's anonymous memory, its heap and stacks
//     (bridge-KiB/session; its other pages turn from private to shared as
//     children map the same binary). PSS splits the pages of the binary,
//     which the bridge, the children and their reapers share, among the
//     processes that map it, so per session it falls towards the private
//     memory as the sessions grow in number. MCPBRIDGE_BENCH_SESSIONS
//     sets their number, MCPBRIDGE_BENCH_SESSION_CALLS the echo calls
//     each makes (1), MCPBRIDGE_BENCH_DEMO_TICK the demo's -tick (0: no
//     timer; the demo's default, and the chart's, is 3s).
//   - subscribers: 1,000 Subscribe streams on one child. Reported: the
//     bridge's memory (PSS) per stream (bridge-KiB/subscriber).
//
// docs/scaling.md's figures come from
//
//	go test -run '^$' -bench Capacity -benchtime 3s -count 3 ./cmd/mcpbridge/
func BenchmarkCapacity(b *testing.B) {
	tick := cmp.Or(os.Getenv("MCPBRIDGE_BENCH_DEMO_TICK"), "0")
	sessions, calls := benchCount(b, "MCPBRIDGE_BENCH_SESSIONS", 50), benchCount(b, "MCPBRIDGE_BENCH_SESSION_CALLS", 1)
	demo := yamlList([]string{mcpbridgeBin, "demo", "-tick", tick})
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Minute)
	defer cancel()

	// Memory first, before the calls leave garbage behind, and with no
	// other process of the binary running. b.Loop runs each function once
	// per -count. At --log-level warn, as in production under load: no
	// line per call.
	b.Run("sessions", func(b *testing.B) {
		config := writeConfig(b, "", fmt.Sprintf(`servers:
  - name: sessions
    command: %s
    policy: session
    session: {max: 1000}
`, demo))
		cmd, bc := startQuietBridge(b, "--config", config)
		if _, err := bc.ListServers(ctx, &mcpbridgev1.ListServersRequest{}, grpc.WaitForReady(true)); err != nil {
			b.Fatal(err)
		}
		before := smapsKiB(b, cmd.Process.Pid, "Anonymous")
		var pids []int
		for s := range sessions {
			sctx := metadata.AppendToOutgoingContext(ctx, "mcp-session", fmt.Sprintf("capacity-%d", s))
			for range calls {
				if _, err := bc.CallTool(sctx, &mcpbridgev1.CallToolRequest{Server: "sessions", Name: "echo"}); err != nil {
					b.Fatal(err)
				}
			}
			res, err := bc.GetServer(sctx, &mcpbridgev1.GetServerRequest{Server: "sessions"})
			if err != nil {
				b.Fatal(err)
			}
			pid := int(res.GetChild().GetPid())
			pids = append(pids, pid, parentOf(b, pid)) // the child and its reaper
		}
		var pss, private int64
		for _, pid := range pids {
			pss += pssKiB(b, pid)
			private += privateKiB(b, pid)
		}
		after := smapsKiB(b, cmd.Process.Pid, "Anonymous")
		for b.Loop() { // nothing to time: its ns/op means nothing
		}
		b.ReportMetric(float64(pss)/float64(sessions), "child-KiB/session")
		b.ReportMetric(float64(private)/float64(sessions), "child-private-KiB/session")
		b.ReportMetric(float64(after-before)/float64(sessions), "bridge-KiB/session")
	})

	cmd, bc := startQuietBridge(b, "--config", writeConfig(b, "", "servers:\n  - name: shared\n    command: "+demo+"\n"))
	child := readyChild(b, bc, "shared")
	bridge := cmd.Process.Pid

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

// benchCount is the positive number in the environment variable name, or
// def when it is unset.
func benchCount(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// pssKiB returns the proportional set size of process pid, in KiB: its
// resident memory, with each page shared among n processes counted 1/n
// (the children and reapers share the binary's pages), which sums over
// processes to what they use together.
func pssKiB(tb testing.TB, pid int) int64 {
	tb.Helper()
	return smapsKiB(tb, pid, "Pss")
}

// privateKiB returns the memory of process pid that no other process
// maps (its unique set size), in KiB: what it adds to the host.
func privateKiB(tb testing.TB, pid int) int64 {
	tb.Helper()
	return smapsKiB(tb, pid, "Private_Clean", "Private_Dirty")
}

// smapsKiB sums the fields of process pid's smaps_rollup, in KiB.
func smapsKiB(tb testing.TB, pid int, fields ...string) int64 {
	tb.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var sum int64
	found := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || !slices.Contains(fields, name) {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			tb.Fatal(err)
		}
		sum += n
		found++
	}
	if found != len(fields) {
		tb.Fatalf("process %d's smaps_rollup has %d of the fields %v", pid, found, fields)
	}
	return sum
}
