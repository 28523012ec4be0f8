package dropq

import "sync"

// Signalled is a Queue behind a lock of its own, with a one-slot signal:
// the one shape in which the project hands items from a producer that
// must never wait (the stdio client's reader) to a consumer on another
// goroutine (a call waiting for its progress, a subscription's reader, a
// gRPC stream's handler). The producer pushes and the signal fires; the
// consumer waits on C and takes what is queued. Its owner may guard state
// of its own with the same lock (Lock, Unlock), and then reaches the
// queue with Q while it holds it.
type Signalled[T any] struct {
	sync.Mutex
	q      Queue[T]
	signal chan struct{}
}

// NewSignalled returns an empty signalled queue of at most limit items,
// dropping as New does.
func NewSignalled[T any](limit int, dropNewest bool) *Signalled[T] {
	return &Signalled[T]{q: Queue[T]{max: max(limit, 1), newest: dropNewest}, signal: make(chan struct{}, 1)}
}

// Q is the queue; the caller holds the lock.
func (s *Signalled[T]) Q() *Queue[T] { return &s.q }

// C fires after a Push or a Wake; one pending signal stands for any number
// of them, so a consumer takes everything queued when it fires.
func (s *Signalled[T]) C() <-chan struct{} { return s.signal }

// Wake fires the signal without queuing anything: the owner's own state
// changed (a stream ended).
func (s *Signalled[T]) Wake() {
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// Push queues v under the lock, dropping by the queue's policy, and
// fires the signal.
func (s *Signalled[T]) Push(v T) {
	s.Lock()
	s.q.Push(v)
	s.Unlock()
	s.Wake()
}

// PushCounted is Push with n drops upstream counted on v
// (Queue.PushCounted).
func (s *Signalled[T]) PushCounted(v T, n int) {
	s.Lock()
	s.q.PushCounted(v, n)
	s.Unlock()
	s.Wake()
}

// Take removes and returns everything queued, oldest first.
func (s *Signalled[T]) Take() []Item[T] {
	s.Lock()
	defer s.Unlock()
	return s.q.Take()
}
