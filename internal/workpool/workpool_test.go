package workpool

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain fails the package when a worker outlives its idle time.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A worker that finished takes the next function: the functions run one
// after another on one goroutine, whose stack stays grown.
func TestWorkerTakesTheNextFunction(t *testing.T) {
	p := New(200 * time.Millisecond)
	var ids []uint64
	for i := range 5 {
		done := make(chan uint64, 1)
		f := func() { done <- goid() }
		if i == 0 {
			p.Go(f)
		} else {
			handToIdle(t, p, f)
		}
		select {
		case id := <-done:
			ids = append(ids, id)
		case <-time.After(10 * time.Second):
			t.Fatal("the function did not run within 10 s")
		}
	}
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Fatalf("functions ran on goroutines %v, want one worker", ids)
		}
	}
	waitGone(t)
}

// Go never waits: with every worker busy it starts another, so 16
// functions that block until all 16 have started all run.
func TestGoNeverWaits(t *testing.T) {
	p := New(10 * time.Millisecond)
	release := make(chan struct{})
	var running, ran sync.WaitGroup
	const n = 16
	running.Add(n)
	ran.Add(n)
	for range n {
		p.Go(func() {
			running.Done()
			<-release
			ran.Done()
		})
	}
	waitOrFail(t, &running, "16 functions did not all start while the others were blocked")
	close(release)
	waitOrFail(t, &ran, "the functions did not finish")
	waitGone(t)
}

// handToIdle gives f to a worker that is idle, waiting (bounded) for one
// to be, as Go does when a worker is back in time.
func handToIdle(t *testing.T, p *Pool, f func()) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case p.work <- f:
			return
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no worker was idle within 10 s")
		}
		runtime.Gosched()
	}
}

// waitGone waits, bounded, until the idle workers have exited: the pool
// leaves no goroutine behind.
func waitGone(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := goleak.Find()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("workers still running 10 s after their idle time: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitOrFail(t *testing.T, wg *sync.WaitGroup, msg string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal(msg)
	}
}

// goid is the running goroutine's id, from its stack's header line.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	var id uint64
	for _, c := range b[len("goroutine "):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
