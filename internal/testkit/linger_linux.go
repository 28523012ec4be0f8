package testkit

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Linger is the fixture of a launcher's grandchild that outlives its
// launcher: it ignores stdin EOF and SIGTERM, SIGHUP and SIGINT, leaves
// the process group (setsid) when LINGER_SETSID is "true", writes
// "linger <pid>" on stderr and runs until SIGKILL. The reaper tests of
// stdio and cmd/mcpbridge use it.
func Linger() int {
	if os.Getenv("LINGER_SETSID") == "true" {
		if _, err := syscall.Setsid(); err != nil {
			fmt.Fprintln(os.Stderr, "linger: setsid:", err)
			return 1
		}
	}
	signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	fmt.Fprintln(os.Stderr, "linger", os.Getpid())
	io.Copy(io.Discard, os.Stdin) // EOF changes nothing
	for {
		time.Sleep(time.Hour)
	}
}
