// Package lifeline is the protocol between a stdio client and the reaper
// it runs a command under (package stdio/reaper): how the client starts
// the reaper, and how the reaper reports the command's start.
//
// The client runs its own binary (/proc/self/exe) with the variable [Env]
// set to the number of the lifeline descriptor, L, and the argv
// [Name, path, args...]: the command's resolved path, then its argv. The
// descriptors are the command's own (0, 1, 2 and its extra files, 3 up to
// L-1), then L, the read end of the lifeline pipe, and L+1, the write end
// of the status pipe. The client keeps the lifeline's write end: the
// reaper reads end of file on L once the client has closed it or died.
// The reaper writes one status line on L+1 (see [WriteStarted],
// [WriteFailed] and [ReadStatus]) and closes it.
//
// Both ends are the same binary, so the protocol has no versions.
package lifeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// Env is the variable that makes a process a reaper. Its value is the
// lifeline descriptor's number. The name is reserved: the reaper removes
// it from the command's environment.
const Env = "MCPBRIDGE_REAPER"

// Name is the reaper's argv[0], which process listings show.
const Name = "mcpbridge-reaper"

var available atomic.Bool

// SetAvailable records that this binary can act as a reaper: reaper.Main
// was called in this process.
func SetAvailable() { available.Store(true) }

// Available reports whether SetAvailable was called.
func Available() bool { return available.Load() }

// WriteStarted reports that the command started as process pid.
func WriteStarted(w io.Writer, pid int) error {
	_, err := fmt.Fprintf(w, "started %d\n", pid)
	return err
}

// WriteFailed reports that the command could not be started: err is the
// errno of its exec (another error is sent as EINVAL).
func WriteFailed(w io.Writer, err error) error {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		errno = syscall.EINVAL
	}
	_, werr := fmt.Fprintf(w, "failed %d\n", int(errno))
	return werr
}

// StartError is what [ReadStatus] returns when the reaper could not start
// the command.
type StartError struct {
	// Errno is the error of the command's exec.
	Errno syscall.Errno
}

func (e *StartError) Error() string { return "reaper: starting the command: " + e.Errno.Error() }

// ReadStatus reads the reaper's status line: the command's pid, a
// *StartError, or another error when the reaper went away without a
// status (io.ErrUnexpectedEOF) or r failed.
func ReadStatus(r io.Reader) (int, error) {
	var buf [64]byte
	n := 0
	for {
		m, err := r.Read(buf[n:])
		n += m
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return parseStatus(string(buf[:i]))
		}
		switch {
		case err == io.EOF:
			return 0, io.ErrUnexpectedEOF
		case err != nil:
			return 0, err
		case n == len(buf):
			return 0, fmt.Errorf("reaper: status line too long: %q", buf[:n])
		}
	}
}

func parseStatus(line string) (int, error) {
	word, num, _ := strings.Cut(line, " ")
	v, err := strconv.Atoi(num)
	switch {
	case err != nil || v <= 0:
	case word == "started":
		return v, nil
	case word == "failed":
		return 0, &StartError{Errno: syscall.Errno(v)}
	}
	return 0, fmt.Errorf("reaper: bad status line %q", line)
}
