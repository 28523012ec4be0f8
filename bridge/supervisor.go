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
	healthyAfter   = time.Minute // a child up this long resets the backoff
)

// child is one negotiated child process.
type child struct {
	client    *stdio.Client
	startedAt time.Time
	relay     *relay // its server requests, notifications and streams (serverreq.go)
}

// supervisor owns the children of one fronted server: it starts and
// negotiates a child, restarts it with exponential backoff after it dies,
// gives up after a crash loop, and stops it gracefully. Its run goroutine
// is started by newSupervisor and stopped by stop.
type supervisor struct {
	name   string
	cfg    ServerConfig
	log    *slog.Logger
	health func(serving bool)

	stopCh chan struct{} // closed by stop
	done   chan struct{} // closed when run and every escalation returned
	wg     sync.WaitGroup

	mu        sync.Mutex
	state     mcpbridgev1.ChildState
	current   *child
	changed   chan struct{} // closed and replaced at every state change
	restarts  uint32
	lastExit  string
	lastErr   error
	nextStart time.Time
}

func newSupervisor(name string, cfg ServerConfig, log *slog.Logger, health func(bool)) *supervisor {
	s := &supervisor{
		name: name, cfg: cfg, log: log.With("server", name), health: health,
		stopCh: make(chan struct{}), done: make(chan struct{}),
		state: mcpbridgev1.ChildState_CHILD_STATE_STARTING, changed: make(chan struct{}),
	}
	s.wg.Add(1)
	go s.run()
	go func() {
		s.wg.Wait()
		close(s.done)
	}()
	return s
}

// setState changes the state under s.mu and wakes everyone waiting for a
// change.
func (s *supervisor) setState(st mcpbridgev1.ChildState, c *child) {
	s.state, s.current = st, c
	close(s.changed)
	s.changed = make(chan struct{})
	if s.health != nil {
		s.health(st == mcpbridgev1.ChildState_CHILD_STATE_READY)
	}
}

// run is the life cycle: start, serve until the connection ends, back off,
// start again, until stop or a crash loop.
func (s *supervisor) run() {
	defer s.wg.Done()
	backoff := initialBackoff
	failures := 0
	for {
		c, err := s.start()
		if err != nil {
			s.log.Error("mcpbridge: starting the server failed", "error", err)
			s.mu.Lock()
			s.lastErr = err
			s.mu.Unlock()
		} else {
			s.mu.Lock()
			s.lastErr = nil
			s.setState(mcpbridgev1.ChildState_CHILD_STATE_READY, c)
			s.mu.Unlock()
			s.log.Info("mcpbridge: server ready", "pid", c.client.Pid(), "protocol", c.client.Protocol())
			select {
			case <-c.client.Closed():
			case <-s.stopCh:
				s.mu.Lock()
				s.setState(mcpbridgev1.ChildState_CHILD_STATE_STOPPING, nil)
				s.mu.Unlock()
				s.escalate(c.client, s.cfg.Grace)
				return
			}
			exit := describeExit(c.client.Err())
			s.log.Warn("mcpbridge: server exited", "pid", c.client.Pid(), "exit", exit)
			s.wg.Add(1)
			go func() { // make sure the old process group is gone
				defer s.wg.Done()
				s.escalate(c.client, s.cfg.Grace)
			}()
			s.mu.Lock()
			s.lastExit = exit
			s.mu.Unlock()
			if time.Since(c.startedAt) >= healthyAfter {
				backoff, failures = initialBackoff, 0
			}
		}
		failures++
		if failures > s.cfg.MaxRestarts {
			s.log.Error("mcpbridge: server is crash-looping; not restarting it", "failures", failures)
			s.mu.Lock()
			s.setState(mcpbridgev1.ChildState_CHILD_STATE_FAILED, nil)
			s.mu.Unlock()
			<-s.stopCh
			return
		}
		s.mu.Lock()
		s.nextStart = time.Now().Add(backoff)
		s.setState(mcpbridgev1.ChildState_CHILD_STATE_RESTARTING, nil)
		s.mu.Unlock()
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-s.stopCh:
			t.Stop()
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
func (s *supervisor) start() (*child, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.stopCh:
			cancel()
		case <-ctx.Done():
		}
	}()
	var started []*stdio.Client
	relays := map[*stdio.Client]*relay{}
	spawn := func(ctx context.Context) (*stdio.Client, error) {
		r := newRelay(s.name, &s.cfg, s.log)
		c, err := stdio.Start(ctx, r.hook(s.cfg.client(s.log)))
		if err == nil {
			started = append(started, c)
			relays[c] = r
		}
		return c, err
	}
	c, err := stdio.Connect(ctx, spawn, s.cfg.connect())
	for _, old := range started {
		if err == nil && old == c {
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.escalate(old, s.cfg.Grace)
		}()
	}
	if err != nil {
		return nil, err
	}
	relays[c].attach(c) // only now: Connect sets the era unsynchronised
	return &child{client: c, startedAt: time.Now(), relay: relays[c]}, nil
}

// escalate stops a child as MCP asks (MCP.md §6): close its stdin, wait the
// grace period, SIGTERM its process group, wait again, SIGKILL, and once
// the leader is reaped one more group SIGKILL for descendants.
func (s *supervisor) escalate(c *stdio.Client, grace time.Duration) {
	c.Close()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t := time.NewTimer(grace)
		select {
		case <-c.Done():
			t.Stop()
			c.Signal(syscall.SIGKILL) // descendants left in the group
			return
		case <-t.C:
		}
		s.log.Warn("mcpbridge: server did not exit; signalling its process group", "pid", c.Pid(), "signal", sig.String())
		c.Signal(sig)
	}
	<-c.Done()
	c.Signal(syscall.SIGKILL)
}

// describeExit renders how a connection ended, for GetServer and logs.
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
		return err.Error()
	}
	return ""
}

// acquire returns the ready child, waiting while one starts, or fails with
// -32000 (UNAVAILABLE) while it restarts or after a crash loop.
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
		default:
			return nil, &callError{rpc: jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "The MCP server is not running"), server: s.name}
		}
	}
}

// retryAfter is how long until the next start attempt while restarting.
func (s *supervisor) retryAfter() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != mcpbridgev1.ChildState_CHILD_STATE_RESTARTING && s.state != mcpbridgev1.ChildState_CHILD_STATE_STARTING {
		return 0
	}
	return max(time.Until(s.nextStart), time.Millisecond)
}

// info describes the child for GetServer.
func (s *supervisor) info() (*mcpbridgev1.Child, *child) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := &mcpbridgev1.Child{State: s.state, Restarts: s.restarts, LastExit: s.lastExit}
	if s.current != nil {
		ch.Pid = int32(s.current.client.Pid())
		ch.StartedAt = timestamp(s.current.startedAt)
	}
	return ch, s.current
}

// stop stops the child gracefully and waits for every process the
// supervisor started to be gone.
func (s *supervisor) stop() {
	select {
	case <-s.stopCh:
	default:
		close(s.stopCh)
	}
	<-s.done
}
