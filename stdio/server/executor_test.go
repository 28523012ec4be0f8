package server

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/seam"
)

// jobRecorder collects what jobs did, in order.
type jobRecorder struct {
	mu     sync.Mutex
	events []string
}

func (r *jobRecorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, s)
}

func (r *jobRecorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

func newTestExecutor(tb testing.TB, cfg executorConfig) *executor {
	tb.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quietLogger
	}
	e, err := newExecutor(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close(); <-e.Done() })
	return e
}

// testJob returns a job that records its start, waits for gate (or its ctx
// when honour is set), and records how it ended; aborts are recorded too.
func testJob(r *jobRecorder, name string, gate <-chan struct{}, honour bool) job {
	return job{
		Run: func(ctx context.Context) {
			r.add(name + " start")
			if honour {
				select {
				case <-gate:
				case <-ctx.Done():
					r.add(name + " ctx " + context.Cause(ctx).Error())
					return
				}
			} else {
				<-gate
			}
			r.add(name + " end")
		},
		OnAbort: func(cause error) { r.add(name + " abort " + cause.Error()) },
	}
}

func TestExecutorFIFOAndCapacity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newTestExecutor(t, executorConfig{MaxConcurrency: 1, MaxQueue: 2})
		if e.Limit() != 3 {
			t.Errorf("Limit = %d, want 3", e.Limit())
		}
		var r jobRecorder
		gate := make(chan struct{})
		ctx := context.Background()
		for _, name := range []string{"a", "b", "c"} {
			if _, err := e.Submit(ctx, testJob(&r, name, gate, false)); err != nil {
				t.Fatalf("Submit(%s) = %v", name, err)
			}
		}
		if _, err := e.Submit(ctx, testJob(&r, "d", gate, false)); !errors.Is(err, seam.ErrCapacity) {
			t.Errorf("Submit over capacity = %v, want ErrCapacity", err)
		}
		synctest.Wait()
		if got, want := e.Stats(), (executorStats{Running: 1, Queued: 2}); got != want {
			t.Errorf("Stats = %+v, want %+v", got, want)
		}
		close(gate)
		synctest.Wait()
		want := []string{"a start", "a end", "b start", "b end", "c start", "c end"}
		if diff := cmp.Diff(want, r.get()); diff != "" {
			t.Errorf("order (-want +got):\n%s", diff)
		}
		if got := e.Stats(); got != (executorStats{}) {
			t.Errorf("Stats = %+v after all jobs", got)
		}
	})
}

func TestExecutorNoQueue(t *testing.T) {
	e := newTestExecutor(t, executorConfig{MaxConcurrency: 2, MaxQueue: -1})
	if e.Limit() != 2 {
		t.Errorf("Limit = %d, want 2", e.Limit())
	}
	gate := make(chan struct{})
	defer close(gate)
	var r jobRecorder
	for range 2 {
		if _, err := e.Submit(context.Background(), testJob(&r, "x", gate, false)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Submit(context.Background(), testJob(&r, "y", gate, false)); !errors.Is(err, seam.ErrCapacity) {
		t.Errorf("third Submit = %v, want ErrCapacity", err)
	}
}

func TestExecutorDefaultsAndConfig(t *testing.T) {
	e := newTestExecutor(t, executorConfig{})
	if e.maxConcurrency != 32 || e.maxQueue != 256 || e.timeout != 30*time.Second || e.Limit() != 288 {
		t.Errorf("defaults: %d running, %d queued, %v, limit %d", e.maxConcurrency, e.maxQueue, e.timeout, e.Limit())
	}
	if _, err := newExecutor(executorConfig{MaxConcurrency: -1}); err == nil {
		t.Error("newExecutor(MaxConcurrency -1) = nil error")
	}
	if _, err := e.Submit(context.Background(), job{}); err == nil {
		t.Error("Submit(Job without Run) = nil error")
	}
}

func TestExecutorDeadlineQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newTestExecutor(t, executorConfig{MaxConcurrency: 1, RequestTimeout: time.Second})
		var r jobRecorder
		gate := make(chan struct{})
		e.Submit(context.Background(), testJob(&r, "a", gate, false))
		b := testJob(&r, "b", gate, true)
		b.Timeout = 10 * time.Millisecond // counted from admission, queue time included
		start := time.Now()
		var abortedAt time.Duration
		onAbort := b.OnAbort
		b.OnAbort = func(cause error) { abortedAt = time.Since(start); onAbort(cause) }
		e.Submit(context.Background(), b)
		time.Sleep(20 * time.Millisecond)
		synctest.Wait()
		if abortedAt != 10*time.Millisecond {
			t.Errorf("queued job aborted after %v, want 10ms", abortedAt)
		}
		if got := e.Stats(); got != (executorStats{Running: 1}) {
			t.Errorf("Stats = %+v, want the expired job out of the queue", got)
		}
		close(gate)
		synctest.Wait()
		want := []string{"a start", "b abort " + context.DeadlineExceeded.Error(), "a end"}
		if diff := cmp.Diff(want, r.get()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}

func TestExecutorDeadlineRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newTestExecutor(t, executorConfig{MaxConcurrency: 1, RequestTimeout: 10 * time.Millisecond})
		var r jobRecorder
		gate := make(chan struct{})
		e.Submit(context.Background(), testJob(&r, "stubborn", gate, false))
		time.Sleep(time.Second)
		synctest.Wait()
		if got := e.Stats(); got != (executorStats{Running: 1}) {
			t.Errorf("Stats = %+v: the slot stays held until Run returns", got)
		}
		close(gate)
		synctest.Wait()
		want := []string{"stubborn start", "stubborn abort " + context.DeadlineExceeded.Error(), "stubborn end"}
		if diff := cmp.Diff(want, r.get()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}

		// A job that honours its ctx returns at the deadline; OnAbort is
		// still called exactly once.
		var aborts atomic.Int32
		done := make(chan struct{})
		e.Submit(context.Background(), job{
			Run:     func(ctx context.Context) { <-ctx.Done(); close(done) },
			OnAbort: func(error) { aborts.Add(1) },
		})
		<-done
		synctest.Wait()
		if n := aborts.Load(); n != 1 {
			t.Errorf("OnAbort called %d times, want once", n)
		}

		// No deadline at all.
		never := make(chan struct{})
		e.Submit(context.Background(), job{Timeout: -1, Run: func(ctx context.Context) {
			select {
			case <-ctx.Done():
				t.Error("a job without deadline was cancelled")
			case <-never:
			}
		}, OnAbort: func(error) { t.Error("OnAbort without deadline") }})
		time.Sleep(time.Hour)
		synctest.Wait()
		close(never)
		synctest.Wait()
	})
}

func TestExecutorCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newTestExecutor(t, executorConfig{MaxConcurrency: 1})
		var r jobRecorder
		gate := make(chan struct{})
		cancelA, _ := e.Submit(context.Background(), testJob(&r, "a", gate, true))
		cancelB, _ := e.Submit(context.Background(), testJob(&r, "b", gate, true))
		synctest.Wait()
		cancelB(errors.New("b cancelled"))
		if got := e.Stats(); got != (executorStats{Running: 1}) {
			t.Errorf("Stats = %+v right after cancelling the queued job", got)
		}
		cancelA(nil)
		synctest.Wait()
		cancelA(nil) // idempotent, also once finished
		want := []string{"a start", "a ctx context canceled"}
		if diff := cmp.Diff(want, r.get()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		close(gate)
	})
}

func TestExecutorClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, _ := newExecutor(executorConfig{MaxConcurrency: 1, Logger: quietLogger})
		var r jobRecorder
		gate := make(chan struct{})
		e.Submit(context.Background(), testJob(&r, "running", gate, false))
		e.Submit(context.Background(), testJob(&r, "queued", gate, false))
		synctest.Wait()
		e.Close()
		if got := e.Stats(); got != (executorStats{Running: 1}) {
			t.Errorf("Stats = %+v after Close", got)
		}
		if _, err := e.Submit(context.Background(), testJob(&r, "late", gate, false)); !errors.Is(err, errExecutorClosed) {
			t.Errorf("Submit after Close = %v", err)
		}
		select {
		case <-e.Done():
			t.Error("Done closed while a job runs")
		default:
		}
		close(gate)
		<-e.Done()
		if err := e.Close(); err != nil {
			t.Errorf("second Close = %v", err)
		}
		got := r.get()
		want := []string{"running start", "queued abort " + errExecutorClosed.Error(), "running abort " + errExecutorClosed.Error(), "running end"}
		if diff := cmp.Diff(sortedStrings(want), sortedStrings(got)); diff != "" || got[len(got)-1] != "running end" {
			t.Errorf("events %q (-want +got):\n%s", got, diff)
		}
	})
}

func TestExecutorPanic(t *testing.T) {
	var logs logBuffer
	e := newTestExecutor(t, executorConfig{MaxConcurrency: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	aborted := make(chan error, 1)
	e.Submit(context.Background(), job{Run: func(context.Context) { panic("job exploded") }, OnAbort: func(err error) { aborted <- err }})
	if err := <-aborted; !strings.Contains(err.Error(), "job exploded") {
		t.Errorf("OnAbort(%v)", err)
	}
	ran := make(chan struct{})
	if _, err := e.Submit(context.Background(), job{Run: func(context.Context) { close(ran) }}); err != nil {
		t.Fatal(err)
	}
	<-ran
	if s := logs.String(); !strings.Contains(s, "job exploded") || !strings.Contains(s, "goroutine") {
		t.Errorf("log lacks the panic and stack: %s", s)
	}
}

func TestExecutorSharedByConnections(t *testing.T) {
	// One executor serving two connections at once: its bounds are global,
	// and the same id on two connections is two requests.
	e := newTestExecutor(t, executorConfig{MaxConcurrency: 1, MaxQueue: 1})
	rt1, rt2 := newFakeRuntime(), newFakeRuntime()
	h1 := startServe(t, rt1, Config{executor: e})
	h2 := startServe(t, rt2, Config{executor: e})
	h1.sendLine(reqLine(1, "block", `{"gate":"a"}`))
	rt1.waitEvent(t, "start")
	h2.sendLine(reqLine(1, "echo", `{"queued":true}`))
	h2.sendLine(reqLine(2, "echo", `{}`))
	if got := h2.next(); got != errorLine("2", -32603, "Execution capacity exhausted", `{"retryable":true,"limit":2}`) {
		t.Errorf("second connection got %s", got)
	}
	rt1.open("a")
	if got := h1.next(); !bytes.Contains([]byte(got), []byte(`"released":true`)) {
		t.Errorf("first connection got %s", got)
	}
	if got := h2.next(); got != `{"jsonrpc":"2.0","id":1,"result":{"queued":true}}` {
		t.Errorf("second connection got %s", got)
	}
}

// A worker whose queue ran dry lingers for the next job, which it runs on
// the same goroutine; it exits after workerLinger without one, or at Close,
// and Done waits for it.
func TestExecutorWorkersLinger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, _ := newExecutor(executorConfig{MaxConcurrency: 2, Logger: quietLogger})
		idle := func() int {
			e.mu.Lock()
			defer e.mu.Unlock()
			return e.idle
		}
		var workers sync.Map // goroutine stacks' first lines, one per goroutine
		run := func() {
			ran := make(chan struct{})
			e.Submit(context.Background(), job{Run: func(context.Context) {
				buf := make([]byte, 64)
				id, _, _ := strings.Cut(string(buf[:runtime.Stack(buf, false)]), " [")
				workers.Store(id, true)
				close(ran)
			}})
			<-ran
			synctest.Wait()
		}
		run()
		if got := idle(); got != 1 {
			t.Fatalf("idle workers after a job = %d, want 1", got)
		}
		time.Sleep(workerLinger / 2)
		run()
		n := 0
		workers.Range(func(any, any) bool { n++; return true })
		if n != 1 {
			t.Errorf("two jobs within workerLinger ran on %d goroutines, want 1", n)
		}
		time.Sleep(workerLinger)
		synctest.Wait()
		if got := idle(); got != 0 {
			t.Errorf("idle workers %v after the last job = %d, want 0", workerLinger, got)
		}

		run()
		e.Close()
		synctest.Wait()
		select {
		case <-e.Done():
		default:
			t.Error("Done still open after Close with only a lingering worker")
		}
	})
}
