package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// pipeServer is an in-process server at the far end of a Client made by
// Open: it answers each request with {"method", "params"}, except "hang",
// which it never answers.
type pipeServer struct {
	in      *io.PipeReader // what the Client writes
	out     *io.PipeWriter // what the Client reads
	hanging chan struct{}  // receives when a "hang" arrived
	eof     chan struct{}  // closed when in ended
}

// openPipe opens a Client over io.Pipes to a pipeServer. The test ends
// the server with out.Close (or the Client's Close ends in).
func openPipe(t *testing.T) (*Client, *pipeServer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &pipeServer{in: inR, out: outW, hanging: make(chan struct{}, 1), eof: make(chan struct{})}
	c, err := Open(inW, outR, ClientConfig{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	go s.serve()
	t.Cleanup(func() {
		c.Close()
		outW.Close()
		inR.Close()
		select {
		case <-c.Done():
		case <-time.After(10 * time.Second):
			t.Error("the Client is not done 10 s after both ends closed")
		}
		<-s.eof
	})
	return c, s
}

func (s *pipeServer) serve() {
	defer close(s.eof)
	sc := bufio.NewScanner(s.in)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil || m.Method == "" {
			continue // notifications and responses
		}
		if m.Method == "hang" {
			s.hanging <- struct{}{}
			continue
		}
		result, _ := json.Marshal(map[string]any{"method": m.Method, "params": m.Params})
		line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": json.RawMessage(result)})
		if _, err := s.out.Write(append(line, '\n')); err != nil {
			return
		}
	}
}

// TestOpen: a Client over a connection that is no child process calls
// through it, has no process, and Close ends the connection's input;
// Done waits for its output to end.
func TestOpen(t *testing.T) {
	c, s := openPipe(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	res, err := c.Call(ctx, "test/echo", map[string]any{"x": 1}, nil)
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	var got struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(res, &got); err != nil || got.Method != "test/echo" || string(got.Params) != `{"x":1}` {
		t.Errorf("Call result %s (%v), want the echo of test/echo {\"x\":1}", res, err)
	}

	if pid := c.Pid(); pid != 0 {
		t.Errorf("Pid() = %d, want 0", pid)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		if err := c.Signal(sig); !errors.Is(err, os.ErrProcessDone) {
			t.Errorf("Signal(%v) = %v, want os.ErrProcessDone", sig, err)
		}
	}
	if st := c.ExitState(); st != nil {
		t.Errorf("ExitState() = %v, want nil", st)
	}
	if err := c.Err(); err != nil {
		t.Errorf("Err() = %v while open", err)
	}

	if err := c.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	select {
	case <-s.eof:
	case <-time.After(10 * time.Second):
		t.Fatal("the server saw no EOF on its input 10 s after Close")
	}
	select {
	case <-c.Closed():
	default:
		t.Error("Closed() not closed after Close")
	}
	var e *jsonrpc.Error
	if err := c.Err(); !errors.As(err, &e) || e.Code != jsonrpc.CodeConnectionClosed {
		t.Errorf("Err() after Close = %v, want -32000", err)
	}
	if _, err := c.Call(ctx, "test/echo", nil, nil); !errors.As(err, &e) || e.Code != jsonrpc.CodeConnectionClosed {
		t.Errorf("Call after Close: %v, want -32000", err)
	}
	// The server's output is still open: the Client is not done reading.
	select {
	case <-c.Done():
		t.Error("Done() closed while the connection's output is still open")
	case <-time.After(50 * time.Millisecond):
	}
	s.out.Close()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done() not closed 10 s after the output ended")
	}
}

// TestOpenOutputEnds: when the server closes its output, a call in flight
// fails with -32000, the connection ends (its input is closed) and Done
// closes.
func TestOpenOutputEnds(t *testing.T) {
	c, s := openPipe(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, "hang", nil, nil)
		errc <- err
	}()
	select {
	case <-s.hanging:
	case <-ctx.Done():
		t.Fatal("the server never got the call")
	}
	s.out.Close()

	var err error
	select {
	case err = <-errc:
	case <-time.After(10 * time.Second):
		t.Fatal("the call in flight did not return 10 s after the output ended")
	}
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.CodeConnectionClosed {
		t.Errorf("the call in flight failed with %v, want a -32000 jsonrpc error", err)
	}
	if ctx.Err() != nil {
		t.Errorf("the call returned only at its deadline")
	}
	if err := c.Err(); !errors.As(err, &e) || e.Code != jsonrpc.CodeConnectionClosed {
		t.Errorf("Err() = %v, want -32000", err)
	}
	for what, ch := range map[string]<-chan struct{}{"Closed()": c.Closed(), "the server's input": s.eof, "Done()": c.Done()} {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Errorf("%s not closed 10 s after the output ended", what)
		}
	}
}

func TestOpenNeedsBothEnds(t *testing.T) {
	r, w := io.Pipe()
	defer r.Close()
	for _, tt := range []struct {
		in  io.WriteCloser
		out io.ReadCloser
	}{{nil, r}, {w, nil}} {
		if c, err := Open(tt.in, tt.out, ClientConfig{}); err == nil {
			c.Close()
			t.Errorf("Open(%v, %v): no error", tt.in, tt.out)
		}
	}
}
