package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/mcpbridge/mcpbridge/bridge/internal/supervisor"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
)

// BenchmarkPool compares, in one run, 64 callers of the Go SDK server's
// test_simple_text through the bridge with one shared child and with
// pools of 2 and 4 children: where the child is the bottleneck, a pool
// should scale until the machine's cores are busy. Reported: req/s,
// p50-µs and p99-µs. Reproduce with
//
//	go test -run '^$' -bench 'Pool$' -benchtime 3s -count 3 ./bridge/
func BenchmarkPool(b *testing.B) {
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("children=%d/callers=64", n), func(b *testing.B) {
			sc := goSDKServer(b, "")
			if n > 1 {
				sc.Policy, sc.Pool = PolicyPool, PoolConfig{Min: n}
			}
			h := startTypedBridge(b, sc)
			waitMembersReady(b, h.svc, n)
			req := &mcpbridgev1.CallToolRequest{Name: "test_simple_text"}
			call := func() error {
				res, err := h.bc.CallTool(context.Background(), req)
				if err == nil && len(res.GetContent()) == 0 {
					err = fmt.Errorf("CallTool = %v", res)
				}
				return err
			}
			if err := call(); err != nil {
				b.Fatal(err)
			}
			runCallers(b, 64, call)
		})
	}
}

// waitMembersReady waits until the only server has n ready children.
func waitMembersReady(tb testing.TB, svc *Service, n int) {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, srv := range svc.serverSet() {
		for {
			ready := 0
			var changed []<-chan struct{}
			for _, m := range srv.Children() {
				st := m.Status()
				if st.State == supervisor.Ready {
					ready++
				}
				changed = append(changed, st.Changed)
			}
			if ready == n {
				break
			}
			if time.Now().After(deadline) || len(changed) == 0 {
				tb.Fatalf("%d of %d children ready", ready, n)
			}
			select { // the first member's next state change, or a minute
			case <-changed[0]:
			case <-time.After(time.Until(deadline)):
			}
		}
	}
}

// BenchmarkSessionStart measures what a new session costs its client: the
// time to the first result of a request that names a new mcp-session,
// against, in the same run, what the child costs on its own: spawning it,
// negotiating and one call over stdio, without a reaper (path=direct).
// The session runs with and without the reaper the bridge puts around
// each child by default. Both use the "policy" fixture (the project's
// runtime) and the Go SDK server.
// Reproduce with
//
//	go test -run '^$' -bench 'SessionStart' -benchtime 50x -count 3 ./bridge/
func BenchmarkSessionStart(b *testing.B) {
	for _, child := range []struct {
		name string
		sc   func(testing.TB) ServerConfig
		tool string
	}{
		{"runtime", func(tb testing.TB) ServerConfig { return fixtureServer(tb, "", "policy") }, "pid"},
		{"go-sdk", func(tb testing.TB) ServerConfig { return goSDKServer(tb, "") }, "test_simple_text"},
	} {
		for _, reaper := range []bool{true, false} {
			b.Run(fmt.Sprintf("child=%s/path=session/reaper=%v", child.name, reaper), func(b *testing.B) {
				sc := child.sc(b)
				sc.DisableReaper = !reaper
				sc.Policy = PolicySession
				sc.Session = SessionConfig{Max: 8, IdleTimeout: time.Hour}
				h := startTypedBridge(b, sc)
				req := &mcpbridgev1.CallToolRequest{Name: child.tool}
				var seq atomic.Int64
				b.ResetTimer()
				for b.Loop() {
					name := "bench-" + strconv.FormatInt(seq.Add(1), 10)
					ctx := metadata.AppendToOutgoingContext(context.Background(), SessionMetadataKey, name)
					if _, err := h.bc.CallTool(ctx, req); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					h.svc.serverSet()[""].StopSession(name) // not timed: at most one session runs
					b.StartTimer()
				}
			})
		}
		b.Run("child="+child.name+"/path=direct", func(b *testing.B) {
			sc := child.sc(b)
			if err := (&Config{Servers: []ServerConfig{sc}}).normalize(); err != nil {
				b.Fatal(err)
			}
			params := json.RawMessage(`{"name":"` + child.tool + `"}`)
			b.ResetTimer()
			for b.Loop() {
				c := directClient(b, sc)
				if _, err := c.Call(context.Background(), "tools/call", params, &stdio.CallOptions{}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				c.Close()
				b.StartTimer()
			}
		})
	}
}
