// Package dropq is the bounded queue that sits wherever a producer must
// never wait for its consumer: the stdio client's reader handing
// subscription events to a caller, the bridge fanning a child's
// notifications out to gRPC streams. When the queue is full it drops an
// item rather than block, and counts the drop on an item that stays, so
// that the consumer can tell its client how many it missed.
package dropq

// Queue is a bounded FIFO. Its zero value holds nothing and is not usable:
// make one with [New]. A Queue is not safe for concurrent use; its owner
// guards it with a lock of its own, which usually guards more state.
type Queue[T any] struct {
	max    int
	newest bool
	keep   func(T) bool // drop-oldest: items it keeps are dropped last
	items  []Item[T]
}

// Item is one queued value with the drops it stands for.
type Item[T any] struct {
	// V is the value.
	V T
	// Dropped counts the items discarded while this one was queued: just
	// before it when the queue drops the oldest, just after it when it
	// drops the newest. Each drop is counted once.
	Dropped int
}

// New returns a queue of at most limit items (at least 1). When it is
// full, Push discards the oldest item, or with dropNewest the arriving one.
func New[T any](limit int, dropNewest bool) *Queue[T] {
	return &Queue[T]{max: max(limit, 1), newest: dropNewest}
}

// Keep makes a drop-oldest queue drop the items keep reports last: when
// it is full it drops the oldest item keep does not report, and the
// oldest of all only when it reports every one (the stdio client keeps a
// call's log messages over its progress, which is cumulative).
func (q *Queue[T]) Keep(keep func(T) bool) { q.keep = keep }

// Push queues v and reports whether an item was dropped to keep the bound.
func (q *Queue[T]) Push(v T) bool {
	if len(q.items) < q.max {
		q.items = append(q.items, Item[T]{V: v})
		return false
	}
	if q.newest {
		q.items[len(q.items)-1].Dropped++
		return true
	}
	at := 0
	if q.keep != nil {
		for i, it := range q.items {
			if !q.keep(it.V) {
				at = i
				break
			}
		}
	}
	dropped := q.items[at].Dropped + 1
	q.items[at] = Item[T]{} // let the garbage collector have it
	if at == 0 {
		q.items = q.items[1:]
	} else {
		q.items = append(q.items[:at], q.items[at+1:]...)
	}
	it := Item[T]{V: v}
	if at < len(q.items) {
		q.items[at].Dropped += dropped
	} else {
		it.Dropped = dropped
	}
	q.items = append(q.items, it)
	return true
}

// PushCounted queues v as Push does, counting on it n items that were
// discarded just before v upstream, before they reached this queue (a
// fan-out whose own buffer overflowed), so that the consumer learns of
// them as of this queue's own drops. If v is itself discarded, they
// travel as its own drop does: with the new head of a drop-oldest queue,
// on the last item of a drop-newest one, which counts the drops after it.
// In a drop-newest queue that holds room for v, they are counted on the
// item before v, or on v when the queue was empty.
func (q *Queue[T]) PushCounted(v T, n int) bool {
	if n == 0 {
		return q.Push(v)
	}
	if q.newest {
		if len(q.items) > 0 {
			q.items[len(q.items)-1].Dropped += n
			return q.Push(v)
		}
		q.items = append(q.items, Item[T]{V: v, Dropped: n})
		return false
	}
	dropped := q.Push(v)
	q.items[len(q.items)-1].Dropped += n
	return dropped
}

// Pop removes and returns the oldest item; false when the queue is empty.
func (q *Queue[T]) Pop() (Item[T], bool) {
	if len(q.items) == 0 {
		return Item[T]{}, false
	}
	it := q.items[0]
	q.items[0] = Item[T]{}
	q.items = q.items[1:]
	return it, true
}

// Take removes and returns every item, oldest first.
func (q *Queue[T]) Take() []Item[T] {
	items := q.items
	q.items = nil
	return items
}

// Len is the number of items queued.
func (q *Queue[T]) Len() int { return len(q.items) }

// Clear discards every item.
func (q *Queue[T]) Clear() { q.items = nil }
