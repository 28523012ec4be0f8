package dropq

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

var errClosed = errors.New("closed")

func closedErr() error { return errClosed }

func cancelled(ctx context.Context) error { return context.Cause(ctx) }

// TestStream: what is queued comes before the end, unless the end
// discards it; nothing is queued after the end; Close answers closed at
// once and says whether it was still open; Next waits for a push and
// gives way to its context.
func TestStream(t *testing.T) {
	ctx := t.Context()
	s := NewStream[int](2, false)
	s.PushLive(1)
	s.PushLive(2)
	s.End(io.EOF, false)
	s.PushLive(3) // after the end: dropped
	s.End(errors.New("second"), true)
	for _, want := range []int{1, 2} {
		if it, err := s.Next(ctx, closedErr, cancelled); err != nil || it.V != want {
			t.Fatalf("Next = %v, %v; want %d", it.V, err, want)
		}
	}
	if _, err := s.Next(ctx, closedErr, cancelled); err != io.EOF {
		t.Errorf("Next at the end = %v, want the first end, io.EOF", err)
	}
	if first, open := s.Close(); !first || open {
		t.Errorf("Close of an ended stream = %v, %v; want the first, not open", first, open)
	}
	if first, _ := s.Close(); first {
		t.Error("a second Close is the first")
	}
	if _, err := s.Next(ctx, closedErr, cancelled); err != errClosed {
		t.Errorf("Next after Close = %v, want closed", err)
	}

	d := NewStream[int](4, false)
	d.PushLive(1)
	d.End(io.ErrUnexpectedEOF, true)
	if _, err := d.Next(ctx, closedErr, cancelled); err != io.ErrUnexpectedEOF {
		t.Errorf("Next after a discarding end = %v, want the end", err)
	}
	if err, ended := d.CloseIfEnded(); !ended || err != io.ErrUnexpectedEOF {
		t.Errorf("CloseIfEnded of an ended stream = %v, %v", err, ended)
	}

	o := NewStream[int](4, false)
	if _, ended := o.CloseIfEnded(); ended {
		t.Error("CloseIfEnded of an open stream says ended")
	}
	if first, open := o.Close(); !first || !open {
		t.Errorf("Close of an open stream = %v, %v; want the first, open", first, open)
	}
	a := NewStream[int](4, false)
	a.PushLive(1)
	a.Abort(io.ErrClosedPipe)
	if _, err := a.Next(ctx, closedErr, cancelled); err != errClosed {
		t.Errorf("Next after Abort = %v, want closed", err)
	}

	w := NewStream[int](4, false)
	got := make(chan int, 1)
	go func() {
		it, _ := w.Next(ctx, closedErr, cancelled)
		got <- it.V
	}()
	w.PushLive(7)
	select {
	case v := <-got:
		if v != 7 {
			t.Errorf("a waiting Next got %d, want 7", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a waiting Next never woke")
	}
	cctx, cancel := context.WithCancelCause(ctx)
	cancel(errors.New("gone"))
	if _, err := w.Next(cctx, closedErr, cancelled); err == nil || err.Error() != "gone" {
		t.Errorf("Next with an ended context = %v, want its cause", err)
	}
}
