package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// fakeChild is the far end of an in-process Client, for the timing tests:
// under testing/synctest its time is fake, so timeouts of seconds take no
// wall time and their order is exact.
type fakeChild struct {
	in   *wire.Reader   // what the Client writes
	out  *io.PipeWriter // what the Client reads
	exit chan struct{}  // closed: the child is "reaped"
}

// newFakeClient starts a Client over pipes to a fakeChild. The test must
// end both: close f.out and f.exit (f.stop does).
func newFakeClient(t *testing.T, cfg ClientConfig) (*Client, *fakeChild) {
	t.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	if err := cfg.normalize(); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f := &fakeChild{in: wire.NewReader(inR, 1<<20), out: outW, exit: make(chan struct{})}
	c := newClient(cfg, inW, outR, func() *os.ProcessState { <-f.exit; return nil })
	c.live.Store(3)
	go c.reader()
	go c.writer()
	go c.waiter()
	t.Cleanup(func() { inR.Close() })
	return c, f
}

// token is the progress token of a request the Client wrote.
func token(m wire.Message) json.RawMessage {
	meta, _ := rawjson.Member(m.Params, "_meta")
	tok, _ := rawjson.Member(meta, "progressToken")
	return tok
}

// request reads the next request the Client wrote.
func (f *fakeChild) request(t *testing.T) wire.Message {
	t.Helper()
	line, err := f.in.ReadLine()
	if err != nil {
		t.Fatalf("fake child read: %v", err)
	}
	m, err := wire.Decode(append([]byte(nil), line...))
	if err != nil {
		t.Fatalf("fake child decode %q: %v", line, err)
	}
	return m
}

func (f *fakeChild) send(s string) { f.out.Write([]byte(s + "\n")) }

func (f *fakeChild) stop() {
	f.out.Close()
	close(f.exit)
}

// Scenario 14: the timeout, its reset on progress, and the total cap.
func TestProgressTimeoutReset(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts CallOptions
		want string // "" for success, else the error's message and data
	}{
		{"timeout", CallOptions{Timeout: 2 * time.Second}, `Request timed out {"timeoutMs":2000}`},
		{"reset", CallOptions{Timeout: 2 * time.Second, ResetTimeoutOnProgress: true}, ""},
		{"capped", CallOptions{Timeout: 2 * time.Second, ResetTimeoutOnProgress: true, MaxTotalTimeout: 2200 * time.Millisecond},
			`Maximum total timeout exceeded {"maxTotalTimeoutMs":2200}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, f := newFakeClient(t, ClientConfig{})
				quit, finished := make(chan struct{}), make(chan struct{})
				defer func() { // the bubble's goroutines must end before it does
					close(quit)
					<-finished
					f.stop()
				}()
				go func() {
					defer close(finished)
					m := f.request(t)
					// 25 ticks, 100 ms apart, then the result: 2.5 s in all.
					for i := 1; i <= 25; i++ {
						select {
						case <-time.After(100 * time.Millisecond):
						case <-quit:
							return
						}
						f.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d}}`, token(m), i))
					}
					f.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"done":true}}`)
				}()
				ticks := 0
				opts := tt.opts
				opts.Progress = func(Progress) { ticks++ }
				start := time.Now()
				res, err := c.Call(context.Background(), "slow", nil, &opts)
				elapsed := time.Since(start)
				if tt.want == "" {
					if err != nil || string(res) != `{"done":true}` || ticks != 25 {
						t.Fatalf("Call = %s, %v after %d ticks; want the result after 25", res, err, ticks)
					}
					return
				}
				var e *jsonrpc.Error
				if !errors.As(err, &e) || e.Code != jsonrpc.CodeRequestTimeout || e.Message+" "+string(e.Data) != tt.want {
					t.Fatalf("Call error = %v, want %s", err, tt.want)
				}
				limit := opts.Timeout
				if opts.MaxTotalTimeout > 0 {
					limit = opts.MaxTotalTimeout
				}
				if elapsed != limit {
					t.Errorf("the call ended after %v, want exactly %v", elapsed, limit)
				}
				c.Close()
			})
		})
	}
}

// The caller's ctx ends the call with -32001 whose cause is ctx.Err(), and
// the cancellation goes to the child without holding the caller.
func TestContextDeadlineNotExtended(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, f := newFakeClient(t, ClientConfig{})
		defer f.stop()
		got := make(chan wire.Message, 2)
		go func() {
			m := f.request(t)
			got <- m
			for i := 1; i <= 10; i++ { // progress would reset a package timer, never ctx
				time.Sleep(100 * time.Millisecond)
				f.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d}}`, token(m), i))
			}
			got <- f.request(t) // the cancellation
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.Call(ctx, "slow", nil, &CallOptions{Timeout: 5 * time.Second, ResetTimeoutOnProgress: true, Progress: func(Progress) {}})
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, &jsonrpc.Error{Code: jsonrpc.CodeRequestTimeout}) {
			t.Fatalf("Call = %v, want -32001 caused by the deadline", err)
		}
		if d := time.Since(start); d != 500*time.Millisecond {
			t.Errorf("ended after %v, want the ctx deadline, 500ms", d)
		}
		req := <-got
		cancelled := <-got
		target, _ := rawjson.Member(cancelled.Params, "requestId")
		if cancelled.Method != "notifications/cancelled" || string(target) != string(req.ID) {
			t.Errorf("child received %s %s, want a cancellation of %s", cancelled.Method, cancelled.Params, req.ID)
		}
		c.Close()
	})
}

// docs/stdio.md, "Child death, EOF and Close": a child that exited while a
// descendant holds its stdout ends the connection one second after the
// exit.
func TestExitWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, f := newFakeClient(t, ClientConfig{})
		done := make(chan error, 1)
		go func() {
			_, err := c.Call(context.Background(), "x", nil, nil)
			done <- err
		}()
		f.request(t)
		start := time.Now()
		close(f.exit) // reaped, but stdout stays open
		err := <-done
		if d := time.Since(start); d != exitWindow {
			t.Errorf("pending call failed %v after the exit, want %v", d, exitWindow)
		}
		if e := wantCode(t, "call at exit", err, jsonrpc.CodeConnectionClosed); e.Message != "The stdio server exited" {
			t.Errorf("message %q", e.Message)
		}
		f.out.Close()
		<-c.Done()
	})
}

// Stdout EOF with no exit status within the window ends the connection with
// the I/O error as its cause.
func TestEOFWithoutExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, f := newFakeClient(t, ClientConfig{})
		done := make(chan error, 1)
		go func() {
			_, err := c.Call(context.Background(), "x", nil, nil)
			done <- err
		}()
		f.request(t)
		start := time.Now()
		f.out.Close()
		err := <-done
		if d := time.Since(start); d != exitWindow {
			t.Errorf("failed %v after EOF, want %v (the wait for an exit status)", d, exitWindow)
		}
		if !errors.Is(err, io.EOF) {
			t.Errorf("cause of %v is not io.EOF", err)
		}
		close(f.exit)
		<-c.Done()
	})
}

// A listen's acknowledgement timeout sends a cancellation (scenario 45),
// with exact timing.
func TestListenAckTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, f := newFakeClient(t, ClientConfig{RequestTimeout: 3 * time.Second})
		c.era.Store(newEra(Version20260728, &ConnectConfig{ClientInfo: json.RawMessage(`{}`), Capabilities: json.RawMessage(`{}`)}, ""))
		defer f.stop()
		got := make(chan wire.Message, 2)
		go func() {
			got <- f.request(t)
			got <- f.request(t)
		}()
		start := time.Now()
		_, err := c.Listen(context.Background(), json.RawMessage(`{"toolsListChanged":true}`), nil)
		wantCode(t, "Listen", err, jsonrpc.CodeRequestTimeout)
		if d := time.Since(start); d != 3*time.Second {
			t.Errorf("Listen gave up after %v, want RequestTimeout (3s)", d)
		}
		listen, cancel := <-got, <-got
		if listen.Method != "subscriptions/listen" || cancel.Method != "notifications/cancelled" {
			t.Errorf("child received %s then %s", listen.Method, cancel.Method)
		}
		c.Close()
	})
}
