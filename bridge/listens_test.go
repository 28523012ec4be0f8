package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/fanout"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/stdiotest"
)

// eventKey names a Subscribe message for tallies: its kind, with the URI
// of an update and the level of a log.
func eventKey(m *mcpbridgev1.SubscribeResponse) string {
	switch {
	case m.GetAcknowledged() != nil:
		return "acknowledged"
	case m.GetResourceUpdated() != nil:
		return "resource_updated " + m.GetResourceUpdated().GetUri()
	case m.GetToolsListChanged() != nil:
		return "tools_list_changed"
	case m.GetPromptsListChanged() != nil:
		return "prompts_list_changed"
	case m.GetResourcesListChanged() != nil:
		return "resources_list_changed"
	case m.GetLog() != nil:
		return "log " + m.GetLog().GetLevel().String()
	}
	return m.String()
}

// subscribers is a running "subscribers" fixture.
type subscribers struct {
	tb    testing.TB
	stdin io.WriteCloser
	out   *bufio.Scanner
	done  chan error
}

// tally is one report of the subscribers fixture.
type tally struct {
	Acked  int
	Events map[string]int
	Failed map[string]int
	First  string
}

// startSubscribers opens n Subscribe streams with req to the bridge from
// a process of its own. Cleanup cancels them and waits for the process.
func startSubscribers(tb testing.TB, addr string, n int, req *mcpbridgev1.SubscribeRequest) *subscribers {
	tb.Helper()
	reqJSON, err := protojson.Marshal(req)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := testkit.FixtureCommand(tb, "subscribers", "SUBSCRIBERS_ADDR="+addr, "SUBSCRIBERS_N="+strconv.Itoa(n), "SUBSCRIBERS_REQUEST="+string(reqJSON))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	s := &subscribers{tb: tb, stdin: stdin, out: bufio.NewScanner(stdout), done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }() // ends when the process exits, at the latest in close
	tb.Cleanup(func() { s.close() })
	return s
}

// next reads the fixture's next report.
func (s *subscribers) next() tally {
	s.tb.Helper()
	if !s.out.Scan() {
		s.tb.Fatalf("subscribers: no report: %v", s.out.Err())
	}
	var t tally
	if err := json.Unmarshal(s.out.Bytes(), &t); err != nil {
		s.tb.Fatalf("subscribers: report %q: %v", s.out.Bytes(), err)
	}
	return t
}

// recv makes every stream read one more message.
func (s *subscribers) recv() tally {
	s.tb.Helper()
	if _, err := io.WriteString(s.stdin, "recv\n"); err != nil {
		s.tb.Fatalf("subscribers: %v", err)
	}
	return s.next()
}

// close cancels the streams and waits for the process; it is idempotent.
func (s *subscribers) close() {
	if s.stdin == nil {
		return
	}
	s.stdin.Close()
	s.stdin = nil
	if err := <-s.done; err != nil {
		s.tb.Errorf("subscribers: %v", err)
	}
}

// memSample is the bridge process's heap and goroutines, after a
// collection.
type memSample struct {
	heap, stacks uint64 // bytes of live heap objects, of goroutine stacks
	goroutines   int
}

func sampleMem() memSample {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	return memSample{heap: s[0].Value.Uint64(), stacks: s[1].Value.Uint64(), goroutines: runtime.NumGoroutine()}
}

func perStream(after, before uint64, n int) int64 { return (int64(after) - int64(before)) / int64(n) }

// TestSubscribeTenThousand is issue 9, item 5: 10,000 Subscribe streams
// on one 2026 child that keeps at most 32 listens open (the project's own
// runtime, as `mcpbridge demo`). Every stream is acknowledged, an update
// fired on the child reaches every one of them, the child received one
// listen, and when the streams leave the listen is cancelled on the child.
// The bridge's memory and goroutines per stream are measured in its own
// process (docs/testing.md, "Memory checks"); the streams' client runs in
// another. Before listens were shared, 32 streams were acknowledged and
// 9,968 got RESOURCE_EXHAUSTED.
func TestSubscribeTenThousand(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 streams take seconds")
	}
	const n = 10000
	b := startStreamsBridge(t, listenerServer(t))
	// About 1 s, 10 s under -race on two busy cores: a longer bound than
	// testWait, which only a broken bridge reaches.
	ctx, cancel := context.WithTimeout(context.Background(), 3*testWait)
	defer cancel()
	if v := getProtocol(ctx, t, b, ""); v != "2026-07-28" {
		t.Fatalf("protocol = %q, want 2026-07-28", v)
	}
	req := &mcpbridgev1.SubscribeRequest{ToolsListChanged: true, ResourceSubscriptions: []string{"test://r"}}
	before := sampleMem()
	subs := startSubscribers(t, b.addr, n, req)
	if got := subs.next(); got.Acked != n {
		t.Fatalf("%d of %d streams acknowledged; failures %v, the first: %s", got.Acked, n, got.Failed, got.First)
	}
	after := sampleMem()
	heap := perStream(after.heap, before.heap, n)
	t.Logf("per stream in the bridge: %d B heap, %d B goroutine stacks, %.2f goroutines",
		heap, perStream(after.stacks, before.stacks, n), float64(after.goroutines-before.goroutines)/n)
	if heap > 16<<10 {
		t.Errorf("the bridge's heap grew by %d B per stream, want at most 16 KiB", heap)
	}
	if extra := after.goroutines - before.goroutines - n; extra > 64 {
		t.Errorf("%d goroutines beyond one per stream", extra)
	}
	if got, want := toolText(t, b.callTool(ctx, t, "", "listens", "")), `{"received":1,"open":1,"cancelled":0,"refused":0}`; got != want {
		t.Errorf("the child's listens = %s, want %s", got, want)
	}

	b.callTool(ctx, t, "", "touch", `{"uri":"test://r"}`)
	if got := subs.recv(); got.Events["resource_updated test://r"] != n {
		t.Errorf("events = %v, want %d resource_updated test://r; failures %v, the first: %s", got.Events, n, got.Failed, got.First)
	}

	subs.close()
	b.callTool(ctx, t, "", "waitopen", `{"n":0}`)
	if got, want := toolText(t, b.callTool(ctx, t, "", "listens", "")), `{"received":1,"open":0,"cancelled":1,"refused":0}`; got != want {
		t.Errorf("the child's listens after the streams left = %s, want %s", got, want)
	}
}

// readUntil reads a stream's events, by eventKey, up to and including
// the first one named last.
func readUntil(tb testing.TB, st grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse], last string) []string {
	tb.Helper()
	var got []string
	for {
		m := nextEvent(tb, st, func(*mcpbridgev1.SubscribeResponse) bool { return true })
		got = append(got, eventKey(m))
		if got[len(got)-1] == last {
			return got
		}
	}
}

// TestSubscribeSharedFilters opens four streams with different filters on
// the listener fixture: three share the listen of the first, whose
// request covers theirs, and the fourth, which asks for a URI it does not
// cover, opens a second. Each acknowledgement is the stream's own request
// narrowed by what the child accepted (it has no prompts), and each stream
// gets only the events its own filter asks for.
func TestSubscribeSharedFilters(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, listenerServer(t))
	ctx := testCtx(t)
	streams := []struct {
		name    string
		req     *mcpbridgev1.SubscribeRequest
		ack     *mcpbridgev1.SubscriptionAcknowledged
		events  []string // after the acknowledgement, up to the marker, sorted
		listens string   // the child's counts once it is open
	}{{
		name: "wide",
		req: &mcpbridgev1.SubscribeRequest{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true,
			ResourceSubscriptions: []string{"test://", "mark://m"}},
		ack:     &mcpbridgev1.SubscriptionAcknowledged{ToolsListChanged: true, ResourcesListChanged: true, ResourceSubscriptions: []string{"test://", "mark://m"}},
		events:  []string{"resource_updated mark://m", "resource_updated test://r", "resource_updated test://x", "tools_list_changed"},
		listens: `{"received":1,"open":1,"cancelled":0,"refused":0}`,
	}, {
		name:    "tools and a sub-resource",
		req:     &mcpbridgev1.SubscribeRequest{ToolsListChanged: true, ResourceSubscriptions: []string{"test://r", "mark://m", "test://r"}},
		ack:     &mcpbridgev1.SubscriptionAcknowledged{ToolsListChanged: true, ResourceSubscriptions: []string{"test://r", "mark://m"}},
		events:  []string{"resource_updated mark://m", "resource_updated test://r", "tools_list_changed"},
		listens: `{"received":1,"open":1,"cancelled":0,"refused":0}`,
	}, {
		name:    "prompts the child refused",
		req:     &mcpbridgev1.SubscribeRequest{PromptsListChanged: true, ResourceSubscriptions: []string{"test://x", "mark://m"}, LogLevel: mcpbridgev1.LoggingLevel_LOGGING_LEVEL_DEBUG},
		ack:     &mcpbridgev1.SubscriptionAcknowledged{ResourceSubscriptions: []string{"test://x", "mark://m"}},
		events:  []string{"resource_updated mark://m", "resource_updated test://x"},
		listens: `{"received":1,"open":1,"cancelled":0,"refused":0}`,
	}, {
		name:    "not covered",
		req:     &mcpbridgev1.SubscribeRequest{ResourceSubscriptions: []string{"other://y", "mark://m"}},
		ack:     &mcpbridgev1.SubscriptionAcknowledged{ResourceSubscriptions: []string{"other://y", "mark://m"}},
		events:  []string{"resource_updated mark://m", "resource_updated other://y"},
		listens: `{"received":2,"open":2,"cancelled":0,"refused":0}`,
	}}
	opened := make([]grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse], len(streams))
	for i, s := range streams {
		st, ack := b.subscribe(ctx, t, s.req)
		if diff := cmp.Diff(s.ack, ack, protocmp.Transform()); diff != "" {
			t.Errorf("%s: acknowledged (-want +got):\n%s", s.name, diff)
		}
		if got := toolText(t, b.callTool(ctx, t, "", "listens", "")); got != s.listens {
			t.Errorf("after %s: the child's listens = %s, want %s", s.name, got, s.listens)
		}
		opened[i] = st
	}
	for _, uri := range []string{"test://r", "test://x", "other://y"} {
		b.callTool(ctx, t, "", "touch", `{"uri":"`+uri+`"}`)
	}
	b.callTool(ctx, t, "", "toolschanged", "")
	// The child sends a listen's list changes before its updates, and its
	// updates in order: the marker, touched last, comes last.
	b.callTool(ctx, t, "", "touch", `{"uri":"mark://m"}`)
	for i, s := range streams {
		got := readUntil(t, opened[i], "resource_updated mark://m")
		slices.Sort(got)
		if diff := cmp.Diff(s.events, got); diff != "" {
			t.Errorf("%s: events (-want +got):\n%s", s.name, diff)
		}
	}
}

// TestSubscribeSharedLeave shows the life of a shared listen: a second
// stream joins without reaching the child, the first leaving does not end
// the second, the last leaving cancels the listen on the child, and the
// next stream opens a new one.
func TestSubscribeSharedLeave(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, listenerServer(t))
	ctx := testCtx(t)
	listens := func() string { return toolText(t, b.callTool(ctx, t, "", "listens", "")) }
	req := &mcpbridgev1.SubscribeRequest{ResourceSubscriptions: []string{"test://r"}}
	ctx1, cancel1 := context.WithCancel(ctx)
	s1, _ := b.subscribe(ctx1, t, req)
	ctx2, cancel2 := context.WithCancel(ctx)
	s2, _ := b.subscribe(ctx2, t, req)
	if got, want := listens(), `{"received":1,"open":1,"cancelled":0,"refused":0}`; got != want {
		t.Fatalf("the child's listens with two streams = %s, want %s", got, want)
	}
	cancel1()
	if _, err := s1.Recv(); status.Code(err) != codes.Canceled {
		t.Fatalf("Recv after cancelling the first stream = %v, want CANCELLED", err)
	}
	b.callTool(ctx, t, "", "touch", `{"uri":"test://r"}`)
	if got := eventKey(nextEvent(t, s2, func(*mcpbridgev1.SubscribeResponse) bool { return true })); got != "resource_updated test://r" {
		t.Errorf("the second stream got %s, want resource_updated test://r", got)
	}
	if got, want := listens(), `{"received":1,"open":1,"cancelled":0,"refused":0}`; got != want {
		t.Errorf("the child's listens after the first left = %s, want %s", got, want)
	}
	cancel2()
	b.callTool(ctx, t, "", "waitopen", `{"n":0}`)
	if got, want := listens(), `{"received":1,"open":0,"cancelled":1,"refused":0}`; got != want {
		t.Errorf("the child's listens after the last left = %s, want %s", got, want)
	}
	s3, _ := b.subscribe(ctx, t, req)
	if got, want := listens(), `{"received":2,"open":1,"cancelled":1,"refused":0}`; got != want {
		t.Errorf("the child's listens after a newcomer = %s, want %s", got, want)
	}
	b.callTool(ctx, t, "", "touch", `{"uri":"test://r"}`)
	if got := eventKey(nextEvent(t, s3, func(*mcpbridgev1.SubscribeResponse) bool { return true })); got != "resource_updated test://r" {
		t.Errorf("the newcomer got %s, want resource_updated test://r", got)
	}
}

// TestSubscribeSharedChildEnds ends the child's listens: every stream of
// each ends with OK, after the events that came before the end.
func TestSubscribeSharedChildEnds(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, listenerServer(t))
	ctx := testCtx(t)
	a1, _ := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
	a2, _ := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
	c, _ := b.subscribe(ctx, t, &mcpbridgev1.SubscribeRequest{ResourceSubscriptions: []string{"test://r"}})
	if got, want := toolText(t, b.callTool(ctx, t, "", "listens", "")), `{"received":2,"open":2,"cancelled":0,"refused":0}`; got != want {
		t.Fatalf("the child's listens = %s, want %s", got, want)
	}
	b.callTool(ctx, t, "", "toolschanged", "")
	b.callTool(ctx, t, "", "endlistens", "")
	for name, st := range map[string]grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse]{"a1": a1, "a2": a2, "c": c} {
		got, err := recvAll(st)
		if err != nil {
			t.Errorf("%s ended with %v, want OK", name, err)
		}
		if name != "c" && (len(got) == 0 || eventKey(got[0]) != "tools_list_changed") {
			t.Errorf("%s got %v before the end, want tools_list_changed first", name, got)
		}
	}
	b.callTool(ctx, t, "", "waitopen", `{"n":0}`)
	if got, want := toolText(t, b.callTool(ctx, t, "", "listens", "")), `{"received":2,"open":0,"cancelled":0,"refused":0}`; got != want {
		t.Errorf("the child's listens after it ended them = %s, want %s", got, want)
	}
}

// TestSubscribeSharedSlowStream floods a listen shared by a stream that
// reads and one that does not: the reader gets to the end of the flood
// while the other is stalled, and each accounts for every event, received
// or counted in `dropped`.
func TestSubscribeSharedSlowStream(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, streamsFixtureServer(t, "", "modern"))
	ctx := testCtx(t)
	req := &mcpbridgev1.SubscribeRequest{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///f"}}
	fast, _ := b.subscribe(ctx, t, req)
	slow, _ := b.subscribe(ctx, t, req)
	b.callTool(ctx, t, "", "waitlistens", `{"n":1}`) // one listen for both
	const n = 30000
	b.callTool(ctx, t, "", "flood", fmt.Sprintf(`{"n":%d,"uri":"file:///f"}`, n))
	drain := func(name string, st grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse]) (got, dropped int) {
		last := -1
		for {
			m, err := st.Recv()
			if err != nil {
				t.Fatalf("%s: Recv: %v", name, err)
			}
			dropped += int(m.GetDropped())
			if m.GetToolsListChanged() != nil { // the marker after the flood
				return got, dropped
			}
			seq := int(m.GetResourceUpdated().GetMeta().AsMap()["seq"].(float64))
			if want := last + 1 + int(m.GetDropped()); seq != want {
				t.Fatalf("%s: seq %d with dropped %d after %d, want %d", name, seq, m.GetDropped(), last, want)
			}
			last = seq
			got++
		}
	}
	// The slow stream is not read until the fast one has everything.
	for _, s := range []struct {
		name string
		st   grpc.ServerStreamingClient[mcpbridgev1.SubscribeResponse]
	}{{"fast", fast}, {"slow", slow}} {
		got, dropped := drain(s.name, s.st)
		t.Logf("%s: received %d, dropped %d", s.name, got, dropped)
		if got+dropped != n {
			t.Errorf("%s: received %d + dropped %d = %d, want %d", s.name, got, dropped, got+dropped, n)
		}
		if s.name == "slow" && dropped == 0 {
			t.Errorf("the slow stream dropped nothing: the flood did not fill its buffer")
		}
	}
}

// TestSubscribeSharedConcurrentOpen opens 20 streams at once while the
// child holds the listen before it opens: the child receives one listen,
// and every stream is acknowledged once it opens.
func TestSubscribeSharedConcurrentOpen(t *testing.T) {
	t.Parallel()
	b := startStreamsBridge(t, listenerServer(t))
	ctx := testCtx(t)
	b.callTool(ctx, t, "", "hold", "")
	const n = 20
	acks := make(chan error, n)
	for range n {
		go func() { // ends with its stream's first message or ctx
			st, err := b.client.Subscribe(ctx, &mcpbridgev1.SubscribeRequest{ToolsListChanged: true})
			if err == nil {
				var m *mcpbridgev1.SubscribeResponse
				if m, err = st.Recv(); err == nil && m.GetAcknowledged() == nil {
					err = fmt.Errorf("first message %v", m)
				}
			}
			acks <- err
		}()
	}
	b.callTool(ctx, t, "", "waitheld", `{"n":1}`)
	b.callTool(ctx, t, "", "release", "")
	for range n {
		if err := <-acks; err != nil {
			t.Errorf("Subscribe: %v", err)
		}
	}
	if got, want := toolText(t, b.callTool(ctx, t, "", "listens", "")), `{"received":1,"open":1,"cancelled":0,"refused":0}`; got != want {
		t.Errorf("the child's listens = %s, want %s", got, want)
	}
}

// TestListensOpen drives one child's shared listens directly, with the
// child holding each listen before it opens, so that every stream joins
// while it opens.
func TestListensOpen(t *testing.T) {
	t.Parallel()
	req := &mcpbridgev1.SubscribeRequest{ToolsListChanged: true, ResourceSubscriptions: []string{"test://"}}
	narrower := &mcpbridgev1.SubscribeRequest{ResourceSubscriptions: []string{"test://r"}}
	setup := func(t *testing.T) (h *fanout.Listens, tool func(name, args string) string, join func(req *mcpbridgev1.SubscribeRequest) (*fanout.Listener, *fanout.SharedListen)) {
		c := directClient(t, listenerServer(t))
		tool = func(name, args string) string {
			t.Helper()
			if args == "" {
				args = "{}"
			}
			return toolText(t, string(stdiotest.Call(t, c, "tools/call", `{"name":"`+name+`","arguments":`+args+`}`, nil)))
		}
		h = fanout.NewListens(c)
		join = func(req *mcpbridgev1.SubscribeRequest) (*fanout.Listener, *fanout.SharedListen) {
			l := fanout.NewListener(req)
			return l, h.Join(l, convert.ListenFilter(req), stdio.ListenOptions{Timeout: testWait, MaxBuffer: fanout.StreamBuffer})
		}
		tool("hold", "")
		return h, tool, join
	}
	ctx := testCtx(t)
	ready := func(t *testing.T, s *fanout.SharedListen) {
		t.Helper()
		select {
		case <-s.Ready:
		case <-ctx.Done():
			t.Fatal("the listen neither opened nor failed")
		}
	}

	t.Run("at once", func(t *testing.T) {
		h, tool, join := setup(t)
		const n = 50
		ls := make([]*fanout.Listener, n)
		ss := make([]*fanout.SharedListen, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { ls[i], ss[i] = join(req) })
		}
		wg.Wait()
		tool("waitheld", `{"n":1}`)
		tool("release", "")
		want := &mcpbridgev1.SubscriptionAcknowledged{ToolsListChanged: true, ResourceSubscriptions: []string{"test://"}}
		for i := range n {
			if ss[i] != ss[0] {
				t.Fatalf("stream %d joined another listen", i)
			}
			ready(t, ss[i])
			if ss[i].OpenErr != nil {
				t.Fatalf("stream %d: the listen failed: %v", i, ss[i].OpenErr)
			}
			if diff := cmp.Diff(want, ls[i].Filter.Ack(), protocmp.Transform()); diff != "" {
				t.Errorf("stream %d: acknowledged (-want +got):\n%s", i, diff)
			}
		}
		if got, want := tool("listens", ""), `{"received":1,"open":1,"cancelled":0,"refused":0}`; got != want {
			t.Errorf("the child's listens = %s, want %s", got, want)
		}
		for i := range n {
			wg.Go(func() { h.Leave(ss[i], ls[i]) })
		}
		wg.Wait()
		tool("waitopen", `{"n":0}`)
		if got, want := tool("listens", ""), `{"received":1,"open":0,"cancelled":1,"refused":0}`; got != want {
			t.Errorf("the child's listens after all left = %s, want %s", got, want)
		}
	})

	t.Run("failure", func(t *testing.T) {
		h, tool, join := setup(t)
		l1, s1 := join(req)
		l2, s2 := join(req)
		l3, s3 := join(narrower)
		if s2 != s1 || s3 != s1 {
			t.Fatal("the streams joined different listens")
		}
		tool("waitheld", `{"n":1}`)
		tool("release", `{"error":{"code":-32602,"message":"Bad filter"}}`)
		ready(t, s1)
		var e *jsonrpc.Error
		if !errors.As(s1.OpenErr, &e) || e.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("openErr = %v, want the child's -32602", s1.OpenErr)
		}
		// The narrower stream did not ask for what may have been refused:
		// it opens a listen of its own rather than fail.
		for _, c := range []struct {
			name string
			l    *fanout.Listener
			want bool
		}{{"an equal stream", l1, false}, {"an equal stream", l2, false}, {"a narrower stream", l3, true}} {
			if got := s1.Retryable(c.l); got != c.want {
				t.Errorf("retryable(%s) = %v, want %v", c.name, got, c.want)
			}
		}
		for _, l := range []*fanout.Listener{l1, l2, l3} {
			h.Leave(s1, l)
		}
		l4, s4 := join(req)
		if s4 == s1 {
			t.Error("a stream joined a failed listen")
		}
		ready(t, s4)
		h.Leave(s4, l4)
		tool("waitopen", `{"n":0}`)
		if got, want := tool("listens", ""), `{"received":2,"open":0,"cancelled":1,"refused":0}`; got != want {
			t.Errorf("the child's listens = %s, want %s", got, want)
		}
	})

	t.Run("a waiting stream leaves", func(t *testing.T) {
		h, tool, join := setup(t)
		l1, s := join(req)
		l2, _ := join(req)
		tool("waitheld", `{"n":1}`)
		h.Leave(s, l1) // as a stream whose context ended while it waited
		tool("release", "")
		ready(t, s)
		if s.OpenErr != nil {
			t.Fatalf("the listen failed: %v", s.OpenErr)
		}
		if got, want := tool("listens", ""), `{"received":1,"open":1,"cancelled":0,"refused":0}`; got != want {
			t.Errorf("the child's listens = %s, want %s", got, want)
		}
		h.Leave(s, l2)
	})

	t.Run("every waiting stream leaves", func(t *testing.T) {
		h, tool, join := setup(t)
		l, s := join(req)
		tool("waitheld", `{"n":1}`)
		h.Leave(s, l) // stops the opening: the child is told
		tool("waitheld", `{"n":0}`)
		if got, want := tool("listens", ""), `{"received":1,"open":0,"cancelled":1,"refused":0}`; got != want {
			t.Errorf("the child's listens = %s, want %s", got, want)
		}
	})
}
