//go:build linux

package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// SoakEnv sets the soak test's length (a Go duration); without it the
// test runs for soakDefault, so that `go test ./...` exercises it too.
// .ci/run runs it for minutes (docs/testing.md, "Soak").
const (
	SoakEnv     = "MCPBRIDGE_SOAK"
	soakDefault = 3 * time.Second
)

// TestSoak drives a bridge fronting two real children, one per era, with
// mixed traffic from many callers (typed calls, raw calls, call streams,
// tunnels, subscriptions) while the children crash and are killed at
// random, and checks what no single fault test can:
//
//   - every answer belongs to its caller: each call carries a message
//     unique to it and must get exactly that back;
//   - a call fails only as the failure model says (UNAVAILABLE while a
//     child is gone, DEADLINE_EXCEEDED for the deliberately short ones);
//   - nothing leaks: once the traffic stops, the goroutines, file
//     descriptors and heap return to their baseline, and once the
//     service closes no child process is left.
func TestSoak(t *testing.T) {
	length := soakDefault
	if v := os.Getenv(SoakEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("%s=%q: %v", SoakEnv, v, err)
		}
		length = d
	}
	ctx, cancel := context.WithTimeout(t.Context(), length+2*time.Minute)
	defer cancel()

	servers := []ServerConfig{fixtureChild(t, "modern", time.Second), fixtureChild(t, "legacy", time.Second)}
	servers[1].Versions = []string{protocol.Version20251125}
	for i := range servers {
		servers[i].MaxRestarts = 1 << 20 // the circuit never opens: crashes are the test
		servers[i].RestartBackoff = 10 * time.Millisecond
		servers[i].MaxRestartBackoff = 100 * time.Millisecond
	}
	svc, err := New(Config{Servers: servers, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			svc.Close()
		}
	}()
	conn := serveLoopback(t, svc.NewGRPCServer())
	bc := mcpbridgev1.NewBridgeServiceClient(conn)
	for _, s := range []string{"modern", "legacy"} {
		if _, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: s, WaitForReady: true}); err != nil {
			t.Fatal(err)
		}
	}

	// The baseline, after one round of every kind of traffic.
	var stats soakStats
	soakRound(ctx, t, bc, "warm-up", 0, &stats)
	base := measure()

	traffic, stopTraffic := context.WithTimeout(ctx, length)
	defer stopTraffic()
	var wg sync.WaitGroup
	for caller := range 16 {
		wg.Go(func() {
			for n := 0; traffic.Err() == nil; n++ {
				soakRound(traffic, t, bc, fmt.Sprintf("c%d", caller), n, &stats)
			}
		})
	}
	wg.Go(func() { soakCrasher(traffic, t, bc, svc, &stats) })
	wg.Wait()
	if t.Failed() {
		return
	}
	t.Logf("soak %v: %d answers checked, %d UNAVAILABLE while a child was gone, %d deadlines, %d crashes, %d kills, %d subscriptions, %d tunnels",
		length, stats.ok.Load(), stats.unavailable.Load(), stats.deadline.Load(), stats.crashes.Load(), stats.kills.Load(), stats.subs.Load(), stats.tunnels.Load())
	if stats.ok.Load() == 0 || stats.crashes.Load()+stats.kills.Load() == 0 {
		t.Fatalf("the soak checked nothing under faults")
	}

	// Both children serve again, and the bridge is back to its baseline.
	for _, s := range []string{"modern", "legacy"} {
		if _, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: s, WaitForReady: true}); err != nil {
			t.Fatal(err)
		}
	}
	soakRound(ctx, t, bc, "after", 0, &stats)
	settle(ctx, t, func() error {
		now := measure()
		switch {
		case now.goroutines > base.goroutines+10:
			return fmt.Errorf("%d goroutines after the soak, %d before", now.goroutines, base.goroutines)
		case now.fds > base.fds+4:
			return fmt.Errorf("%d open file descriptors after the soak, %d before", now.fds, base.fds)
		case now.heap > base.heap+base.heap/2+8<<20:
			return fmt.Errorf("%d KiB of heap in use after the soak, %d KiB before", now.heap>>10, base.heap>>10)
		}
		t.Logf("baseline: %d goroutines, %d fds, %d KiB heap; after: %d, %d, %d KiB", base.goroutines, base.fds, base.heap>>10, now.goroutines, now.fds, now.heap>>10)
		return nil
	})

	svc.Close()
	closed = true
	if kids := children(); len(kids) > 0 {
		t.Errorf("child processes left after Close: %v", kids)
	}
}

type soakStats struct {
	ok, unavailable, deadline, crashes, kills, subs, tunnels atomic.Int64
}

// soakRound makes one call of each kind as caller, call n, on a server
// picked at random, and checks each answer is its own.
func soakRound(ctx context.Context, t *testing.T, bc mcpbridgev1.BridgeServiceClient, caller string, n int, st *soakStats) {
	server := []string{"modern", "legacy"}[rand.IntN(2)]
	msg := func(kind string) string { return fmt.Sprintf("%s/%s/%d/%s", caller, kind, n, server) }
	check := func(kind, want, got string, err error) {
		switch {
		case err == nil && got == want:
			st.ok.Add(1)
		case err == nil:
			t.Errorf("%s: got %q, want %q: an answer that is not the caller's", kind, got, want)
		case ending(ctx): // the soak ended mid-call
		case status.Code(err) == codes.Unavailable:
			st.unavailable.Add(1)
		default:
			t.Errorf("%s to %s: %v; only UNAVAILABLE may fail a call while children crash", kind, server, err)
		}
	}

	// A typed call.
	m := msg("typed")
	res, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: server, Name: "echo", Arguments: mustStruct(t, map[string]any{"message": m})})
	got := ""
	if err == nil && len(res.GetContent()) > 0 {
		got = res.GetContent()[0].GetText().GetText()
	}
	check("CallTool", m, got, err)

	// A raw call.
	m = msg("raw")
	raw, err := bc.Call(ctx, &mcpbridgev1.CallRequest{Server: server, Method: "tools/call", ParamsJson: `{"name":"echo","arguments":{"message":"` + m + `"}}`})
	check("Call", m, textOf(raw.GetResultJson()), err)

	// A call stream.
	m = msg("stream")
	got = ""
	s, err := bc.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: server, Name: "echo", Arguments: mustStruct(t, map[string]any{"message": m})})
	if err == nil {
		var msgs []*mcpbridgev1.CallToolStreamResponse
		msgs, err = recvAll(s)
		for _, r := range msgs {
			if c := r.GetResult().GetContent(); len(c) > 0 {
				got = c[0].GetText().GetText()
			}
		}
	}
	check("CallToolStream", m, got, err)

	// A call whose deadline passes in the child: DEADLINE_EXCEEDED (or
	// UNAVAILABLE if the child dies first), and the child is told.
	if n%4 == 0 {
		short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		_, err := bc.Call(short, &mcpbridgev1.CallRequest{Server: server, Method: "tools/call", ParamsJson: `{"name":"block","arguments":{}}`})
		cancel()
		switch status.Code(err) {
		case codes.DeadlineExceeded:
			st.deadline.Add(1)
		case codes.Unavailable:
			st.unavailable.Add(1)
		default:
			if !ending(ctx) {
				t.Errorf("a call past its deadline: %v, want DEADLINE_EXCEEDED", err)
			}
		}
	}

	// A tunnel with two requests whose ids are the caller's own.
	if n%3 == 0 {
		tunnelRound(ctx, t, bc, server, msg("tunnel"), check)
		st.tunnels.Add(1)
	}

	// A subscription, acknowledged and then dropped.
	if n%5 == 0 {
		sctx, cancel := context.WithCancel(ctx)
		sub, err := bc.Subscribe(sctx, &mcpbridgev1.SubscribeRequest{Server: server, ToolsListChanged: true, ResourcesListChanged: true})
		if err == nil {
			var ack *mcpbridgev1.SubscribeResponse
			if ack, err = sub.Recv(); err == nil && ack.GetAcknowledged() == nil {
				t.Errorf("Subscribe: first message %v, want the acknowledgement", ack)
			}
		}
		cancel()
		switch {
		case err == nil:
			st.subs.Add(1)
		case status.Code(err) == codes.Unavailable || ending(ctx):
		default:
			t.Errorf("Subscribe to %s: %v", server, err)
		}
	}
}

// tunnelRound sends two tools/call requests through one Connect tunnel,
// with ids of the caller's, and checks each response by id and message.
func tunnelRound(ctx context.Context, t *testing.T, bc mcpbridgev1.BridgeServiceClient, server, m string, check func(kind, want, got string, err error)) {
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tun, err := bc.Connect(tctx)
	if err != nil {
		check("Connect", "", "", err)
		return
	}
	want := map[string]string{}
	for i := range 2 {
		id := strconv.Quote(fmt.Sprintf("%s#%d", m, i))
		want[id] = fmt.Sprintf("%s#%d", m, i)
		params := `{"name":"echo","arguments":{"message":` + id + `}}`
		if server == "modern" { // a 2026 client sends its own _meta
			params = testkit.WithModernMeta(params)
		}
		req := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`
		if err := tun.Send(&mcpbridgev1.ConnectRequest{Server: server, MessageJson: req}); err != nil {
			if err == io.EOF { // the stream has ended: its status is Recv's
				for err = nil; err == nil; {
					_, err = tun.Recv()
				}
			}
			check("Connect", "", "", err)
			return
		}
	}
	for len(want) > 0 {
		resp, err := tun.Recv()
		if err != nil {
			check("Connect", "", "", err)
			return
		}
		var msg struct {
			ID     json.RawMessage
			Result json.RawMessage
			Error  *struct{ Code int64 }
		}
		if json.Unmarshal([]byte(resp.GetMessageJson()), &msg) != nil || msg.ID == nil {
			continue // a notification
		}
		text, ok := want[string(msg.ID)]
		if !ok {
			t.Errorf("Connect: a response to id %s, which this tunnel never sent", msg.ID)
			return
		}
		delete(want, string(msg.ID))
		if msg.Error != nil {
			// A child that died mid-call answers -32000 inside the tunnel,
			// and a request the soak's end cut short -32001.
			if msg.Error.Code != -32000 && (msg.Error.Code != -32001 || !ending(ctx)) {
				t.Errorf("Connect: %s", resp.GetMessageJson())
			}
			continue
		}
		check("Connect", text, textOf(string(msg.Result)), nil)
	}
}

// soakCrasher makes a child crash (its crash tool) or kills it (SIGKILL
// from outside) every 150-450 ms, on a server picked at random.
func soakCrasher(ctx context.Context, t *testing.T, bc mcpbridgev1.BridgeServiceClient, svc *Service, st *soakStats) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Duration(150+rand.IntN(300)) * time.Millisecond):
		}
		server := []string{"modern", "legacy"}[rand.IntN(2)]
		if rand.IntN(2) == 0 {
			bc.Call(ctx, &mcpbridgev1.CallRequest{Server: server, Method: "tools/call", ParamsJson: `{"name":"crash","arguments":{"code":3}}`})
			st.crashes.Add(1)
			continue
		}
		if c := svc.serverSet()[server].Children()[0].Status().Child; c != nil && c.Pid() > 0 {
			syscall.Kill(c.Pid(), syscall.SIGKILL)
			st.kills.Add(1)
		}
	}
}

// ending reports that the soak's traffic is over or about to be: the
// bridge ends a call a margin (at most 250 ms) before its deadline, so a
// call cut by the end of the soak may fail just before ctx does.
func ending(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ctx.Err() != nil || (ok && time.Until(d) < 300*time.Millisecond)
}

// textOf returns the text of a tools/call result's first content block,
// or "".
func textOf(result string) string {
	var r struct{ Content []struct{ Text string } }
	if json.Unmarshal([]byte(result), &r) != nil || len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

type footprint struct {
	goroutines, fds int
	heap            uint64
}

// measure returns the process's goroutines, open descriptors and heap in
// use after a collection.
func measure() footprint {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fds, _ := os.ReadDir("/proc/self/fd")
	return footprint{goroutines: runtime.NumGoroutine(), fds: len(fds), heap: ms.HeapInuse}
}

// children returns the processes whose parent is this one, zombies
// excepted.
func children() []string {
	entries, _ := os.ReadDir("/proc")
	self := strconv.Itoa(os.Getpid())
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) >= 2 && f[1] == self && f[0] != "Z" {
			out = append(out, e.Name()+" "+string(stat[:i+1]))
		}
	}
	return out
}
