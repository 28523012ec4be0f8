package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"syscall"
	"time"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// Restart policy (DESIGN.md, The managed child).
const (
	initialBackoff = 100 * time.Millisecond
	maxBackoff     = 30 * time.Second
	healthyAfter   = time.Minute // a child up this long resets the backoff and the crash-loop count
)

// killWait bounds the wait for a child's connection to end after its
// process group got SIGKILL. Only a descendant that left the group (and so
// is out of reach) can hold the child's stdout that long.
const killWait = 5 * time.Second

// settleWait bounds how long a call that failed on a dead child waits for
// the supervisor to act on the death (see retryAfter). run acts at once, so
// this is only a guard against a bug turning into a hung call.
const settleWait = time.Second

// process is the part of a child's connection the supervisor manages:
// *stdio.Client in the bridge, a fake in the timing tests.
type process interface {
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

// child is one negotiated child process.
type child struct {
	client    *stdio.Client // what calls use; nil only for a fake process in tests
	proc      process       // its life cycle: client itself, or a fake
	startedAt time.Time
	relay     *relay // its server requests, notifications and streams (serverreq.go)
}

// supervisor owns the child of one fronted server: it starts and
// negotiates it, restarts it with exponential backoff after it dies, gives
// up after a crash loop, and stops it gracefully.
//
// Its state changes in one place, setState, under mu; every change closes
// the changed channel, which is how acquire and retryAfter wait for one.
// The goroutines it starts (run, the stop watcher and one escalation per
// child it retires) are counted in wg; stop waits for all of them, so once
// stop returns every process the supervisor started is gone.
type supervisor struct {
	name   string
	cfg    ServerConfig
	log    *slog.Logger
	health func(serving bool) // called with mu held; must not call back

	// startChild starts and negotiates a child: s.start, or a fake in the
	// timing tests. ctx ends when stop is called.
	startChild func(ctx context.Context) (*child, error)

	stopCh chan struct{} // closed by stop
	done   chan struct{} // closed when run and every escalation returned
	wg     sync.WaitGroup

	mu        sync.Mutex
	state     mcpbridgev1.ChildState
	current   *child        // the READY child; nil in every other state
	changed   chan struct{} // closed and replaced at every state change
	restarts  uint32
	lastExit  string
	lastErr   error     // why the last start failed; nil after a good start
	nextStart time.Time // the next start attempt, while RESTARTING
}

// newSupervisor starts supervising the server described by cfg: its first
// child starts at once.
func newSupervisor(name string, cfg ServerConfig, log *slog.Logger, health func(bool)) *supervisor {
	s := makeSupervisor(name, cfg, log, health)
	s.startChild = s.start
	s.launch()
	return s
}

// makeSupervisor returns a supervisor that has not started yet; launch
// starts it.
func makeSupervisor(name string, cfg ServerConfig, log *slog.Logger, health func(bool)) *supervisor {
	return &supervisor{
		name: name, cfg: cfg, log: log.With("server", name), health: health,
		stopCh: make(chan struct{}), done: make(chan struct{}),
		state: mcpbridgev1.ChildState_CHILD_STATE_STARTING, changed: make(chan struct{}),
	}
}

// launch starts run; stop stops it.
func (s *supervisor) launch() {
	s.wg.Add(1)
	go s.run()
	go func() {
		s.wg.Wait()
		close(s.done)
	}()
}

// setState changes the state; s.mu must be held. It wakes everyone waiting
// for a change and reports health: SERVING exactly while READY.
func (s *supervisor) setState(st mcpbridgev1.ChildState, c *child) {
	s.state, s.current = st, c
	close(s.changed)
	s.changed = make(chan struct{})
	if s.health != nil {
		s.health(st == mcpbridgev1.ChildState_CHILD_STATE_READY)
	}
}

// stopping reports whether stop has been called.
func (s *supervisor) stopping() bool {
	select {
	case <-s.stopCh:
		return true
	default:
		return false
	}
}

// run is the life cycle: start, serve until the connection ends, back off,
// start again, until stop or a crash loop. Started by launch; it returns
// once stop is called, after stopping the child it runs.
func (s *supervisor) run() {
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.wg.Add(1)
	go func() { // ends a start in progress when stop is called
		defer s.wg.Done()
		select {
		case <-s.stopCh:
			cancel()
		case <-ctx.Done():
		}
	}()

	backoff := initialBackoff
	failures := 0 // consecutive failed starts and crashes
	for {
		c, err := s.startChild(ctx)
		if s.stopping() {
			s.mu.Lock()
			s.setState(mcpbridgev1.ChildState_CHILD_STATE_STOPPING, nil)
			s.mu.Unlock()
			if c != nil {
				s.escalate(c.proc)
			}
			return
		}
		var exit string
		if err != nil {
			exit = describeExit(err)
			s.log.Error("mcpbridge: starting the server failed", "error", err)
		} else {
			s.mu.Lock()
			s.lastErr = nil
			s.setState(mcpbridgev1.ChildState_CHILD_STATE_READY, c)
			s.mu.Unlock()
			s.log.Info("mcpbridge: server ready", "pid", c.proc.Pid(), "protocol", c.protocol())
			select {
			case <-c.proc.Closed():
			case <-s.stopCh:
				s.mu.Lock()
				s.setState(mcpbridgev1.ChildState_CHILD_STATE_STOPPING, nil)
				s.mu.Unlock()
				s.escalate(c.proc)
				return
			}
			exit = describeExit(c.proc.Err())
			s.log.Warn("mcpbridge: server exited", "pid", c.proc.Pid(), "exit", exit)
			s.wg.Add(1)
			go func() { // make sure the old process group is gone
				defer s.wg.Done()
				s.escalate(c.proc)
			}()
			if time.Since(c.startedAt) >= healthyAfter {
				backoff, failures = initialBackoff, 0
			}
		}
		failures++

		// One state change from READY (or STARTING) to RESTARTING or
		// FAILED, so that a call that saw the child die reads the state
		// that follows it (retryAfter).
		s.mu.Lock()
		s.lastExit, s.lastErr = exit, err
		if failures > s.cfg.MaxRestarts {
			s.setState(mcpbridgev1.ChildState_CHILD_STATE_FAILED, nil)
			s.mu.Unlock()
			s.log.Error("mcpbridge: server is crash-looping; not restarting it", "failures", failures)
			<-s.stopCh
			return
		}
		s.nextStart = time.Now().Add(backoff)
		s.setState(mcpbridgev1.ChildState_CHILD_STATE_RESTARTING, nil)
		s.mu.Unlock()

		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-s.stopCh:
			t.Stop()
			s.mu.Lock()
			s.setState(mcpbridgev1.ChildState_CHILD_STATE_STOPPING, nil)
			s.mu.Unlock()
			return
		}
		backoff = min(2*backoff, maxBackoff)
		s.mu.Lock()
		s.restarts++
		s.setState(mcpbridgev1.ChildState_CHILD_STATE_STARTING, nil)
		s.mu.Unlock()
	}
}

// start spawns and negotiates a child. Children that negotiation retires
// (a probe may taint one) are stopped in the background.
func (s *supervisor) start(ctx context.Context) (*child, error) {
	var started []*stdio.Client
	relays := map[*stdio.Client]*relay{}
	spawn := func(ctx context.Context) (*stdio.Client, error) {
		stderr := newStderrLog(s.log)
		r := newRelay(s.name, &s.cfg, s.log)
		c, err := stdio.Start(ctx, s.cfg.command(stderr), r.hook(s.cfg.client(s.log)))
		if err != nil {
			stderr.started(0)
			return nil, err
		}
		stderr.started(c.Pid())
		started = append(started, c)
		relays[c] = r
		return c, nil
	}
	c, err := stdio.Connect(ctx, spawn, s.cfg.connect())
	for _, old := range started {
		if err == nil && old == c {
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.escalate(old)
		}()
	}
	if err != nil {
		return nil, err
	}
	relays[c].attach(c) // only now: Connect sets the era unsynchronised
	return &child{client: c, proc: c, startedAt: time.Now(), relay: relays[c]}, nil
}

// protocol is the negotiated version, for logs.
func (c *child) protocol() string {
	if c.client == nil {
		return ""
	}
	return c.client.Protocol()
}

// escalate stops a child as DESIGN.md says: close its stdin, wait the grace
// period, SIGTERM its process group, wait the grace period again, SIGKILL
// the group. Once the child is gone it sends the group one more SIGKILL,
// for descendants that outlived it. It is bounded in time: after SIGKILL
// it waits at most killWait.
func (s *supervisor) escalate(p process) {
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

// describeExit renders how a connection ended, or why a start failed, for
// GetServer and logs. It never includes paths or stderr.
func describeExit(err error) string {
	var x *stdio.ExitError
	switch {
	case errors.As(err, &x) && x.Signal != "":
		return "signal: " + x.Signal
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

// acquire returns the ready child, waiting while one starts, or fails with
// -32000 (UNAVAILABLE): with RetryInfo while the child restarts, without it
// after a crash loop or while stopping.
func (s *supervisor) acquire(ctx context.Context) (*child, error) {
	for {
		s.mu.Lock()
		state, c, changed, next, lastErr := s.state, s.current, s.changed, s.nextStart, s.lastErr
		s.mu.Unlock()
		switch state {
		case mcpbridgev1.ChildState_CHILD_STATE_READY:
			return c, nil
		case mcpbridgev1.ChildState_CHILD_STATE_STARTING:
			select {
			case <-changed:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case mcpbridgev1.ChildState_CHILD_STATE_RESTARTING:
			msg := "The MCP server is restarting"
			if lastErr != nil {
				msg = "The MCP server could not be started; retrying"
			}
			return nil, &callError{rpc: jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "%s", msg),
				server: s.name, retryAfter: max(time.Until(next), time.Millisecond)}
		case mcpbridgev1.ChildState_CHILD_STATE_FAILED:
			return nil, &callError{rpc: jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "The MCP server kept exiting and is not restarted"), server: s.name}
		default:
			return nil, &callError{rpc: jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "The MCP server is stopping"), server: s.name}
		}
	}
}

// retryAfter is the RetryInfo delay for a call that failed because the
// child's connection ended: the time until the next start attempt while
// the supervisor restarts the child, and 0 (no RetryInfo) when it will not
// (a crash loop, stopping) or when the child is in fact alive (it answered
// -32000 itself, or the call ran on a child already replaced).
//
// A call sees the connection end as early as run does, so it may find the
// dead child still READY; it then waits for run to act on the death, which
// run does at once (bounded by settleWait).
func (s *supervisor) retryAfter() time.Duration {
	var guard <-chan time.Time
	for {
		s.mu.Lock()
		state, c, changed, next := s.state, s.current, s.changed, s.nextStart
		s.mu.Unlock()
		switch state {
		case mcpbridgev1.ChildState_CHILD_STATE_RESTARTING:
			return max(time.Until(next), time.Millisecond)
		case mcpbridgev1.ChildState_CHILD_STATE_STARTING:
			return time.Millisecond // a retry waits for the start in progress
		case mcpbridgev1.ChildState_CHILD_STATE_READY:
			select {
			case <-c.proc.Closed():
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

// info describes the child for GetServer.
func (s *supervisor) info() (*mcpbridgev1.Child, *child) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := &mcpbridgev1.Child{State: s.state, Restarts: s.restarts, LastExit: s.lastExit}
	if s.current != nil {
		ch.Pid = int32(s.current.proc.Pid())
		ch.StartedAt = timestamp(s.current.startedAt)
	}
	return ch, s.current
}

// stop stops the child gracefully and waits until every process the
// supervisor started is gone. It is idempotent and safe for concurrent
// use; it takes at most about two grace periods plus killWait.
func (s *supervisor) stop() {
	s.mu.Lock()
	if !s.stopping() {
		close(s.stopCh)
	}
	s.mu.Unlock()
	<-s.done
}
