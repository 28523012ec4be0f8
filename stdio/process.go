package stdio

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// EnvVar is one change to the child's environment: set Name to Value, or
// remove Name when Unset is true.
type EnvVar struct {
	// Name is the variable's name.
	Name string
	// Value is its value, when it is set.
	Value string
	// Unset removes Name from the child's environment instead.
	Unset bool
}

// childEnv applies changes in order over base; the last entry for a name
// wins.
func childEnv(base []string, changes []EnvVar) []string {
	if len(changes) == 0 {
		return base
	}
	env := make([]string, 0, len(base)+len(changes))
	drop := make(map[string]bool, len(changes))
	for _, c := range changes {
		drop[c.Name] = true
	}
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !drop[name] {
			env = append(env, kv)
		}
	}
	final := make(map[string]EnvVar, len(changes))
	var order []string
	for _, c := range changes {
		if _, seen := final[c.Name]; !seen {
			order = append(order, c.Name)
		}
		final[c.Name] = c
	}
	for _, name := range order {
		if c := final[name]; !c.Unset {
			env = append(env, name+"="+c.Value)
		}
	}
	return env
}

// resolvePath finds the executable as STDIO.md §3.1 says: absolute paths as
// given, bare names on PATH, relative paths with a separator against dir.
func resolvePath(path, dir string) (string, error) {
	switch {
	case filepath.IsAbs(path):
	case strings.ContainsRune(path, filepath.Separator):
		if dir != "" {
			path = filepath.Join(dir, path)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", err
		}
		path = abs
	default:
		found, err := exec.LookPath(path)
		if err != nil {
			return "", err
		}
		path = found
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", &fs.PathError{Op: "exec", Path: path, Err: fs.ErrNotExist}
	}
	return path, nil
}

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

// spawn starts the child with package-made pipes and returns the parent's
// ends: the child's stdin (to write) and stdout (to read).
func spawn(cfg *ClientConfig) (cmd *exec.Cmd, stdin, stdout *os.File, tail *tailWriter, err error) {
	path, err := resolvePath(cfg.Path, cfg.Dir)
	if err != nil {
		return nil, nil, nil, nil, &Error{Code: CodeConnectionClosed, Message: "Executable not found", Cause: err}
	}
	cmd = exec.Command(path, cfg.Args...)
	cmd.Args[0] = cfg.Path
	cmd.Dir = cfg.Dir
	cmd.Env = childEnv(os.Environ(), cfg.Env)
	cmd.WaitDelay = waitDelay
	cmd.SysProcAttr = sysProcAttr()
	switch w := cfg.Stderr.(type) {
	case nil:
		cmd.Stderr = os.Stderr
	case *os.File:
		cmd.Stderr = w
	default:
		tail = &tailWriter{w: w}
		cmd.Stderr = tail
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, nil, startFailed(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, nil, nil, startFailed(err)
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
			return nil, nil, nil, nil, &Error{Code: CodeConnectionClosed, Message: "Executable not found", Cause: err}
		}
		return nil, nil, nil, nil, startFailed(err)
	}
	return cmd, inW, outR, tail, nil
}

func startFailed(err error) error {
	return &Error{Code: CodeConnectionClosed, Message: "Could not start the stdio server", Cause: err}
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
