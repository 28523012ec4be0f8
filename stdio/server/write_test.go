package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/seam"
)

// writeFunc adapts a function to io.Writer.
type writeFunc func(p []byte) (int, error)

func (f writeFunc) Write(p []byte) (int, error) { return f(p) }

var quietLogger = slog.New(slog.DiscardHandler)

// Server: write failures (docs/stdio.md, scenarios 76-81).

func TestServeWriteTimeout(t *testing.T) { // scenario 76
	synctest.Test(t, func(t *testing.T) {
		unblock := make(chan struct{})
		var calls atomic.Int32
		out := writeFunc(func(p []byte) (int, error) {
			calls.Add(1)
			<-unblock
			return len(p), nil
		})
		inR, inW := io.Pipe()
		errc := make(chan error, 1)
		go func() {
			errc <- Serve(context.Background(), newFakeRuntime(), inR, out, Config{WriteTimeout: 30 * time.Millisecond, Logger: quietLogger})
		}()
		start := time.Now()
		io.WriteString(inW, reqLine(1, "echo", `{}`)+"\n")
		err := <-errc
		if !errors.Is(err, ErrOutputFailed) || !errors.Is(err, ErrWriteTimeout) {
			t.Errorf("Serve = %v, want ErrOutputFailed wrapping ErrWriteTimeout", err)
		}
		if d := time.Since(start); d != 30*time.Millisecond {
			t.Errorf("Serve returned after %v, want 30ms", d)
		}
		io.WriteString(inW, reqLine(2, "echo", `{}`)+"\n") // more input changes nothing
		close(unblock)
		synctest.Wait()
		if n := calls.Load(); n != 1 {
			t.Errorf("%d Writes, want 1: nothing is written after the timeout, even once the writer unblocks", n)
		}
		inW.Close()
	})
}

func TestServeWriteErrors(t *testing.T) { // scenario 77
	tests := []struct {
		name  string
		write writeFunc
		is    error
	}{
		{"ENOSPC", func([]byte) (int, error) { return 0, syscall.ENOSPC }, syscall.ENOSPC},
		{"EPIPE", func([]byte) (int, error) { return 0, syscall.EPIPE }, syscall.EPIPE},
		{"short write", func(p []byte) (int, error) { return len(p) - 1, nil }, io.ErrShortWrite},
		{"panic", func([]byte) (int, error) { panic("writer exploded") }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			out := writeFunc(func(p []byte) (int, error) { calls.Add(1); return tt.write(p) })
			input := reqLine(1, "echo", `{}`) + "\n" + reqLine(2, "echo", `{}`) + "\n"
			err := Serve(context.Background(), newFakeRuntime(), strings.NewReader(input), out, Config{Logger: quietLogger})
			if !errors.Is(err, ErrOutputFailed) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("Serve = %v, want ErrOutputFailed wrapping %v", err, tt.is)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("%d Writes, want 1: a failed write is never retried", n)
			}
		})
	}
}

func TestServeWriteTimeoutCancelsExecutorJobs(t *testing.T) { // scenario 78
	synctest.Test(t, func(t *testing.T) {
		exec, _ := newExecutor(executorConfig{MaxConcurrency: 1, MaxQueue: 1})
		rt := newFakeRuntime()
		h := startServe(t, rt, Config{executor: exec, WriteTimeout: 30 * time.Millisecond})
		stuck := make(chan struct{})
		t.Cleanup(func() { close(stuck) }) // runs before the harness's cleanup
		h.sendLine(reqLine(1, "block", `{"gate":"a"}`))
		rt.waitEvent(t, "start")
		h.sendLine(reqLine(2, "echo", `{}`))
		synctest.Wait()
		if got, want := exec.Stats(), (executorStats{Running: 1, Queued: 1}); got != want {
			t.Fatalf("Stats = %+v, want %+v", got, want)
		}
		h.out.setHook(func([]byte) error { <-stuck; return nil })
		h.sendLine(`{not json}`) // its error response cannot be written
		if err := h.wait(); !errors.Is(err, ErrWriteTimeout) {
			t.Errorf("Serve = %v, want a write timeout", err)
		}
		if ev := rt.waitEvent(t, "end"); ev.id != "1" || !errors.Is(ev.err, ErrOutputFailed) {
			t.Errorf("running handler ended with %v, want its ctx cancelled by the output failure", ev.err)
		}
		synctest.Wait()
		if got, want := exec.Stats(), (executorStats{}); got != want {
			t.Errorf("Stats = %+v, want %+v: both jobs cancelled", got, want)
		}
		ran := make(chan struct{})
		if _, err := exec.Submit(context.Background(), job{Run: func(context.Context) { close(ran) }}); err != nil {
			t.Fatalf("Submit after the failure = %v, want the Executor still usable", err)
		}
		<-ran
		exec.Close()
		for _, ev := range rt.drainEvents() {
			if ev.id == "2" {
				t.Errorf("the queued request ran: %+v", ev)
			}
		}
	})
}

func TestServeAcknowledgementWriteFails(t *testing.T) { // scenario 79
	t.Run("first acknowledgement", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			rt := newFakeRuntime()
			first, opening := newFakeSource(`{}`), newFakeSource(`{}`)
			rt.listen = func(_ context.Context, req *seam.Request) (seam.Source, error) {
				if string(req.ID) == "2" {
					<-rt.gate("opening")
					return opening, nil
				}
				return first, nil
			}
			h := startServe(t, rt, Config{})
			h.out.setHook(func(frame []byte) error {
				if bytes.Contains(frame, []byte("acknowledged")) {
					return errors.New("disk on fire")
				}
				return nil
			})
			h.sendLine(reqLine(2, "subscriptions/listen", `{}`)) // still opening when the failure comes
			synctest.Wait()
			h.sendLine(reqLine(1, "subscriptions/listen", `{}`))
			if err := h.wait(); !errors.Is(err, ErrOutputFailed) {
				t.Errorf("Serve = %v, want an output failure", err)
			}
			if reason := first.waitClosed(t); !errors.Is(reason, ErrOutputFailed) || !strings.Contains(reason.Error(), "disk on fire") {
				t.Errorf("source closed with %v, want the output failure", reason)
			}
			rt.open("opening")
			if reason := opening.waitClosed(t); !errors.Is(reason, ErrOutputFailed) {
				t.Errorf("other stream closed with %v, want the output failure", reason)
			}
		})
	})
	t.Run("with a stream open", func(t *testing.T) {
		rt := newFakeRuntime()
		a, b := newFakeSource(`{}`), newFakeSource(`{}`)
		rt.listen = func(_ context.Context, req *seam.Request) (seam.Source, error) {
			if string(req.ID) == `"a"` {
				return a, nil
			}
			return b, nil
		}
		h := startServe(t, rt, Config{})
		h.sendLine(reqLine("a", "subscriptions/listen", `{}`))
		h.next()
		h.out.setHook(func([]byte) error { return syscall.EPIPE })
		h.sendLine(reqLine("b", "subscriptions/listen", `{}`))
		if err := h.wait(); !errors.Is(err, syscall.EPIPE) {
			t.Errorf("Serve = %v, want EPIPE", err)
		}
		for name, s := range map[string]*fakeSource{"failed": b, "open": a} {
			if reason := s.waitClosed(t); !errors.Is(reason, ErrOutputFailed) || !errors.Is(reason, syscall.EPIPE) {
				t.Errorf("%s stream closed with %v, want the output failure", name, reason)
			}
		}
	})
}

func TestServeWritesSerialised(t *testing.T) { // scenario 80
	synctest.Test(t, func(t *testing.T) {
		type span struct{ start, end time.Time }
		var mu sync.Mutex
		var spans []span
		var frames []string
		h := startServe(t, newFakeRuntime(), Config{})
		h.out.setHook(func(frame []byte) error {
			start := time.Now()
			time.Sleep(10 * time.Millisecond) // a slow device
			mu.Lock()
			spans = append(spans, span{start, time.Now()})
			frames = append(frames, string(frame))
			mu.Unlock()
			return nil
		})
		h.sendLine(reqLine(1, "progress", `{"steps":[0,1],"_meta":{"progressToken":"tok"}}`))
		for range 3 {
			h.next()
		}
		want := []string{
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":0}}` + "\n",
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1}}` + "\n",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","done":true}}` + "\n",
		}
		mu.Lock()
		defer mu.Unlock()
		if diff := cmp.Diff(want, frames); diff != "" {
			t.Errorf("frames (-want +got):\n%s", diff)
		}
		for i := 1; i < len(spans); i++ {
			if spans[i].start.Before(spans[i-1].end) {
				t.Errorf("Write %d started at %v, before Write %d returned at %v", i, spans[i].start, i-1, spans[i-1].end)
			}
		}
	})
}

func TestServeOutputBlockedFromStart(t *testing.T) { // scenario 81
	synctest.Test(t, func(t *testing.T) {
		stuck := make(chan struct{})
		defer close(stuck)
		out := writeFunc(func(p []byte) (int, error) { <-stuck; return len(p), nil })
		inR, inW := io.Pipe()
		defer inW.Close()
		errc := make(chan error, 1)
		go func() {
			errc <- Serve(context.Background(), newFakeRuntime(), inR, out, Config{WriteTimeout: 200 * time.Millisecond, Logger: quietLogger})
		}()
		start := time.Now()
		io.WriteString(inW, `{bad`+"\n")
		if err := <-errc; !errors.Is(err, ErrWriteTimeout) {
			t.Errorf("Serve = %v", err)
		}
		if d := time.Since(start); d > 300*time.Millisecond {
			t.Errorf("Serve returned after %v, want within WriteTimeout + 100ms", d)
		}
	})
}

// TestServeOSPipeCancel checks that with a cancelled ctx, Serve's reader
// blocked in a real pipe's Read is unblocked and gone when Serve returns.
func TestServeOSPipeCancel(t *testing.T) {
	inR, inW, _ := os.Pipe()
	defer inR.Close()
	defer inW.Close()
	outR, outW, _ := os.Pipe()
	defer outR.Close()
	defer outW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- Serve(ctx, newFakeRuntime(), inR, outW, Config{Logger: quietLogger}) }()
	io.WriteString(inW, reqLine(1, "echo", `{}`)+"\n")
	if line, err := bufio.NewReader(outR).ReadString('\n'); err != nil || line != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n" {
		t.Fatalf("response %q, %v", line, err)
	}
	cancel() // Serve's reader is now blocked in Read
	if err := <-errc; err != context.Canceled {
		t.Errorf("Serve = %v", err)
	}
	io.WriteString(inW, "mine\n")
	buf := make([]byte, 5)
	if _, err := io.ReadFull(inR, buf); err != nil || string(buf) != "mine\n" {
		t.Errorf("reading the input after Serve: %q, %v", buf, err)
	}
}
