// Package workpool runs short functions on goroutines that wait a moment
// for the next one when they are done.
//
// A goroutine starts with a small stack, and a call that goes deep (a
// request through the door, the client and the JSON scanner) grows it by
// copying, every time, on a fresh goroutine. Under load a worker that
// takes the next function keeps the stack the last one grew, as the gRPC
// server's stream workers do. The pool holds no queue: Go hands the
// function to an idle worker or starts a new one, so there are never more
// workers than functions that ran at once, and a worker exits after the
// pool's idle time without work.
package workpool

import "time"

// Pool is a set of idle workers. Its zero value is not usable; use New.
type Pool struct {
	work chan func()
	idle time.Duration
}

// New returns a pool whose workers exit after idle without work.
func New(idle time.Duration) *Pool {
	return &Pool{work: make(chan func()), idle: idle}
}

// Go runs f on an idle worker, or on a new one when none is idle. It never
// waits for a worker.
func (p *Pool) Go(f func()) {
	select {
	case p.work <- f:
	default:
		go p.worker(f)
	}
}

func (p *Pool) worker(f func()) {
	f()
	t := time.NewTimer(p.idle)
	defer t.Stop()
	for {
		select {
		case f = <-p.work:
			f()
			t.Reset(p.idle)
		case <-t.C:
			return
		}
	}
}
