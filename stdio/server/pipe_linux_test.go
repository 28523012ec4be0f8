package server

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fillPipe leaves the pipe written by w full, without taking it out of the
// runtime poller (Fd would): it shrinks the pipe to one page and writes
// exactly its capacity.
func fillPipe(tb testing.TB, w *os.File) {
	tb.Helper()
	rc, err := w.SyscallConn()
	if err != nil {
		tb.Fatal(err)
	}
	size := 0
	if cerr := rc.Control(func(fd uintptr) {
		if _, err = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, os.Getpagesize()); err == nil {
			size, err = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0)
		}
	}); cerr != nil || err != nil {
		tb.Fatalf("resizing the pipe: %v, %v", cerr, err)
	}
	if _, err := w.Write(make([]byte, size)); err != nil {
		tb.Fatalf("filling the pipe: %v", err)
	}
}

// TestServeOSPipeDeadlines runs scenario 81 over real pipes, which accept
// deadlines: Serve then unblocks its own reader and writer, so nothing
// outlives it, and it leaves no deadline behind on the caller's files.
func TestServeOSPipeDeadlines(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	defer outW.Close()
	fillPipe(t, outW) // Serve's first write blocks

	const writeTimeout = 200 * time.Millisecond
	errc := make(chan error, 1)
	go func() {
		errc <- Serve(context.Background(), newFakeRuntime(), inR, outW, Config{WriteTimeout: writeTimeout, Logger: quietLogger})
	}()
	start := time.Now()
	io.WriteString(inW, `{bad`+"\n")
	select {
	case err := <-errc:
		if !errors.Is(err, ErrWriteTimeout) {
			t.Errorf("Serve = %v, want a write timeout", err)
		}
	case <-time.After(serveWait):
		t.Fatalf("Serve did not return within %v", serveWait)
	}
	if d := time.Since(start); d > writeTimeout+5*time.Second { // generous: real pipes on a loaded machine
		t.Errorf("Serve returned after %v", d)
	}
	// No reader of Serve's is left on inR, and no deadline either.
	io.WriteString(inW, "mine\n")
	buf := make([]byte, 5)
	if _, err := io.ReadFull(inR, buf); err != nil || string(buf) != "mine\n" {
		t.Errorf("reading the input after Serve: %q, %v", buf, err)
	}
	// The write deadline is gone too: drain the pipe and write again.
	go io.Copy(io.Discard, outR)
	if _, err := outW.Write([]byte("x")); err != nil {
		t.Errorf("writing the output after Serve: %v", err)
	}
}
