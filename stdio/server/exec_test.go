package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/seam"
)

// Server: concurrency and capacity (docs/stdio.md, scenarios 53-61).

func TestServeOutOfOrder(t *testing.T) { // scenario 53
	synctest.Test(t, func(t *testing.T) {
		h := startServe(t, newFakeRuntime(), Config{})
		h.sendLine(reqLine(1, "sleep", `{"ms":200}`))
		h.sendLine(reqLine(2, "echo", `{"fast":true}`))
		if got := h.next(); got != `{"jsonrpc":"2.0","id":2,"result":{"fast":true}}` {
			t.Errorf("first response %s, want the fast one", got)
		}
		if got := h.next(); got != `{"jsonrpc":"2.0","id":1,"result":{"slept":200}}` {
			t.Errorf("second response %s, want the slow one", got)
		}
		h.eof()
		if err := h.wait(); err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
}

func TestServeCapacityRefusal(t *testing.T) { // scenario 54
	rt := newFakeRuntime()
	h := startServe(t, rt, Config{MaxConcurrency: 1, MaxQueue: -1})
	h.sendLine(reqLine(1, "block", `{"gate":"a"}`))
	rt.waitEvent(t, "start")
	h.sendLine(reqLine(2, "echo", `{}`))
	if got, want := h.next(), errorLine("2", -32603, "Execution capacity exhausted", `{"retryable":true,"limit":1}`); got != want {
		t.Errorf("second request got %s, want %s", got, want)
	}
	rt.open("a")
	if got := h.next(); got != `{"jsonrpc":"2.0","id":1,"result":{"released":true}}` {
		t.Errorf("first request got %s", got)
	}
	h.eof()
	if err := h.wait(); err != nil {
		t.Errorf("Serve = %v", err)
	}
}

func TestServeCapacityLimitCountsQueue(t *testing.T) { // scenario 54, with a queue
	rt := newFakeRuntime()
	h := startServe(t, rt, Config{MaxConcurrency: 1, MaxQueue: 2})
	h.sendLine(reqLine(1, "block", `{"gate":"a"}`))
	rt.waitEvent(t, "start")
	h.sendLine(reqLine(2, "echo", `{}`))
	h.sendLine(reqLine(3, "echo", `{}`))
	h.sendLine(reqLine(4, "echo", `{}`))
	if got, want := h.next(), errorLine("4", -32603, "Execution capacity exhausted", `{"retryable":true,"limit":3}`); got != want {
		t.Errorf("fourth request got %s, want %s", got, want)
	}
	rt.open("a")
	var ids []string
	for range 3 {
		ids = append(ids, string(h.nextMsg().ID))
	}
	if want := []string{"1", "2", "3"}; !cmp.Equal(want, ids) {
		t.Errorf("responses in order %q, want %q (FIFO)", ids, want)
	}
}

func TestServeRequestTimeout(t *testing.T) { // scenario 55
	synctest.Test(t, func(t *testing.T) {
		rt := newFakeRuntime()
		h := startServe(t, rt, Config{RequestTimeout: 20 * time.Millisecond})
		start := time.Now()
		h.sendLine(reqLine(1, "nap", `{"ms":200}`)) // ignores its ctx
		if got := h.next(); got != errorLine("1", -32603, "Request execution timed out", "") {
			t.Errorf("got %s, want the timeout error", got)
		}
		if d := time.Since(start); d != 20*time.Millisecond {
			t.Errorf("timeout written after %v, want exactly 20ms", d)
		}
		h.eof()
		if rest := h.rest(); h.err != nil || len(rest) != 0 {
			t.Errorf("Serve = %v, then %q; want nil and no late result", h.err, rest)
		}
		if ev := rt.waitEvent(t, "end"); !errors.Is(ev.err, context.DeadlineExceeded) {
			t.Errorf("handler ctx cause %v, want a deadline", ev.err)
		}
	})
}

func TestServeRequestTimeoutHonoured(t *testing.T) { // scenario 55, with a handler that returns at once
	synctest.Test(t, func(t *testing.T) {
		h := startServe(t, newFakeRuntime(), Config{RequestTimeout: 20 * time.Millisecond})
		h.sendLine(reqLine(1, "sleep", `{"ms":200}`)) // returns ctx.Err() at the deadline
		if got := h.next(); got != errorLine("1", -32603, "Request execution timed out", "") {
			t.Errorf("got %s, want the timeout error, not the handler's ctx error", got)
		}
		h.eof()
		if rest := h.rest(); h.err != nil || len(rest) != 0 {
			t.Errorf("Serve = %v, then %q", h.err, rest)
		}
	})
}

func TestServeSlotHeldUntilReturn(t *testing.T) { // scenario 56
	synctest.Test(t, func(t *testing.T) {
		exec, err := newExecutor(executorConfig{MaxConcurrency: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer exec.Close()
		rt := newFakeRuntime()
		h := startServe(t, rt, Config{executor: exec, RequestTimeout: 20 * time.Millisecond})
		h.sendLine(reqLine(1, "ignore", `{"gate":"a"}`))
		if got := h.next(); got != errorLine("1", -32603, "Request execution timed out", "") {
			t.Fatalf("got %s, want the timeout error", got)
		}
		h.sendLine(reqLine(1, "echo", `{"reused":true}`)) // the id is free at once...
		synctest.Wait()
		if got, want := exec.Stats(), (executorStats{Running: 1, Queued: 1}); got != want {
			t.Errorf("Stats = %+v, want %+v: the slot stays held", got, want) // ...the slot is not
		}
		h.quiet()
		rt.open("a")
		if got := h.next(); got != `{"jsonrpc":"2.0","id":1,"result":{"reused":true}}` {
			t.Errorf("got %s, want the queued request's response (never the late result)", got)
		}
		if n := rt.maxRunning.Load(); n != 1 {
			t.Errorf("%d handlers ran at once, want at most MaxConcurrency 1", n)
		}
		h.eof()
		if rest := h.rest(); h.err != nil || len(rest) != 0 {
			t.Errorf("Serve = %v, then %q", h.err, rest)
		}
	})
}

func TestServeInjectedExecutor(t *testing.T) { // scenario 57
	t.Run("usable after Serve", func(t *testing.T) {
		exec, _ := newExecutor(executorConfig{})
		defer exec.Close()
		lines, err := serveString(t, newFakeRuntime(), Config{executor: exec}, reqLine(1, "echo", `{}`)+"\n")
		if err != nil || len(lines) != 1 {
			t.Fatalf("Serve = %v, %q", err, lines)
		}
		ran := make(chan struct{})
		if _, err := exec.Submit(context.Background(), job{Run: func(context.Context) { close(ran) }}); err != nil {
			t.Fatalf("Submit after Serve = %v", err)
		}
		<-ran
	})
	t.Run("closed mid-request after EOF", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			exec, _ := newExecutor(executorConfig{})
			rt := newFakeRuntime()
			h := startServe(t, rt, Config{executor: exec})
			h.sendLine(reqLine(1, "block", `{"gate":"a"}`))
			rt.waitEvent(t, "start")
			h.eof()
			synctest.Wait() // Serve has seen EOF and is draining
			exec.Close()
			if got := h.next(); got != errorLine("1", -32603, "Request executor closed", "") {
				t.Errorf("pending request got %s", got)
			}
			if err := h.wait(); !errors.Is(err, errExecutorClosed) {
				t.Errorf("Serve = %v, want ErrExecutorClosed", err)
			}
			if ev := rt.waitEvent(t, "end"); !errors.Is(ev.err, errExecutorClosed) {
				t.Errorf("handler ctx cause %v", ev.err)
			}
		})
	})
	t.Run("closed while idle", func(t *testing.T) {
		exec, _ := newExecutor(executorConfig{})
		h := startServe(t, newFakeRuntime(), Config{executor: exec})
		h.sendLine(reqLine(1, "echo", `{}`))
		h.next()
		exec.Close()
		if err := h.wait(); !errors.Is(err, errExecutorClosed) {
			t.Errorf("Serve = %v, want ErrExecutorClosed without waiting for another request", err)
		}
	})
	t.Run("closed before Serve", func(t *testing.T) {
		exec, _ := newExecutor(executorConfig{})
		exec.Close()
		if err := Serve(context.Background(), newFakeRuntime(), unreadInput{t}, io.Discard, Config{executor: exec}); !errors.Is(err, errExecutorClosed) {
			t.Errorf("Serve = %v, want ErrExecutorClosed before reading anything", err)
		}
	})
	t.Run("submit fails", func(t *testing.T) {
		exec, _ := newExecutor(executorConfig{})
		defer exec.Close()
		exec.submitHook = func() error { return errors.New("executor unreachable") }
		lines, err := serveString(t, newFakeRuntime(), Config{executor: exec}, reqLine(1, "echo", `{}`)+"\n")
		if err != nil || !cmp.Equal(lines, []string{errorLine("1", -32603, "Request executor unavailable", "")}) {
			t.Errorf("Serve = %v, %q; want -32603 and a clean exit", err, lines)
		}
	})
}

func TestServeHandlerPanic(t *testing.T) { // scenario 58
	h := startServe(t, newFakeRuntime(), Config{})
	h.sendLine(reqLine(1, "panic", ""))
	got := h.next()
	if got != errorLine("1", -32603, "Request worker failed", "") {
		t.Errorf("panic got %s", got)
	}
	h.sendLine(reqLine(2, "echo", `{"after":true}`))
	if got := h.next(); got != `{"jsonrpc":"2.0","id":2,"result":{"after":true}}` {
		t.Errorf("next request got %s", got)
	}
	h.eof()
	h.wait()
	logs := h.logs.String()
	if !strings.Contains(logs, "boom: secret detail") || !strings.Contains(logs, "goroutine ") || !strings.Contains(logs, "(*fakeRuntime).Handle") {
		t.Errorf("log lacks the panic and its stack:\n%s", logs)
	}
}

func TestServeManyInFlight(t *testing.T) { // scenario 59
	h := startServe(t, newFakeRuntime(), Config{MaxConcurrency: 100})
	payload := strings.Repeat("p", 3000) // frames longer than a pipe's atomic write
	for i := range 100 {
		h.sendLine(reqLine(i, "sleep", fmt.Sprintf(`{"ms":%d,"text":%q}`, rand.IntN(30), payload)))
	}
	seen := map[string]int{}
	for range 100 {
		w := h.nextMsg()
		seen[string(w.ID)]++
		var r struct{ Slept int }
		if err := json.Unmarshal(w.Result, &r); err != nil {
			t.Errorf("result %s: %v", w.Result, err)
		}
	}
	for i := range 100 {
		if n := seen[fmt.Sprint(i)]; n != 1 {
			t.Errorf("id %d answered %d times", i, n)
		}
	}
	h.eof()
	if rest := h.rest(); h.err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, then %q", h.err, rest)
	}
}

func TestServeDuplicateID(t *testing.T) { // scenario 60
	rt := newFakeRuntime()
	h := startServe(t, rt, Config{})
	h.sendLine(reqLine(7, "block", `{"gate":"a"}`))
	rt.waitEvent(t, "start")
	h.sendLine(reqLine(7, "echo", `{}`))
	if got := h.next(); got != errorLine("7", -32600, "Duplicate in-flight request id", "") {
		t.Errorf("duplicate got %s", got)
	}
	h.sendLine(reqLine("7", "echo", `{"string":true}`)) // "7" is another id
	if got := h.next(); got != `{"jsonrpc":"2.0","id":"7","result":{"string":true}}` {
		t.Errorf(`id "7" got %s`, got)
	}
	rt.open("a")
	if got := h.next(); got != `{"jsonrpc":"2.0","id":7,"result":{"released":true}}` {
		t.Errorf("original got %s", got)
	}
	h.eof()
	if rest := h.rest(); h.err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, then %q: the original must be answered once", h.err, rest)
	}
}

func TestServeContextCancelled(t *testing.T) { // scenario 61
	rt := newFakeRuntime()
	src := newFakeSource(`{"toolsListChanged":true}`)
	rt.listen = func(context.Context, *seam.Request) (seam.Source, error) { return src, nil }
	h := startServe(t, rt, Config{})
	h.sendLine(reqLine(1, "block", `{"gate":"never"}`))
	rt.waitEvent(t, "start")
	h.sendLine(reqLine(2, "subscriptions/listen", `{"notifications":{"toolsListChanged":true}}`))
	if w := h.nextMsg(); w.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("got %s, want the acknowledgement", w.line)
	}
	h.cancel()
	if err := h.wait(); err != context.Canceled {
		t.Errorf("Serve = %v, want context.Canceled", err)
	}
	if ev := rt.waitEvent(t, "end"); !errors.Is(ev.err, context.Canceled) {
		t.Errorf("handler ctx cause %v, want context.Canceled", ev.err)
	}
	if reason := src.waitClosed(t); !errors.Is(reason, context.Canceled) {
		t.Errorf("source closed with %v, want context.Canceled", reason)
	}
	if rest := h.rest(); len(rest) != 0 {
		t.Errorf("written after cancellation: %q", rest)
	}
}

// Server: cancellation (scenarios 62-63).

func TestServeCancellation(t *testing.T) { // scenario 62
	rt := newFakeRuntime()
	synced := make(chan struct{}, 10)
	rt.notify = func(context.Context, string, json.RawMessage) { synced <- struct{}{} }
	h := startServe(t, rt, Config{})
	// barrier waits until Serve has handled every earlier line: it handles
	// notifications inline, in input order.
	barrier := func() {
		h.sendLine(notifLine("notifications/sync", `{}`))
		<-synced
	}

	h.sendLine(reqLine(1, "block", `{"gate":"a"}`))
	rt.waitEvent(t, "start")
	h.sendLine(notifLine("notifications/cancelled", `{"requestId":1,"reason":5}`))
	h.sendLine(notifLine("notifications/cancelled", `{"requestId":1,"_meta":"x"}`))
	h.sendLine(notifLine("notifications/cancelled", `{"requestId":"1"}`))
	barrier()
	rt.open("a")
	if got := h.next(); got != `{"jsonrpc":"2.0","id":1,"result":{"released":true}}` {
		t.Errorf("after ignored cancellations got %s", got)
	}
	rt.waitEvent(t, "end")

	// A valid cancellation frees the id at once, even from a handler that
	// ignores its ctx, and nothing is ever written for that execution.
	h.sendLine(reqLine(2, "ignore", `{"gate":"b"}`))
	rt.waitEvent(t, "start")
	h.sendLine(reqLine(3, "block", `{"gate":"c"}`))
	rt.waitEvent(t, "start")
	h.sendLine(cancelLine(2, "user gave up"))
	h.sendLine(reqLine(2, "echo", `{"again":true}`))
	if got := h.next(); got != `{"jsonrpc":"2.0","id":2,"result":{"again":true}}` {
		t.Errorf("reused id got %s", got)
	}
	rt.open("b")
	ev := rt.waitFor(t, "end", func(ev handlerEvent) bool { return ev.err != nil })
	if ev.id != "2" || !errors.Is(ev.err, ErrCancelled) || !strings.HasSuffix(ev.err.Error(), "user gave up") {
		t.Errorf("handler %s ended with %v, want 2 cancelled with the reason", ev.id, ev.err)
	}
	rt.open("c")
	if got := h.next(); got != `{"jsonrpc":"2.0","id":3,"result":{"released":true}}` {
		t.Errorf("other request got %s", got)
	}
	h.eof()
	if rest := h.rest(); h.err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, then %q: nothing for the cancelled request", h.err, rest)
	}
}

func TestServeCancellationIgnoredOrQueued(t *testing.T) { // scenario 63
	rt := newFakeRuntime()
	synced := make(chan struct{}, 10)
	rt.notify = func(context.Context, string, json.RawMessage) { synced <- struct{}{} }
	h := startServe(t, rt, Config{MaxConcurrency: 1})
	h.sendLine(cancelLine(42, ""))
	h.sendLine(notifLine("notifications/cancelled", `{"requestId":1.5}`))
	h.sendLine(notifLine("notifications/cancelled", `{"requestId":null}`))
	h.sendLine(notifLine("notifications/cancelled", `"junk"`))
	h.sendLine(reqLine(1, "block", `{"gate":"a"}`))
	rt.waitEvent(t, "start")
	h.sendLine(reqLine(2, "echo", `{"queued":true}`))
	h.sendLine(cancelLine(2, ""))
	h.sendLine(notifLine("notifications/sync", `{}`))
	<-synced
	h.quiet()
	rt.open("a")
	if got := h.next(); got != `{"jsonrpc":"2.0","id":1,"result":{"released":true}}` {
		t.Errorf("got %s", got)
	}
	h.eof()
	if rest := h.rest(); h.err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, then %q", h.err, rest)
	}
	for _, ev := range rt.drainEvents() {
		if ev.id == "2" {
			t.Errorf("the cancelled queued request started: %+v", ev)
		}
	}
}
