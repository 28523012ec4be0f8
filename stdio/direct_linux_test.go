package stdio

import (
	"bytes"
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// pipeNearlyFull returns a pipe of one 64 KiB buffer holding all but free
// bytes: every page slot used, the last one with free bytes left.
func pipeNearlyFull(t *testing.T, free int) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	const capacity = 64 << 10
	sc, err := w.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var errno syscall.Errno
	sc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETPIPE_SZ, capacity)
	})
	if errno != 0 {
		t.Skipf("F_SETPIPE_SZ: %v", errno)
	}
	if _, err := w.Write(bytes.Repeat([]byte("x"), capacity-free)); err != nil {
		t.Fatalf("filling the pipe: %v", err)
	}
	return r, w
}

// writeDirect relies on pipe writes of at most pipeAtomic bytes being all
// or nothing: when its deadline cuts one short, not a byte of it is in the
// pipe, so no partial line can reach the child. Above that size the kernel
// writes what fits, which is why larger frames go through the writer,
// which writes without a deadline.
func TestDirectWriteIsAllOrNothing(t *testing.T) {
	// Every page slot used, the last one holding a single byte: the kernel
	// merges a write's tail into that page and needs free slots for the
	// rest.
	const free = 4096 - 1
	_, w := pipeNearlyFull(t, free)
	c := &Client{stdin: w, direct: w, wlock: make(chan struct{}, 1)}
	ok, err := c.writeDirect(context.Background(), bytes.Repeat([]byte("y"), pipeAtomic), time.Now(), 50*time.Millisecond)
	if !ok || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("writeDirect of %d bytes into a full pipe = %v, %v; want a deadline error", pipeAtomic, ok, err)
	}
	// Nothing of it went in, while a larger write is split: the kernel
	// takes the tail that fits in the last page and fails the rest.
	const tail = 100
	w.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	n, err := w.Write(bytes.Repeat([]byte("z"), 3*pipeAtomic+tail))
	w.SetWriteDeadline(time.Time{})
	if n != tail || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a %d-byte write then took %d bytes (%v); want the %d that fit, the kernel splitting it", 3*pipeAtomic+tail, n, err, tail)
	}
	ok, _ = c.writeDirect(context.Background(), bytes.Repeat([]byte("y"), pipeAtomic+1), time.Now(), time.Second)
	if ok {
		t.Error("writeDirect took a frame over pipeAtomic bytes")
	}
}

// lateCtx reports a deadline earlier than the one its Done honours, as a
// context does for the moment between its deadline passing and its timer
// firing.
type lateCtx struct {
	context.Context
	early time.Time
}

func (c lateCtx) Deadline() (time.Time, bool) { return c.early, true }

// A direct write cut by the call's ctx deadline fails the call with ctx's
// error, even when the write's deadline fires before ctx's own timer does:
// not with the call timeout's "timeoutMs", which never ran out.
func TestDirectWriteDeadlineIsContexts(t *testing.T) {
	_, w := pipeNearlyFull(t, 0)
	r, out, err := os.Pipe() // the child's stdout, silent
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(w, r, ClientConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { c.Close(); out.Close() }()
	base, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	ctx := lateCtx{base, time.Now().Add(50 * time.Millisecond)}
	_, err = c.Call(ctx, "tools/call", map[string]any{"name": "echo"}, &CallOptions{Timeout: 10 * time.Minute})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeRequestTimeout || !errors.Is(je.Cause, context.DeadlineExceeded) || je.Data != nil {
		t.Fatalf("Call into a full pipe past ctx's deadline = %#v; want -32001 caused by context.DeadlineExceeded, without timeoutMs", err)
	}
}
