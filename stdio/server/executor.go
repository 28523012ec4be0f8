package server

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/seam"
)

// executor defaults (docs/stdio.md, "Server"; docs/stdio.md,
// "Memory and timing").
const (
	defaultMaxConcurrency = 32
	defaultMaxQueue       = 256
	defaultRequestTimeout = 30 * time.Second

	// workerLinger is how long a worker whose queue ran dry waits for the
	// next job before it exits. Under load every job then starts on a
	// worker whose stack has already grown, instead of on a new goroutine
	// that grows its stack again (the copying was 15% of a small server's
	// CPU at 64 requests in flight); idle, the executor shrinks back to no
	// goroutine within a second.
	workerLinger = time.Second
)

// errExecutorClosed is returned by [executor.Submit] after
// [executor.Close], is the cause of the jobs Close aborts, and is what
// [Serve] returns when an executor supplied by a test closes under it (the
// executor Serve makes is closed only after every request has been
// cancelled).
var errExecutorClosed = errors.New("stdio: executor closed")

// errDeadline is the context cause of a job whose deadline passed; job.OnAbort
// receives context.DeadlineExceeded instead.
var errDeadline = fmt.Errorf("stdio: job deadline: %w", context.DeadlineExceeded)

// executorConfig configures an [executor]. Its zero value means the
// defaults.
type executorConfig struct {
	// MaxConcurrency is the number of jobs that run at once (default 32). A
	// slot frees only when a job's Run returns, whatever happened to its
	// context, so Run goroutines never exceed it. Negative is invalid.
	MaxConcurrency int
	// MaxQueue is the number of admitted jobs that wait, first in first
	// out, for a slot (default 256). Negative means no queue: a job that
	// finds every slot taken is refused.
	MaxQueue int
	// RequestTimeout is a job's deadline, counted from admission so that
	// time spent queued counts, unless [job.Timeout] says otherwise
	// (default 30 s). Negative means none.
	RequestTimeout time.Duration
	// Logger receives jobs that panic, with their stack (default: slog text
	// on os.Stderr).
	Logger *slog.Logger
}

// job is one unit of work for an [executor].
type job struct {
	// Run does the work, in a worker goroutine. Its ctx, derived from the
	// ctx given to Submit, ends at the job's deadline, when the job is
	// cancelled (context.Cause gives the cancel's cause), or when the
	// executor closes (cause errExecutorClosed).
	Run func(ctx context.Context)
	// Timeout overrides executorConfig.RequestTimeout for this job when
	// non-zero; negative means no deadline.
	Timeout time.Duration
	// OnAbort, if set, is called at most once when the job ends without Run
	// finishing in time: with context.DeadlineExceeded when its deadline
	// passes, queued or running (at the deadline, even if Run ignores its
	// ctx); with errExecutorClosed when Close drops or interrupts it; or
	// with an error describing a panic in Run. It is never called after the
	// job's cancel function, nor once Run has returned normally with its
	// ctx still live. It may run on any goroutine and must not block.
	OnAbort func(cause error)
}

// executorStats is a snapshot of an [executor]'s load.
type executorStats struct {
	// Running counts jobs whose Run has not returned, including those whose
	// deadline passed or that were cancelled: they still hold their slot.
	Running int
	// Queued counts admitted jobs waiting for a slot.
	Queued int
}

// executor runs jobs with bounded concurrency, a bounded FIFO queue and a
// per-job deadline counted from admission (docs/stdio.md,
// "Admission, ids and cancellation"). It knows nothing of JSON-RPC or
// stdio, so one executor could serve several connections and transports at
// once. It is safe for concurrent use.
//
// A job is admitted by Submit: it starts at once if a slot is free, waits in
// the queue otherwise, and is refused with seam.ErrCapacity only when every slot
// is taken and the queue is full. Go cannot stop a goroutine, so a slot is
// freed only when its Run returns; a job whose deadline passed or that was
// cancelled keeps its slot until then.
//
// Each running job has a worker goroutine. A worker whose queue ran dry
// lingers for up to a second for the next job, so that a busy executor
// reuses its goroutines; at most MaxConcurrency linger, and Close ends them.
//
// The zero executor is not usable; make one with [newExecutor].
type executor struct {
	maxConcurrency int
	maxQueue       int
	timeout        time.Duration
	log            *slog.Logger

	mu      sync.Mutex
	running int                    // worker goroutines, each running one job
	idle    int                    // worker goroutines waiting for one (workerLinger)
	handoff chan *execTask         // Submit → an idle worker; unbuffered
	queue   list.List              // of *execTask, oldest first
	live    map[*execTask]struct{} // admitted tasks that have not finished
	closed  bool
	closing chan struct{} // closed by Close
	done    chan struct{} // closed when closed and running == idle == 0

	// submitHook lets tests make Submit fail unexpectedly, the Go analogue
	// of an executor that cannot be reached (docs/stdio.md,
	// "Admission, ids and cancellation"; scenario 57).
	submitHook func() error
}

type execTaskState uint8

const (
	taskQueued execTaskState = iota
	taskRunning
	taskFinished
)

// execTask is an admitted job. Its fields after job are guarded by the
// executor's mu.
type execTask struct {
	job    job
	ctx    context.Context
	cancel context.CancelCauseFunc
	// stopTimer releases the deadline's timer; stopWatch unregisters the
	// context.AfterFunc that reports deadlines.
	stopTimer context.CancelFunc
	stopWatch func() bool

	state   execTaskState
	elem    *list.Element // in queue while taskQueued
	aborted bool          // OnAbort called or cancelled: no (further) OnAbort
}

// newExecutor returns an executor configured by cfg. A negative
// MaxConcurrency is an error.
func newExecutor(cfg executorConfig) (*executor, error) {
	if cfg.MaxConcurrency < 0 {
		return nil, fmt.Errorf("stdio: invalid ExecutorConfig: MaxConcurrency is negative (%d)", cfg.MaxConcurrency)
	}
	e := &executor{
		maxConcurrency: cfg.MaxConcurrency,
		maxQueue:       cfg.MaxQueue,
		timeout:        cfg.RequestTimeout,
		log:            cfg.Logger,
		live:           make(map[*execTask]struct{}),
		handoff:        make(chan *execTask),
		closing:        make(chan struct{}),
		done:           make(chan struct{}),
	}
	if e.maxConcurrency == 0 {
		e.maxConcurrency = defaultMaxConcurrency
	}
	switch {
	case e.maxQueue == 0:
		e.maxQueue = defaultMaxQueue
	case e.maxQueue < 0:
		e.maxQueue = 0
	}
	if e.timeout == 0 {
		e.timeout = defaultRequestTimeout
	}
	if e.log == nil {
		e.log = stderrLogger()
	}
	return e, nil
}

func stderrLogger() *slog.Logger { return slog.New(slog.NewTextHandler(os.Stderr, nil)) }

// Limit returns how many jobs the executor holds at most, running and
// queued: MaxConcurrency + MaxQueue. It is the "limit" of capacity refusals.
func (e *executor) Limit() int { return e.maxConcurrency + e.maxQueue }

// Stats returns the current load.
func (e *executor) Stats() executorStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return executorStats{Running: e.running, Queued: e.queue.Len()}
}

// Submit admits j. It returns seam.ErrCapacity when MaxConcurrency jobs
// are running and MaxQueue are waiting, and errExecutorClosed after Close; the
// job is then not kept.
//
// The returned cancel function cancels the job with cause (nil means
// context.Canceled): a queued job is dropped at once and never runs; a
// running job's ctx ends, and its slot frees when Run returns. OnAbort is
// not called for a cancelled job. cancel is idempotent and may be called
// from any goroutine, also after the job has finished.
func (e *executor) Submit(ctx context.Context, j job) (cancel func(cause error), err error) {
	if j.Run == nil {
		return nil, errors.New("stdio: Job.Run is nil")
	}
	if e.submitHook != nil {
		if err := e.submitHook(); err != nil {
			return nil, err
		}
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, errExecutorClosed
	}
	if e.running >= e.maxConcurrency && e.queue.Len() >= e.maxQueue {
		e.mu.Unlock()
		return nil, seam.ErrCapacity
	}
	t := &execTask{job: j, stopTimer: func() {}}
	t.ctx, t.cancel = context.WithCancelCause(ctx)
	timeout := j.Timeout
	if timeout == 0 {
		timeout = e.timeout
	}
	if timeout > 0 {
		t.ctx, t.stopTimer = context.WithTimeoutCause(t.ctx, timeout, errDeadline)
	}
	e.live[t] = struct{}{}
	start := e.running < e.maxConcurrency
	if start {
		e.running++
		t.state = taskRunning
	} else {
		t.state = taskQueued
		t.elem = e.queue.PushBack(t)
	}
	// The watch reports a deadline while the job waits or runs; it takes
	// e.mu, so it cannot act before this Submit has finished.
	t.stopWatch = context.AfterFunc(t.ctx, func() { e.ctxDone(t) })
	e.mu.Unlock()
	if start {
		select {
		case e.handoff <- t: // a lingering worker takes it
		default:
			go e.work(t)
		}
	}
	return func(cause error) { e.cancelTask(t, cause) }, nil
}

// Close stops the executor. It refuses new jobs with errExecutorClosed,
// drops every queued job and cancels every running one, calling their
// OnAbort with errExecutorClosed, and returns without waiting; [executor.Done]
// tells when the last Run has returned. Close is idempotent and returns nil.
func (e *executor) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	close(e.closing)
	var notify []*execTask
	for t := range e.live {
		if t.state == taskQueued {
			e.dropQueued(t)
		}
		if !t.aborted {
			t.aborted = true
			notify = append(notify, t)
		}
	}
	if e.running == 0 && e.idle == 0 { // idle workers leave at closing
		close(e.done)
	}
	e.mu.Unlock()
	for _, t := range notify {
		t.cancel(errExecutorClosed)
		if t.job.OnAbort != nil {
			t.job.OnAbort(errExecutorClosed)
		}
	}
	return nil
}

// Done returns a channel that is closed once Close has been called, every
// running job's Run has returned and every worker goroutine has exited.
func (e *executor) Done() <-chan struct{} { return e.done }

// cancelTask is the cancel function Submit returns.
func (e *executor) cancelTask(t *execTask, cause error) {
	if cause == nil {
		cause = context.Canceled
	}
	e.mu.Lock()
	if t.state == taskQueued {
		e.dropQueued(t)
	}
	t.aborted = true
	e.mu.Unlock()
	t.cancel(cause)
}

// dropQueued removes a queued task for good. e.mu is held.
func (e *executor) dropQueued(t *execTask) {
	e.queue.Remove(t.elem)
	t.elem = nil
	t.state = taskFinished
	delete(e.live, t)
	t.stopWatch()
	t.stopTimer()
}

// ctxDone runs (through context.AfterFunc) when a task's ctx ends before it
// finished: it drops a queued task, and reports a deadline.
func (e *executor) ctxDone(t *execTask) {
	e.mu.Lock()
	if t.state == taskFinished || t.aborted {
		e.mu.Unlock()
		return
	}
	if t.state == taskQueued {
		e.dropQueued(t)
	}
	notify := errors.Is(context.Cause(t.ctx), errDeadline)
	if notify {
		t.aborted = true
	}
	e.mu.Unlock()
	if notify && t.job.OnAbort != nil {
		t.job.OnAbort(context.DeadlineExceeded)
	}
}

// work runs t, then queued tasks, until the queue is empty; then it
// lingers for a job from Submit (see workerLinger). It is the worker
// goroutine, started by Submit; Close ends it, and Done waits for it.
func (e *executor) work(t *execTask) {
	var linger *time.Timer
	defer func() {
		if linger != nil {
			linger.Stop()
		}
	}()
	for t != nil {
		panicErr := e.run(t)
		e.mu.Lock()
		t.state = taskFinished
		delete(e.live, t)
		var notify []abortNotice
		if !t.aborted {
			// Run returned (or panicked) after its deadline or Close ended
			// its ctx and before the watch could report it: report it now,
			// so that OnAbort never goes missing.
			cause := context.Cause(t.ctx)
			switch {
			case panicErr != nil:
				notify = append(notify, abortNotice{t, panicErr})
			case errors.Is(cause, errDeadline):
				notify = append(notify, abortNotice{t, context.DeadlineExceeded})
			case errors.Is(cause, errExecutorClosed):
				notify = append(notify, abortNotice{t, errExecutorClosed})
			}
			t.aborted = true
		}
		next := e.dequeue(&notify)
		wait := false
		if next == nil {
			e.running--
			// At most MaxConcurrency workers linger, so that the
			// goroutines stay within twice that at any moment.
			wait = !e.closed && e.idle < e.maxConcurrency
			if wait {
				e.idle++
			}
			if e.closed && e.running == 0 && e.idle == 0 {
				close(e.done)
			}
		}
		e.mu.Unlock()
		t.stopWatch()
		t.stopTimer()
		t.cancel(context.Canceled)
		for _, n := range notify {
			if n.t.job.OnAbort != nil {
				n.t.job.OnAbort(n.cause)
			}
		}
		t = next
		if wait {
			if linger == nil {
				linger = time.NewTimer(workerLinger)
			} else {
				linger.Reset(workerLinger)
			}
			t = e.linger(linger.C)
		}
	}
}

// linger waits, as one of e.idle, for a job that Submit hands over, until
// expire fires or the executor closes. Submit counted the job as running.
func (e *executor) linger(expire <-chan time.Time) *execTask {
	var t *execTask
	select {
	case t = <-e.handoff:
	case <-expire:
	case <-e.closing:
	}
	e.mu.Lock()
	e.idle--
	if e.closed && e.running == 0 && e.idle == 0 {
		close(e.done)
	}
	e.mu.Unlock()
	return t
}

type abortNotice struct {
	t     *execTask
	cause error
}

// dequeue takes the oldest queued task whose ctx is still live and marks it
// running; tasks that expired in the queue are finished on the way, their
// deadlines added to notify. It returns nil after Close. e.mu is held.
func (e *executor) dequeue(notify *[]abortNotice) *execTask {
	for !e.closed && e.queue.Len() > 0 {
		t := e.queue.Front().Value.(*execTask)
		if t.ctx.Err() == nil {
			e.queue.Remove(t.elem)
			t.elem = nil
			t.state = taskRunning
			return t
		}
		e.dropQueued(t)
		if !t.aborted && errors.Is(context.Cause(t.ctx), errDeadline) {
			t.aborted = true
			*notify = append(*notify, abortNotice{t, context.DeadlineExceeded})
		}
	}
	return nil
}

// run calls t's Run, turning a panic into an error.
func (e *executor) run(t *execTask) (panicErr error) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("stdio: executor job panicked", "panic", r, "stack", string(debug.Stack()))
			panicErr = fmt.Errorf("stdio: job panicked: %v", r)
		}
	}()
	t.job.Run(t.ctx)
	return nil
}
