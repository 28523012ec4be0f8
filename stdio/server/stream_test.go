package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpbridge/mcpbridge/internal/protocol"
	"github.com/mcpbridge/mcpbridge/internal/seam"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Server: subscriptions (docs/stdio.md, scenarios 64-67).

func TestServeListen(t *testing.T) { // scenario 64
	synctest.Test(t, func(t *testing.T) {
		rt := newFakeRuntime()
		src := newFakeSource(`{ "toolsListChanged" : true }`)
		var listenReq *seam.Request
		rt.listen = func(_ context.Context, req *seam.Request) (seam.Source, error) {
			listenReq = req
			return src, nil
		}
		h := startServe(t, rt, Config{})
		src.onPull = func(n int32) {
			if n == 1 && h.out.writes.Load() != 1 {
				t.Errorf("first pull after %d writes, want after the acknowledgement", h.out.writes.Load())
			}
		}
		release := make(chan struct{})
		h.out.setHook(func(frame []byte) error {
			if bytes.Contains(frame, []byte("tools/list_changed")) {
				<-release
			}
			return nil
		})
		h.sendLine(reqLine("sub-1", "subscriptions/listen", `{"notifications":{"toolsListChanged":true,"promptsListChanged":true},"_meta":{"progressToken":"p"}}`))
		ack := `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}}`
		if got := h.next(); got != ack {
			t.Errorf("acknowledgement %s, want %s", got, ack)
		}
		if listenReq.Progress != nil {
			t.Error("subscriptions/listen got a progress reporter")
		}

		src.events <- fakeEvent{method: "notifications/tools/list_changed", params: json.RawMessage(`{"_meta":{"trace":"t1"},"x":1}`)}
		synctest.Wait() // the event's write is blocked
		if n := src.pulls.Load(); n != 1 {
			t.Errorf("source pulled %d times while its event was being written, want 1", n)
		}
		close(release)
		want := `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"trace":"t1","io.modelcontextprotocol/subscriptionId":"sub-1"},"x":1}}`
		if got := h.next(); got != want {
			t.Errorf("event %s, want %s", got, want)
		}
		src.events <- fakeEvent{method: "notifications/resources/updated", params: json.RawMessage(`{"uri":"file:///a"}`)}
		want = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a","_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}}`
		if got := h.next(); got != want {
			t.Errorf("event %s, want %s", got, want)
		}

		h.sendLine(cancelLine("sub-1", "client done"))
		if reason := src.waitClosed(t); !errors.Is(reason, ErrCancelled) || !strings.HasSuffix(reason.Error(), "client done") {
			t.Errorf("source closed with %v, want the client's reason", reason)
		}
		h.sendLine(reqLine("sub-1", "echo", `{"reused":true}`))
		if got := h.next(); got != `{"jsonrpc":"2.0","id":"sub-1","result":{"reused":true}}` {
			t.Errorf("got %s, want the reused id answered and no final reply to the listen", got)
		}
		h.eof()
		if rest := h.rest(); h.err != nil || len(rest) != 0 {
			t.Errorf("Serve = %v, then %q", h.err, rest)
		}
		if n := src.closes.Load(); n != 1 {
			t.Errorf("source closed %d times", n)
		}
	})
}

func TestServeListenDuplicateID(t *testing.T) { // scenario 60, for an open stream
	rt := newFakeRuntime()
	src := newFakeSource(`{}`)
	rt.listen = func(context.Context, *seam.Request) (seam.Source, error) { return src, nil }
	h := startServe(t, rt, Config{})
	h.sendLine(reqLine(1, "subscriptions/listen", `{}`))
	h.next()
	h.sendLine(reqLine(1, "echo", `{}`))
	if got := h.next(); got != errorLine("1", -32600, "Duplicate in-flight request id", "") {
		t.Errorf("got %s", got)
	}
}

func TestServeSubscriptionCapacity(t *testing.T) { // scenario 65
	rt := newFakeRuntime()
	sources := make(chan *fakeSource, 64)
	rt.listen = func(context.Context, *seam.Request) (seam.Source, error) {
		s := newFakeSource(`{}`)
		sources <- s
		return s, nil
	}
	h := startServe(t, rt, Config{MaxSubscriptions: 32})
	for i := 1; i <= 32; i++ {
		h.sendLine(reqLine(i, "subscriptions/listen", `{"notifications":{}}`))
	}
	for range 32 {
		if w := h.nextMsg(); w.Method != "notifications/subscriptions/acknowledged" {
			t.Fatalf("got %s, want an acknowledgement", w.line)
		}
	}
	var open []*fakeSource
	for range 32 {
		open = append(open, <-sources)
	}
	h.sendLine(reqLine(33, "subscriptions/listen", `{"notifications":{}}`))
	if got, want := h.next(), errorLine("33", -32603, "Subscription capacity exhausted", `{"retryable":true,"limit":32}`); got != want {
		t.Errorf("33rd listen got %s, want %s", got, want)
	}
	if reason := (<-sources).waitClosed(t); !errors.Is(reason, seam.ErrCapacity) {
		t.Errorf("refused source closed with %v, want ErrCapacity", reason)
	}
	h.eof()
	if rest := h.rest(); h.err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, then %q", h.err, rest)
	}
	for i, s := range open {
		if reason := s.waitClosed(t); reason != io.EOF {
			t.Errorf("stream %d closed with %v at EOF", i+1, reason)
		}
	}
}

func TestServeSourceEnds(t *testing.T) { // scenario 66
	rt := newFakeRuntime()
	sources := map[string]*fakeSource{"5": newFakeSource(`{}`), "6": newFakeSource(`{}`), "7": newFakeSource(`{}`)}
	rt.listen = func(_ context.Context, req *seam.Request) (seam.Source, error) {
		if string(req.ID) == "8" {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid filter")
		}
		return sources[string(req.ID)], nil
	}
	h := startServe(t, rt, Config{})
	for _, id := range []int{5, 6, 7} {
		h.sendLine(reqLine(id, "subscriptions/listen", `{}`))
		h.next()
	}

	close(sources["5"].events)
	want := `{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":5,"io.modelcontextprotocol/serverInfo":{"name":"test-server","version":"1.0.0"}}}}`
	if got := h.next(); got != want {
		t.Errorf("normal end %s, want %s", got, want)
	}
	if reason := sources["5"].waitClosed(t); reason != io.EOF {
		t.Errorf("ended source closed with %v", reason)
	}

	failure := errors.New("source broke")
	sources["6"].events <- fakeEvent{err: failure}
	if got := h.next(); got != errorLine("6", -32603, "Subscription source failed", "") {
		t.Errorf("failure end %s", got)
	}
	if reason := sources["6"].waitClosed(t); reason != failure {
		t.Errorf("failed source closed with %v", reason)
	}

	sources["7"].events <- fakeEvent{method: "notifications/tools/list_changed", params: json.RawMessage(`[1]`)}
	if got := h.next(); got != errorLine("7", -32603, "Subscription source failed", "") {
		t.Errorf("non-object params end %s", got)
	}

	h.sendLine(reqLine(8, "subscriptions/listen", `{"notifications":{"toolsListChanged":"yes"}}`))
	if got := h.next(); got != errorLine("8", -32602, "Invalid filter", "") {
		t.Errorf("refused listen %s", got)
	}
	h.sendLine(reqLine(5, "echo", `{}`)) // the ended stream's id is free
	if got := h.next(); got != `{"jsonrpc":"2.0","id":5,"result":{}}` {
		t.Errorf("got %s", got)
	}
	h.eof()
	if rest := h.rest(); h.err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, then %q", h.err, rest)
	}
}

func TestServeEOFWithStreams(t *testing.T) { // scenario 67
	synctest.Test(t, func(t *testing.T) {
		rt := newFakeRuntime()
		open, late := newFakeSource(`{}`), newFakeSource(`{}`)
		rt.listen = func(_ context.Context, req *seam.Request) (seam.Source, error) {
			if string(req.ID) == `"late"` {
				<-rt.gate("late")
				return late, nil
			}
			return open, nil
		}
		h := startServe(t, rt, Config{})
		h.sendLine(reqLine(1, "subscriptions/listen", `{}`))
		h.next()
		h.sendLine(reqLine(2, "block", `{"gate":"a"}`))
		h.sendLine(reqLine("late", "subscriptions/listen", `{}`))
		synctest.Wait()
		h.eof()
		if reason := open.waitClosed(t); reason != io.EOF {
			t.Errorf("open stream closed with %v at EOF", reason)
		}
		rt.open("a")
		if got := h.next(); got != `{"jsonrpc":"2.0","id":2,"result":{"released":true}}` {
			t.Errorf("running request got %s", got)
		}
		rt.open("late")
		if reason := late.waitClosed(t); reason != io.EOF {
			t.Errorf("stream opening after EOF closed with %v", reason)
		}
		if rest := h.rest(); h.err != nil || len(rest) != 0 {
			t.Errorf("Serve = %v, then %q; want nil and no terminal message or acknowledgement", h.err, rest)
		}
		if n := late.pulls.Load(); n != 0 {
			t.Errorf("the late source was pulled %d times", n)
		}
	})
}

func TestServeListenCancelledWhileOpening(t *testing.T) { // scenarios 62 and 64: cancel before the source is open
	rt := newFakeRuntime()
	src := newFakeSource(`{}`)
	opening := make(chan struct{})
	rt.listen = func(ctx context.Context, _ *seam.Request) (seam.Source, error) {
		close(opening)
		<-ctx.Done() // the Source outlives the ctx; it is returned anyway
		return src, nil
	}
	h := startServe(t, rt, Config{})
	h.sendLine(reqLine(1, "subscriptions/listen", `{}`))
	<-opening
	h.sendLine(cancelLine(1, "never mind"))
	if reason := src.waitClosed(t); !errors.Is(reason, ErrCancelled) {
		t.Errorf("source closed with %v", reason)
	}
	h.eof()
	if rest := h.rest(); h.err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, then %q", h.err, rest)
	}
}

// Several streams, each in order (docs/stdio.md, "Listen streams").
func TestServeManyStreamsInterleave(t *testing.T) {
	rt := newFakeRuntime()
	const streams, events = 8, 20
	srcs := make(map[string]*fakeSource)
	for i := range streams {
		srcs[fmt.Sprint(i)] = newFakeSource(`{}`)
	}
	rt.listen = func(_ context.Context, req *seam.Request) (seam.Source, error) { return srcs[string(req.ID)], nil }
	h := startServe(t, rt, Config{})
	for i := range streams {
		h.sendLine(reqLine(i, "subscriptions/listen", `{}`))
		h.next()
	}
	for _, s := range srcs {
		go func() {
			for n := range events {
				s.events <- fakeEvent{method: "notifications/resources/updated", params: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))}
			}
			close(s.events)
		}()
	}
	next := map[string]int{}
	for range streams * (events + 1) {
		w := h.nextMsg()
		if w.Method == "" { // terminal
			if next[string(w.ID)] != events {
				t.Errorf("stream %s ended after %d events", w.ID, next[string(w.ID)])
			}
			continue
		}
		var p struct {
			N    int
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		json.Unmarshal(w.Params, &p)
		id := string(p.Meta[protocol.MetaSubscriptionID])
		if p.N != next[id] {
			t.Errorf("stream %s: event %d, want %d", id, p.N, next[id])
		}
		next[id]++
	}
	h.eof()
	if err := h.wait(); err != nil {
		t.Errorf("Serve = %v", err)
	}
}
