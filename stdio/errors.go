package stdio

import (
	"fmt"
)

// ExitError is the Cause of the -32000 error that ends a connection whose
// child exited, when its status was known in time.
type ExitError struct {
	// Code is the exit code, or -1 when the child was killed by a signal.
	Code int
	// Signal names the signal that killed the child ("" if it exited).
	Signal string
	// StderrTail holds the last 4 KiB the child wrote to stderr, when
	// stderr went to a writer other than an *os.File.
	StderrTail []byte
	// Fence, when set, names the sandbox fence that ended the child (for
	// example its memory limit): ClientConfig.ExitFence's answer.
	Fence string
}

// Error says how the child ended: its exit code or the signal, and the
// fence that ended it.
func (e *ExitError) Error() string {
	msg := fmt.Sprintf("stdio server exited with status %d", e.Code)
	if e.Signal != "" {
		msg = "stdio server killed by signal " + e.Signal
	}
	if e.Fence != "" {
		msg += " (" + e.Fence + ")"
	}
	return msg
}

// PanicError is the Cause of an error reporting a recovered panic.
type PanicError struct {
	// Value is what the code panicked with.
	Value any
	// Stack is the panicking goroutine's stack trace.
	Stack []byte
}

// Error returns the panic value and the stack trace.
func (p *PanicError) Error() string { return fmt.Sprintf("panic: %v\n%s", p.Value, p.Stack) }
