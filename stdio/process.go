package stdio

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// stderrTailBytes is how much of the child's stderr is kept for ExitError.
const stderrTailBytes = 4 << 10

// tailWriter forwards everything to w and keeps the last 4 KiB. exec.Cmd's
// copier goroutine is its only writer; Tail may be read concurrently.
type tailWriter struct {
	w    io.Writer
	mu   sync.Mutex
	tail []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	keep := p
	if len(keep) > stderrTailBytes {
		keep = keep[len(keep)-stderrTailBytes:]
	}
	t.tail = append(t.tail, keep...)
	if over := len(t.tail) - stderrTailBytes; over > 0 {
		t.tail = append(t.tail[:0], t.tail[over:]...)
	}
	t.mu.Unlock()
	if t.w != nil {
		// A failing destination must not stall the child: stderr output is
		// never a failure, so errors are dropped and the pipe kept drained.
		_, _ = t.w.Write(p)
	}
	return len(p), nil
}

func (t *tailWriter) Tail() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.tail...)
}

// waitDelay bounds how long Wait waits for descendants that still hold the
// child's stderr after it exited.
const waitDelay = 2 * time.Second

// spawn starts cmd with package-made pipes (os.Pipe pairs, so that the
// waiter may call Wait at once without closing the read end under the
// reader) and returns the parent's ends: the child's stdin (to write) and
// stdout (to read). It sets what a managed child needs: its own process
// group, and death with its parent where the kernel offers it
// (sysProcAttr), and a WaitDelay when cmd has none.
func spawn(cmd *exec.Cmd) (stdin, stdout *os.File, tail *tailWriter, err error) {
	switch {
	case cmd.Process != nil:
		return nil, nil, nil, startFailed(errors.New("exec: already started"))
	case cmd.Stdin != nil || cmd.Stdout != nil:
		return nil, nil, nil, startFailed(errors.New("exec: Stdin or Stdout already set"))
	}
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = waitDelay
	}
	cmd.SysProcAttr = sysProcAttr(cmd.SysProcAttr)
	if w := cmd.Stderr; w != nil {
		if _, ok := w.(*os.File); !ok {
			tail = &tailWriter{w: w}
			cmd.Stderr = tail
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, startFailed(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, nil, startFailed(err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	// The child holds its own copies now; ours would keep the pipes open.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, exec.ErrNotFound) {
			return nil, nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Executable not found", Cause: err}
		}
		return nil, nil, nil, startFailed(err)
	}
	return inW, outR, tail, nil
}

func startFailed(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Could not start the stdio server", Cause: err}
}

// exitError describes a reaped child.
func exitError(state *os.ProcessState, tail *tailWriter) *ExitError {
	e := &ExitError{Code: state.ExitCode()}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		e.Code = -1
		e.Signal = ws.Signal().String()
	}
	if tail != nil {
		e.StderrTail = tail.Tail()
	}
	return e
}
