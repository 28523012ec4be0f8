package server

import (
	"context"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/seam"
)

// The graceful stop behind Run, in-process; the signals themselves, on a
// real process, are tested in package stdio/mcp (run_test.go).

func TestServeStopLetsRequestsFinish(t *testing.T) { // scenario 99
	synctest.Test(t, func(t *testing.T) {
		rt := newFakeRuntime()
		src := newFakeSource(`{}`)
		rt.listen = func(_ context.Context, _ *seam.Request) (seam.Source, error) { return src, nil }
		stop := make(chan struct{})
		h := startServeStop(t, rt, Config{}, stop)
		h.sendLine(reqLine(1, "subscriptions/listen", `{}`))
		h.next() // the acknowledgement
		h.sendLine(reqLine(2, "block", `{"gate":"a"}`))
		rt.waitEvent(t, "start")

		close(stop)
		synctest.Wait()
		if reason := src.waitClosed(t); reason != io.EOF {
			t.Errorf("the open stream closed with %v at the stop, want io.EOF", reason)
		}
		h.sendLine(reqLine(3, "echo", `{}`)) // read from the pipe, never served
		synctest.Wait()
		h.quiet()
		if !strings.Contains(h.logs.String(), "input is no longer read") {
			t.Errorf("the stop is not logged:\n%s", h.logs)
		}

		rt.open("a")
		if got := h.next(); got != `{"jsonrpc":"2.0","id":2,"result":{"released":true}}` {
			t.Errorf("the request running at the stop got %s", got)
		}
		if rest := h.rest(); h.err != nil || len(rest) != 0 {
			t.Errorf("Serve = %v, then %q; want nil and nothing more", h.err, rest)
		}
	})
}

func TestServeStopGraceEnds(t *testing.T) { // scenario 100
	for _, tc := range []struct {
		name     string
		eofFirst bool
	}{
		{"stop", false},
		{"EOF, then stop", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := newFakeRuntime()
				stop := make(chan struct{})
				h := startServeStop(t, rt, Config{ShutdownGrace: 2 * time.Second}, stop)
				h.sendLine(reqLine(1, "block", `{"gate":"never"}`))
				rt.waitEvent(t, "start")
				if tc.eofFirst {
					h.eof()
					synctest.Wait()
				}
				start := time.Now()
				close(stop)
				err := h.wait()
				const want = "stdio: cancelled 1 request still running at the end of the 2s shutdown grace"
				if err == nil || err.Error() != want {
					t.Errorf("Serve = %v, want %q", err, want)
				}
				if took := time.Since(start); took != 2*time.Second {
					t.Errorf("Serve returned %v after the stop, want 2s", took)
				}
				if ev := rt.waitEvent(t, "end"); ev.err == nil || ev.err.Error() != want {
					t.Errorf("the handler's ctx ended with %v, want Serve's error", ev.err)
				}
				if rest := h.rest(); len(rest) != 0 {
					t.Errorf("output %q after the grace, want none", rest)
				}
			})
		})
	}
}

func TestServeStopIdle(t *testing.T) { // scenario 99, nothing running
	synctest.Test(t, func(t *testing.T) {
		stop := make(chan struct{})
		h := startServeStop(t, newFakeRuntime(), Config{}, stop)
		h.sendLine(reqLine(1, "echo", `{}`))
		h.next()
		close(stop)
		if err := h.wait(); err != nil {
			t.Errorf("Serve = %v after a stop with nothing running, want nil", err)
		}
	})
}

// An invalid configuration fails Run before it takes stdout or catches a
// signal.
func TestRunInvalidConfig(t *testing.T) {
	if err := Run(context.Background(), nil, Config{}); err == nil {
		t.Error("Run(nil runtime) = nil")
	}
	if err := Run(context.Background(), newFakeRuntime(), Config{ShutdownGrace: -1}); err == nil || !strings.Contains(err.Error(), "ShutdownGrace is negative") {
		t.Errorf("Run(ShutdownGrace -1) = %v, want an error naming the field", err)
	}
	takeStdout.Lock()
	taken := takenStdout
	takeStdout.Unlock()
	if taken != nil {
		t.Error("Run took stdout despite an invalid config")
	}
}
