//go:build unix

package server

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

var (
	takeStdout sync.Mutex
	// takenStdout is the protocol output TakeStdout made, nil until then.
	takenStdout *os.File
)

// TakeStdout reserves the process's standard output for the protocol
// (docs/stdio.md, "EOF, cancellation and stdout"). It duplicates file
// descriptor 1 to a new, close-on-exec descriptor, returned as the *os.File
// to give [Serve] as its output, and then points descriptor 1 at standard
// error. From then on a stray fmt.Println, a library writing to os.Stdout,
// or a subprocess inheriting descriptor 1 lands on stderr, and only Serve
// writes protocol lines.
//
// A server binary calls it first thing in main, before anything can
// print, or lets [Run] call it. It may be called once; later calls fail,
// but Run, called after it, serves on the descriptor it returned.
func TakeStdout() (*os.File, error) {
	takeStdout.Lock()
	defer takeStdout.Unlock()
	if takenStdout != nil {
		return nil, errors.New("stdio: TakeStdout: standard output was already taken")
	}
	return takeStdoutLocked()
}

// protocolOutput is Run's output: the descriptor TakeStdout returned when
// it was called already, else one taken now.
func protocolOutput() (*os.File, error) {
	takeStdout.Lock()
	defer takeStdout.Unlock()
	if takenStdout != nil {
		return takenStdout, nil
	}
	return takeStdoutLocked()
}

// takeStdoutLocked takes standard output; takeStdout is held.
func takeStdoutLocked() (*os.File, error) {
	fd, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("stdio: TakeStdout: duplicating stdout: %w", err)
	}
	if err := unix.Dup2(2, 1); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("stdio: TakeStdout: pointing stdout at stderr: %w", err)
	}
	takenStdout = os.NewFile(uintptr(fd), "/dev/stdout (protocol)")
	return takenStdout, nil
}
