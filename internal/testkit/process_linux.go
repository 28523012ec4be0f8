package testkit

import (
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Pidfd opens a pidfd for pid, which must be alive, so that a test can
// wait for processes that are not its children (a fixture's grandchild, a
// child of the bridge). The cleanup closes it.
func Pidfd(tb testing.TB, pid int) int {
	tb.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		tb.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	tb.Cleanup(func() { unix.Close(fd) })
	return fd
}

// Exited waits up to wait for the process behind the pidfd fd to exit (a
// zombie counts: it runs no more) and reports whether it has.
func Exited(tb testing.TB, fd int, wait time.Duration) bool {
	tb.Helper()
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(wait.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			tb.Fatalf("poll(pidfd): %v", err)
		}
		return n == 1
	}
}
