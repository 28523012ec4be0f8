package stdio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/internal/lifeline"
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

// spawned is what spawn started: the parent's ends of the child's pipes,
// and what the Client keeps of the child.
type spawned struct {
	stdin  *os.File // the child's stdin, to write
	stdout *os.File // the child's stdout, to read
	tail   *tailWriter
	pid    int // the command's process id
	pgid   int // its process group: the reaper's pid under a reaper, else pid
	// lifeline is the write end of the reaper's lifeline; nil without a
	// reaper.
	lifeline *os.File
}

// spawn starts cmd with package-made pipes (os.Pipe pairs, so that the
// waiter may call Wait at once without closing the read end under the
// reader) and returns the parent's ends. It sets what a managed child
// needs: its own process group, and death with its parent where the kernel
// offers it (sysProcAttr), and a WaitDelay when cmd has none. With reaper
// set it runs cmd under a reaper (package stdio/reaper) and waits, within
// ctx, until the reaper has started the command.
func spawn(ctx context.Context, cmd *exec.Cmd, reaper bool) (*spawned, error) {
	switch {
	case cmd.Process != nil:
		return nil, startFailed(errors.New("exec: already started"))
	case cmd.Stdin != nil || cmd.Stdout != nil:
		return nil, startFailed(errors.New("exec: Stdin or Stdout already set"))
	}
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = waitDelay
	}
	var w *wrapping
	if reaper {
		var err error
		if w, err = wrap(cmd); err != nil {
			return nil, startFailed(err)
		}
	}
	cmd.SysProcAttr = sysProcAttr(cmd.SysProcAttr, reaper)
	var tail *tailWriter
	if e := cmd.Stderr; e != nil {
		if _, ok := e.(*os.File); !ok {
			tail = &tailWriter{w: e}
			cmd.Stderr = tail
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		w.abort()
		return nil, startFailed(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		w.abort()
		return nil, startFailed(err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	// The child holds its own copies now; ours would keep the pipes open.
	inR.Close()
	outW.Close()
	w.started()
	if err != nil {
		inW.Close()
		outR.Close()
		w.abort()
		return nil, startError(err)
	}
	s := &spawned{stdin: inW, stdout: outR, tail: tail, pid: cmd.Process.Pid, pgid: cmd.Process.Pid}
	if w != nil {
		if s.pid, err = w.status(ctx); err != nil {
			// The reaper started nothing, or ends what it started once the
			// lifeline is closed; reaping it leaves nothing behind.
			w.abort()
			if ctx.Err() != nil {
				syscall.Kill(-s.pgid, syscall.SIGKILL) // a reaper that hangs
			}
			_ = cmd.Wait()
			inW.Close()
			outR.Close()
			if ctx.Err() != nil {
				return nil, startFailed(ctx.Err())
			}
			var se *lifeline.StartError
			if errors.As(err, &se) {
				// What os/exec returns for the same failure in the client.
				return nil, startError(&fs.PathError{Op: "fork/exec", Path: w.path, Err: se.Errno})
			}
			return nil, startFailed(fmt.Errorf("reaper: %w (%v)", err, cmd.ProcessState))
		}
		s.lifeline = w.lifeline
	}
	return s, nil
}

// startError is the error of a command that could not be started.
func startError(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, exec.ErrNotFound) {
		return &jsonrpc.Error{Code: jsonrpc.CodeConnectionClosed, Message: "Executable not found", Cause: err}
	}
	return startFailed(err)
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

// wrapping is a command rewritten by wrap to run under a reaper, from
// before its start until the reaper reported the command's. Its methods
// do nothing on a nil wrapping (no reaper).
type wrapping struct {
	path     string     // the command's path
	lifeline *os.File   // the lifeline's write end, which the Client keeps
	theirs   []*os.File // the reaper's ends: the lifeline's read end, the status's write end
	statusR  *os.File
}

// started closes the parent's copies of the reaper's ends once cmd.Start
// returned: the reaper holds its own, or was not started.
func (w *wrapping) started() {
	if w == nil {
		return
	}
	for _, f := range w.theirs {
		f.Close()
	}
	w.theirs = nil
}

// abort closes what is left of the wrapping; with the lifeline closed, a
// started reaper kills the command, if it started it, and exits.
func (w *wrapping) abort() {
	if w == nil {
		return
	}
	w.started()
	w.lifeline.Close()
	w.statusR.Close()
}

// status waits, within ctx, for the reaper's report: the command's pid,
// or why it could not be started (docs/stdio.md, "Reapers").
func (w *wrapping) status(ctx context.Context) (int, error) {
	stop := context.AfterFunc(ctx, func() { w.statusR.SetReadDeadline(time.Unix(1, 0)) })
	pid, err := lifeline.ReadStatus(w.statusR)
	stop()
	w.statusR.Close()
	return pid, err
}
