// Package supervisor keeps one child process of a fronted server running:
// it starts it, restarts it with exponential backoff after it dies, gives
// up after a crash loop, and stops it with escalating signals. It knows
// nothing of what the child is for: the bridge hands it a start function
// and asks it for the ready child ([Supervisor.Acquire]) for every call.
//
// The restart policy is docs/operations.md's: a failed start or a crash
// waits 100 ms before the next start, doubling up to 30 s; a child that
// stayed up a minute resets the backoff and the count. After MaxRestarts
// failures in a row the circuit opens: the server is Failed, calls fail at
// once, and one start is tried every MaxBackoff (the circuit half-opens),
// so that a server that would work again is found without a restart of the
// bridge. Stopping closes the child's stdin, waits the grace period, sends
// SIGTERM to its process group, waits again, then SIGKILL.
package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Defaults of the restart policy (Config).
const (
	DefaultInitialBackoff = 100 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
	DefaultHealthyAfter   = time.Minute
)

// killWait bounds the wait for a child's connection to end after its
// process group got SIGKILL. Only a descendant that left the group (and so
// is out of reach) can hold the child's stdout that long.
const killWait = 5 * time.Second

// settleWait bounds how long a call that failed on a dead child waits for
// the supervisor to act on the death (see RetryAfter). The supervisor acts
// at once, so this is only a guard against a bug turning into a hung call.
const settleWait = time.Second

// Process is one started child as the supervisor manages it: a
// *stdio.Client, or anything that wraps one (a fake in tests).
type Process interface {
	// Pid is the child's process id.
	Pid() int
	// Closed is closed once the connection ended: the child exited or
	// closed its output, or Close was called.
	Closed() <-chan struct{}
	// Done is closed once the child has been reaped and its output closed.
	Done() <-chan struct{}
	// Err says why the connection ended.
	Err() error
	// Close fails the calls in flight and closes the child's stdin.
	Close() error
	// Signal signals the child's process group.
	Signal(syscall.Signal) error
}

// State is where a supervised server is in its life cycle.
type State int

// The states. A supervisor starts in Starting; Stopping is final.
const (
	// Starting: a child is being started and negotiated.
	Starting State = iota + 1
	// Ready: a child serves calls.
	Ready
	// Restarting: the last child died or failed to start; the next start
	// waits for the backoff.
	Restarting
	// Failed: the crash-loop limit was reached (the circuit is open);
	// one start is tried every MaxBackoff, in Starting again.
	Failed
	// Stopping: Stop was called.
	Stopping
)

var stateNames = map[State]string{Starting: "starting", Ready: "ready", Restarting: "restarting", Failed: "failed", Stopping: "stopping"}

// String names the state.
func (s State) String() string {
	if n, ok := stateNames[s]; ok {
		return n
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Config says how to supervise one server's child.
type Config[P Process] struct {
	// Start starts and negotiates a child. ctx ends when Stop is called.
	// A process it started but does not return (one a failed negotiation
	// retired) goes to retire, which stops it in the background; Stop
	// waits for it.
	Start func(ctx context.Context, retire func(Process)) (P, error)
	// Grace is how long a stopping child gets after its stdin closes, and
	// again after SIGTERM (required).
	Grace time.Duration
	// MaxRestarts is the crash-loop limit (required): the next failure
	// after this many restarts in a row leaves the server Failed.
	MaxRestarts int
	// InitialBackoff is the wait before the first restart after a failure;
	// it doubles with each failure in a row up to MaxBackoff, which is also
	// the wait between the starts tried while Failed. HealthyAfter is how
	// long a child must stay up to reset the backoff and the count.
	// Defaults: 100 ms, 30 s, 1 min.
	InitialBackoff, MaxBackoff, HealthyAfter time.Duration
	// Health, when set, is told whether the server is Ready at every state
	// change. It is called with the supervisor's lock held and must not
	// call back.
	Health func(ready bool)
	// Permanent, when set, tells a start error that retrying cannot cure
	// (a command that does not exist or cannot be executed): the server
	// goes Failed at once, and a start is still tried every MaxBackoff.
	Permanent func(error) bool
	// Logger receives the life cycle's events (required).
	Logger *slog.Logger
	// LastWords, when set, returns the last lines the server wrote to
	// stderr; a failed start and an exit are logged with them, at Error
	// and Warn, so that a crash's cause is in the log whatever its level.
	LastWords func() []string
}

// Status is a snapshot of a supervised server.
type Status[P Process] struct {
	// State is the life-cycle state.
	State State
	// Child is the ready child; the zero P in every other state.
	Child P
	// StartedAt is when the ready child finished starting.
	StartedAt time.Time
	// Restarts counts the starts after the first.
	Restarts uint32
	// LastExit says how the last child ended or why the last start
	// failed: "exit status 3", "signal: killed", a start error's message.
	// It never holds paths or stderr.
	LastExit string
	// Changed is closed at the next state change, for whoever waits for
	// one.
	Changed <-chan struct{}
}

// UnavailableError is why Acquire has no child to give: the server is
// restarting or failed (RetryAfter is when the next start is due), or
// stopping (RetryAfter is 0: no start is scheduled).
type UnavailableError struct {
	State      State
	Message    string
	RetryAfter time.Duration
	// Cause is why the last start failed, while restarting after one.
	Cause error
}

func (e *UnavailableError) Error() string { return e.Message }

// Unwrap returns Cause.
func (e *UnavailableError) Unwrap() error { return e.Cause }

// Supervisor owns the child of one fronted server. It is safe for
// concurrent use.
//
// Its state changes in one place, setState, under mu; every change closes
// the changed channel, which is how Acquire and RetryAfter wait for one.
// The goroutines it starts (run, the stop watcher and one escalation per
// child it retires) are counted in wg; Stop waits for all of them, so once
// Stop returns every process the supervisor started is gone.
type Supervisor[P Process] struct {
	cfg Config[P]
	log *slog.Logger

	stopCh chan struct{} // closed by Stop
	done   chan struct{} // closed when run and every escalation returned
	wg     sync.WaitGroup

	mu        sync.Mutex
	state     State
	current   P             // the Ready child; the zero P in every other state
	startedAt time.Time     // when current finished starting
	changed   chan struct{} // closed and replaced at every state change
	restarts  uint32
	lastExit  string
	lastErr   error     // why the last start failed; nil after a good start
	nextStart time.Time // the next start attempt, while Restarting or Failed
}

// New starts supervising: the first child starts at once.
func New[P Process](cfg Config[P]) *Supervisor[P] {
	if cfg.InitialBackoff <= 0 {
		cfg.InitialBackoff = DefaultInitialBackoff
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	cfg.MaxBackoff = max(cfg.MaxBackoff, cfg.InitialBackoff)
	if cfg.HealthyAfter <= 0 {
		cfg.HealthyAfter = DefaultHealthyAfter
	}
	s := &Supervisor[P]{
		cfg: cfg, log: cfg.Logger,
		stopCh: make(chan struct{}), done: make(chan struct{}),
		state: Starting, changed: make(chan struct{}),
	}
	s.wg.Add(1)
	go s.run()
	go func() {
		s.wg.Wait()
		close(s.done)
	}()
	return s
}

// setState changes the state; s.mu must be held. It wakes everyone waiting
// for a change and reports health: ready exactly while Ready.
func (s *Supervisor[P]) setState(st State, c P) {
	s.state, s.current = st, c
	close(s.changed)
	s.changed = make(chan struct{})
	if s.cfg.Health != nil {
		s.cfg.Health(st == Ready)
	}
}

// stopping reports whether Stop has been called.
func (s *Supervisor[P]) stopping() bool {
	select {
	case <-s.stopCh:
		return true
	default:
		return false
	}
}

// retire stops a process in the background; Stop waits for it.
func (s *Supervisor[P]) retire(p Process) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.escalate(p)
	}()
}

// run is the life cycle: start, serve until the connection ends, back off,
// start again, until Stop. Started by New; it returns once Stop is called,
// after stopping the child it runs.
func (s *Supervisor[P]) run() {
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.wg.Add(1)
	go func() { // ends a start in progress when Stop is called
		defer s.wg.Done()
		select {
		case <-s.stopCh:
			cancel()
		case <-ctx.Done():
		}
	}()

	var none P
	backoff := s.cfg.InitialBackoff
	failures := 0 // consecutive failed starts and crashes
	for {
		c, err := s.cfg.Start(ctx, s.retire)
		started := time.Now()
		if s.stopping() {
			s.mu.Lock()
			s.setState(Stopping, none)
			s.mu.Unlock()
			if err == nil {
				s.escalate(c)
			}
			return
		}
		var exit string
		if err != nil {
			exit = describeExit(err)
			s.log.Error("mcpbridge: starting the server failed", "error", err, "stderr", s.lastWords())
			if s.cfg.Permanent != nil && s.cfg.Permanent(err) {
				failures = s.cfg.MaxRestarts // no restarts: straight to Failed
			}
		} else {
			s.mu.Lock()
			s.lastErr = nil
			s.startedAt = started
			s.setState(Ready, c)
			s.mu.Unlock()
			attrs := []any{"pid", c.Pid()}
			if p, ok := any(c).(interface{ Protocol() string }); ok {
				attrs = append(attrs, "protocol", p.Protocol())
			}
			s.log.Info("mcpbridge: server ready", attrs...)
			select {
			case <-c.Closed():
			case <-s.stopCh:
				s.mu.Lock()
				s.setState(Stopping, none)
				s.mu.Unlock()
				s.escalate(c)
				return
			}
			exit = describeExit(c.Err())
			s.log.Warn("mcpbridge: server exited", "pid", c.Pid(), "exit", exit, "stderr", s.lastWords())
			s.retire(c) // make sure the old process group is gone
			if time.Since(started) >= s.cfg.HealthyAfter {
				backoff, failures = s.cfg.InitialBackoff, 0
			}
		}
		failures++

		// One state change from Ready (or Starting) to Restarting or
		// Failed, so that a call that saw the child die reads the state
		// that follows it (RetryAfter). Past the crash-loop limit the
		// circuit is open: Failed, and a start every MaxBackoff.
		wait, next := backoff, Restarting
		if failures > s.cfg.MaxRestarts {
			wait, next = s.cfg.MaxBackoff, Failed
		}
		s.mu.Lock()
		s.lastExit, s.lastErr = exit, err
		s.nextStart = time.Now().Add(wait)
		s.setState(next, none)
		s.mu.Unlock()
		if next == Failed {
			s.log.Error("mcpbridge: server is crash-looping; trying again at intervals", "failures", failures, "interval", wait.String())
		}

		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-s.stopCh:
			t.Stop()
			s.mu.Lock()
			s.setState(Stopping, none)
			s.mu.Unlock()
			return
		}
		backoff = min(2*backoff, s.cfg.MaxBackoff)
		s.mu.Lock()
		s.restarts++
		s.setState(Starting, none)
		s.mu.Unlock()
	}
}

// escalate stops a child: close its stdin, wait the grace period, SIGTERM
// its process group, wait the grace period again, SIGKILL the group. Once
// the child is gone it sends the group one more SIGKILL, for descendants
// that outlived it. It is bounded in time: after SIGKILL it waits at most
// killWait.
func (s *Supervisor[P]) escalate(p Process) {
	p.Close()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t := time.NewTimer(s.cfg.Grace)
		select {
		case <-p.Done():
			t.Stop()
			p.Signal(syscall.SIGKILL) // descendants left in the group
			return
		case <-t.C:
		}
		s.log.Warn("mcpbridge: server did not exit; signalling its process group", "pid", p.Pid(), "signal", sig.String())
		p.Signal(sig)
	}
	t := time.NewTimer(killWait)
	defer t.Stop()
	select {
	case <-p.Done():
		p.Signal(syscall.SIGKILL)
	case <-t.C:
		s.log.Error("mcpbridge: server output still open after SIGKILL; a descendant outside its process group holds it", "pid", p.Pid())
	}
}

// lastWords is Config.LastWords' answer, or nil.
func (s *Supervisor[P]) lastWords() []string {
	if s.cfg.LastWords == nil {
		return nil
	}
	return s.cfg.LastWords()
}

// describeExit renders how a connection ended, or why a start failed, for
// Status and logs. It never includes paths or stderr.
func describeExit(err error) string {
	var x *stdio.ExitError
	switch {
	case errors.As(err, &x) && x.Signal != "" && x.Fence != "":
		return "signal: " + x.Signal + " (" + x.Fence + ")"
	case errors.As(err, &x) && x.Signal != "":
		return "signal: " + x.Signal
	case errors.As(err, &x) && x.Fence != "":
		return fmt.Sprintf("exit status %d (%s)", x.Code, x.Fence)
	case errors.As(err, &x):
		return fmt.Sprintf("exit status %d", x.Code)
	case err != nil:
		var e *jsonrpc.Error
		if errors.As(err, &e) {
			return e.Message
		}
		return "start failed"
	}
	return ""
}

// Acquire returns the ready child, waiting while one starts (until ctx
// ends: then ctx.Err()). In every other state it fails at once with an
// *UnavailableError: with a RetryAfter while the child restarts or the
// circuit is open, without one while stopping.
func (s *Supervisor[P]) Acquire(ctx context.Context) (P, error) {
	var none P
	for {
		s.mu.Lock()
		state, c, changed, next, lastErr := s.state, s.current, s.changed, s.nextStart, s.lastErr
		s.mu.Unlock()
		switch state {
		case Ready:
			return c, nil
		case Starting:
			select {
			case <-changed:
				continue
			case <-ctx.Done():
				return none, ctx.Err()
			}
		case Restarting:
			msg := "The MCP server is restarting"
			if lastErr != nil {
				msg = "The MCP server could not be started" + because(lastErr) + "; retrying"
			}
			return none, &UnavailableError{State: state, Message: msg, RetryAfter: max(time.Until(next), time.Millisecond), Cause: lastErr}
		case Failed:
			return none, &UnavailableError{State: state, Message: "The MCP server kept exiting" + because(lastErr) + "; it is tried again at intervals",
				RetryAfter: max(time.Until(next), time.Millisecond), Cause: lastErr}
		default:
			return none, &UnavailableError{State: state, Message: "The MCP server is stopping"}
		}
	}
}

// because is why a start failed, for a caller: " (the server did not
// complete the handshake in time)", from the JSON-RPC error of the stdio
// client, whose messages are fixed texts (its cause, which may hold paths
// or stderr, stays out); "" for any other error.
func because(err error) string {
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Message == "" {
		return ""
	}
	msg := e.Message
	if r := msg[0]; 'A' <= r && r <= 'Z' && (len(msg) < 2 || msg[1] < 'A' || msg[1] > 'Z') {
		msg = string(r+'a'-'A') + msg[1:] // "The server …", not an acronym
	}
	return " (" + msg + ")"
}

// RetryAfter is the delay to advertise to a call that failed because the
// child's connection ended: the time until the next start attempt while
// the supervisor restarts the child or the circuit is open, and 0 (no
// retry) while stopping or when the child is in fact alive (it answered
// -32000 itself, or the call ran on a child already replaced).
//
// A call sees the connection end as early as the supervisor does, so it
// may find the dead child still Ready; it then waits for the supervisor to
// act on the death, which it does at once (bounded by settleWait).
func (s *Supervisor[P]) RetryAfter() time.Duration {
	var guard <-chan time.Time
	for {
		s.mu.Lock()
		state, c, changed, next := s.state, s.current, s.changed, s.nextStart
		s.mu.Unlock()
		switch state {
		case Restarting, Failed:
			return max(time.Until(next), time.Millisecond)
		case Starting:
			return time.Millisecond // a retry waits for the start in progress
		case Ready:
			select {
			case <-c.Closed():
			default:
				return 0
			}
			if guard == nil {
				t := time.NewTimer(settleWait)
				defer t.Stop()
				guard = t.C
			}
			select {
			case <-changed:
			case <-guard:
				return 0
			}
		default:
			return 0
		}
	}
}

// Status describes the server now. It never waits.
func (s *Supervisor[P]) Status() Status[P] {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status[P]{State: s.state, Child: s.current, Restarts: s.restarts, LastExit: s.lastExit, Changed: s.changed}
	if s.state == Ready {
		st.StartedAt = s.startedAt
	}
	return st
}

// Stop stops the child gracefully and waits until every process the
// supervisor started is gone. It is idempotent and safe for concurrent
// use; it takes at most about two grace periods plus killWait.
func (s *Supervisor[P]) Stop() {
	s.mu.Lock()
	if !s.stopping() {
		close(s.stopCh)
	}
	s.mu.Unlock()
	<-s.done
}
