package stdio

import (
	"io"
	"sync/atomic"
)

// Counters are running totals of a Client's traffic with its child, for
// metrics ([ClientConfig].Counters). Every field only grows; read it with
// Load at any time.
type Counters struct {
	// BytesIn counts the bytes read from the child's stdout, line endings
	// and discarded lines included.
	BytesIn atomic.Int64
	// BytesOut counts the bytes written to the child's stdin. A write is
	// counted as it starts, whole, so that every byte the child has read
	// is counted already: a caller whose answer has arrived sees its
	// request in BytesOut. (A failed write, which ends the connection,
	// counts too.)
	BytesOut atomic.Int64
	// LinesSkipped counts the stdout lines that were not JSON-RPC messages
	// (a child that prints to stdout), skipped and logged.
	LinesSkipped atomic.Int64
	// LinesTooLong counts the stdout lines over MaxLineBytes, discarded.
	LinesTooLong atomic.Int64
}

// countingWriter and countingReader add what passes through them to a
// Counters field.
type countingWriter struct {
	io.WriteCloser
	n *atomic.Int64
}

func (w countingWriter) Write(p []byte) (int, error) {
	w.n.Add(int64(len(p))) // before the child can read it, not after
	return w.WriteCloser.Write(p)
}

type countingReader struct {
	io.ReadCloser
	n *atomic.Int64
}

func (r countingReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.n.Add(int64(n))
	return n, err
}

// Load returns the Client's calls in flight (requests written or waiting
// to be, not yet answered) and the child's requests being handled.
func (c *Client) Load() (calls, serverRequests int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending), c.running
}
