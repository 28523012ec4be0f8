package dropq

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestDropOldest(t *testing.T) {
	q := New[int](2, false)
	for i := 1; i <= 5; i++ {
		if dropped := q.Push(i); dropped != (i > 2) {
			t.Errorf("Push(%d) dropped = %v, want %v", i, dropped, i > 2)
		}
	}
	// 1, 2 and 3 were dropped in turn; the drops travel with the head.
	want := []Item[int]{{V: 4, Dropped: 3}, {V: 5}}
	if diff := cmp.Diff(want, q.Take()); diff != "" {
		t.Errorf("Take (-want +got):\n%s", diff)
	}
	if q.Len() != 0 {
		t.Errorf("Len after Take = %d", q.Len())
	}
}

func TestDropOldestOfOne(t *testing.T) {
	q := New[string](1, false)
	q.Push("a")
	q.Push("b")
	q.Push("c")
	it, ok := q.Pop()
	if !ok || it != (Item[string]{V: "c", Dropped: 2}) {
		t.Errorf("Pop = %+v, %v; want c with 2 dropped", it, ok)
	}
	if _, ok := q.Pop(); ok {
		t.Error("Pop on an empty queue reported an item")
	}
}

func TestDropNewest(t *testing.T) {
	q := New[int](1, true)
	for i := 1; i <= 3; i++ {
		q.Push(i)
	}
	it, _ := q.Pop()
	if it != (Item[int]{V: 1, Dropped: 2}) {
		t.Errorf("Pop = %+v, want 1 with 2 dropped after it", it)
	}
}

// The queue never holds more than its bound, however much is pushed.
func TestBounded(t *testing.T) {
	for _, newest := range []bool{false, true} {
		t.Run(fmt.Sprint("newest=", newest), func(t *testing.T) {
			q := New[int](64, newest)
			total := 0
			for i := range 10000 {
				q.Push(i)
				if q.Len() > 64 {
					t.Fatalf("Len = %d after %d pushes", q.Len(), i+1)
				}
			}
			for _, it := range q.Take() {
				total += 1 + it.Dropped
			}
			if total != 10000 {
				t.Errorf("kept plus dropped = %d, want 10000", total)
			}
		})
	}
}

// Drops counted upstream travel with the item that follows them, and on
// with the next head when that item is discarded in turn.
func TestPushCounted(t *testing.T) {
	q := New[int](2, false)
	q.Push(1)
	q.PushCounted(2, 3) // three dropped upstream between 1 and 2
	want := []Item[int]{{V: 1}, {V: 2, Dropped: 3}}
	if diff := cmp.Diff(want, q.Take()); diff != "" {
		t.Errorf("Take (-want +got):\n%s", diff)
	}
	q.PushCounted(1, 2)
	q.Push(2)
	q.Push(3) // discards 1, which stood for 2 more
	q.Push(4) // discards 2
	want = []Item[int]{{V: 3, Dropped: 4}, {V: 4}}
	if diff := cmp.Diff(want, q.Take()); diff != "" {
		t.Errorf("Take after discarding a counted item (-want +got):\n%s", diff)
	}

	n := New[int](2, true)
	n.Push(1)
	n.PushCounted(2, 3) // after 1
	n.PushCounted(3, 1) // after 2; 3 itself is discarded after 2 too
	want = []Item[int]{{V: 1, Dropped: 3}, {V: 2, Dropped: 2}}
	if diff := cmp.Diff(want, n.Take()); diff != "" {
		t.Errorf("drop-newest Take (-want +got):\n%s", diff)
	}
}

// TestKeep: a drop-oldest queue that keeps some items drops the oldest of
// the others, counting the drop on the item that takes its place, and the
// oldest of all only when it keeps every one.
func TestKeep(t *testing.T) {
	q := New[string](3, false)
	q.Keep(func(v string) bool { return v[0] == 'L' })
	for _, v := range []string{"L1", "p1", "L2", "p2"} {
		q.Push(v)
	}
	want := []Item[string]{{V: "L1"}, {V: "L2", Dropped: 1}, {V: "p2"}}
	if diff := cmp.Diff(want, q.Take()); diff != "" {
		t.Errorf("after p1 was dropped (-want +got):\n%s", diff)
	}
	for _, v := range []string{"L1", "L2", "L3", "L4"} {
		q.Push(v)
	}
	want = []Item[string]{{V: "L2", Dropped: 1}, {V: "L3"}, {V: "L4"}}
	if diff := cmp.Diff(want, q.Take()); diff != "" {
		t.Errorf("a queue of kept items (-want +got):\n%s", diff)
	}
}

// TestSignalled: a push fires the signal once however many came, and Take
// hands over everything queued.
func TestSignalled(t *testing.T) {
	s := NewSignalled[int](2, false)
	select {
	case <-s.C():
		t.Fatal("the signal fired with nothing queued")
	default:
	}
	for i := 1; i <= 3; i++ {
		s.Push(i)
	}
	select {
	case <-s.C():
	default:
		t.Fatal("no signal after three pushes")
	}
	select {
	case <-s.C():
		t.Fatal("a second signal for the same pushes")
	default:
	}
	want := []Item[int]{{V: 2, Dropped: 1}, {V: 3}}
	if diff := cmp.Diff(want, s.Take()); diff != "" {
		t.Errorf("Take (-want +got):\n%s", diff)
	}
	s.Wake()
	select {
	case <-s.C():
	default:
		t.Fatal("no signal after Wake")
	}
}
