package dropq

import "context"

// Stream is a Signalled queue that ends: the events of a subscription,
// pushed by a producer that must never wait and taken by one reader
// (stdio.Subscription, and the HTTP adapter's own listens on a raw
// connection). It ends once, with an error (io.EOF for a normal end), after
// which the reader still gets what was queued unless the end discarded
// it; Close ends it for the reader at once. Its state is guarded by the
// Signalled lock, which the owner may share for state of its own.
type Stream[T any] struct {
	*Signalled[T]
	ended  bool
	endErr error
	closed bool
}

// NewStream returns an open stream of at most limit queued items,
// dropping as New does.
func NewStream[T any](limit int, dropNewest bool) *Stream[T] {
	return &Stream[T]{Signalled: NewSignalled[T](limit, dropNewest)}
}

// PushLive queues v, by the queue's policy, unless the stream has ended.
func (s *Stream[T]) PushLive(v T) {
	s.Lock()
	if s.ended {
		s.Unlock()
		return
	}
	s.q.Push(v)
	s.Unlock()
	s.Wake()
}

// End ends the stream with err, unless it has ended already; discard
// drops what is queued.
func (s *Stream[T]) End(err error, discard bool) {
	s.Lock()
	if s.ended {
		s.Unlock()
		return
	}
	s.ended, s.endErr = true, err
	if discard {
		s.q.Clear()
	}
	s.Unlock()
	s.Wake()
}

// Close ends the stream for its reader: what is queued is dropped and Next
// answers closed from then on. first is false when it was closed already;
// open reports that it had not ended before (so that the other side must
// be told).
func (s *Stream[T]) Close() (first, open bool) {
	s.Lock()
	if s.closed {
		s.Unlock()
		return false, false
	}
	open = !s.ended
	s.closed, s.ended = true, true
	s.q.Clear()
	s.Unlock()
	s.Wake()
	return true, open
}

// Abort ends and closes the stream with err: one that failed before its
// reader had it.
func (s *Stream[T]) Abort(err error) {
	s.Lock()
	s.ended, s.closed, s.endErr = true, true, err
	s.q.Clear()
	s.Unlock()
}

// CloseIfEnded closes a stream that has ended, and returns its end; ok is
// false while it is open. It is how a waiter for the stream's start learns
// that it ended first.
func (s *Stream[T]) CloseIfEnded() (err error, ok bool) {
	s.Lock()
	defer s.Unlock()
	if !s.ended {
		return nil, false
	}
	s.closed = true
	s.q.Clear()
	return s.endErr, true
}

// Next returns the next queued item, waiting for one: closed() once Close
// has run, the stream's end error once it has ended and nothing is left,
// cancelled(ctx) when ctx ends first. One reader at a time.
func (s *Stream[T]) Next(ctx context.Context, closed func() error, cancelled func(context.Context) error) (Item[T], error) {
	for {
		s.Lock()
		switch {
		case s.closed:
			s.Unlock()
			return Item[T]{}, closed()
		case s.q.Len() > 0:
			it, _ := s.q.Pop()
			s.Unlock()
			return it, nil
		case s.ended:
			err := s.endErr
			s.Unlock()
			return Item[T]{}, err
		}
		s.Unlock()
		select {
		case <-s.C():
		case <-ctx.Done():
			return Item[T]{}, cancelled(ctx)
		}
	}
}
