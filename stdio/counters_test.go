package stdio

import (
	"context"
	"testing"
)

// Counters add up a child's traffic: every byte written and read, the
// lines that were not JSON-RPC and the lines over the limit, and carry on
// across the Clients that share them.
func TestCounters(t *testing.T) {
	ctx := context.Background()
	var n Counters
	mutate := func(s *spec) {
		s.ClientConfig.Counters = &n
		s.ClientConfig.MaxLineBytes = 4096
	}
	c := rawClient(t, mutate)
	if _, err := callTool(ctx, c, "echo", map[string]any{"message": "hi"}, nil); err != nil {
		t.Fatal(err)
	}
	in, out := n.BytesIn.Load(), n.BytesOut.Load()
	// The request line and the response line, whole: at least the bytes of
	// their fixed parts.
	if out < int64(len(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)+1) ||
		in < int64(len(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`)+1) {
		t.Errorf("after one echo: %d bytes in, %d out; want both lines counted", in, out)
	}
	if _, err := callTool(ctx, c, "garbage", nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := n.LinesSkipped.Load(); got != 2 {
		t.Errorf("LinesSkipped = %d after two garbage lines, want 2", got)
	}
	if _, err := callTool(ctx, c, "big", map[string]any{"bytes": 10000}, nil); err == nil {
		t.Fatal("a 10 kB response over a 4 kB limit succeeded")
	}
	if got := n.LinesTooLong.Load(); got != 1 {
		t.Errorf("LinesTooLong = %d, want 1", got)
	}
	if got := n.BytesIn.Load() - in; got < 10000 {
		t.Errorf("BytesIn grew by %d over a 10 kB line, want the whole line counted", got)
	}
	if calls, srv := c.Load(); calls != 0 || srv != 0 {
		t.Errorf("Load() = %d, %d when idle, want 0, 0", calls, srv)
	}

	// A second Client on the same Counters adds to them.
	before := n.BytesOut.Load()
	c2 := rawClient(t, mutate)
	if _, err := callTool(ctx, c2, "echo", map[string]any{"message": "again"}, nil); err != nil {
		t.Fatal(err)
	}
	if n.BytesOut.Load() <= before || n.LinesSkipped.Load() != 2 {
		t.Errorf("a second Client: BytesOut %d (was %d), LinesSkipped %d; want it grown and 2", n.BytesOut.Load(), before, n.LinesSkipped.Load())
	}
}

// probeWriter checks, as each write reaches it, that the write is counted
// already: by the time the child can read a byte, BytesOut has it, so a
// caller whose answer has arrived sees its request counted.
type probeWriter struct {
	t *testing.T
	n *Counters
	w int64 // the bytes written before
}

func (p *probeWriter) Write(b []byte) (int, error) {
	if got := p.n.BytesOut.Load(); got != p.w+int64(len(b)) {
		p.t.Errorf("a write of %d bytes after %d reached the child with BytesOut %d, want %d", len(b), p.w, got, p.w+int64(len(b)))
	}
	p.w += int64(len(b))
	return len(b), nil
}

func (p *probeWriter) Close() error { return nil }

func TestCountersCountAWriteBeforeTheChildReadsIt(t *testing.T) {
	var n Counters
	w := countingWriter{&probeWriter{t: t, n: &n}, &n.BytesOut}
	for _, line := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n", "{}\n"} {
		if _, err := w.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if got := n.BytesOut.Load(); got != 44 {
		t.Errorf("BytesOut = %d after 41 and 3 bytes, want 44", got)
	}
}
