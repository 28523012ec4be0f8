package testkit

import (
	"syscall"
	"testing"
	"time"
)

// Child is a child process as a test stops it: a *stdio.Client, or
// anything else that can close the child's stdin and signal its process
// group.
type Child interface {
	// Close closes the child's stdin (an MCP server exits at EOF).
	Close() error
	// Done is closed once the child has been reaped.
	Done() <-chan struct{}
	// Signal signals the child's process group.
	Signal(syscall.Signal) error
	// Pid is the child's process id.
	Pid() int
}

// StopChild stops a child as a host does: close its stdin, wait grace,
// SIGTERM its process group, wait grace, SIGKILL, and a last SIGKILL for
// descendants left in the group. It fails tb when the child is still there
// a minute after SIGKILL.
func StopChild(tb testing.TB, c Child, grace time.Duration) {
	tb.Helper()
	c.Close()
	defer c.Signal(syscall.SIGKILL) // descendants left in the group
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t := time.NewTimer(grace)
		select {
		case <-c.Done():
			t.Stop()
			return
		case <-t.C:
		}
		c.Signal(sig)
	}
	t := time.NewTimer(time.Minute)
	defer t.Stop()
	select {
	case <-c.Done():
	case <-t.C:
		tb.Errorf("child %d still running a minute after SIGKILL", c.Pid())
	}
}
