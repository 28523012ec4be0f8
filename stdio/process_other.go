//go:build unix && !linux

package stdio

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// sysProcAttr puts the child in a process group of its own, so that a
// launcher and its descendants are signalled together. The caller's other
// attributes are kept.
func sysProcAttr(a *syscall.SysProcAttr, _ bool) *syscall.SysProcAttr {
	if a == nil {
		a = &syscall.SysProcAttr{}
	}
	a.Setpgid, a.Pgid = true, 0
	return a
}

// wrap fails: reapers need Linux (package stdio/reaper), and
// ClientConfig.normalize refuses Reaper before spawn is reached.
func wrap(*exec.Cmd) (*wrapping, error) {
	return nil, errors.New("reapers need Linux")
}

// unread cannot tell how much of a pipe is unread here: ok is false, and
// a probe's clock starts when it is written.
func unread(*os.File) (n int, ok bool) { return 0, false }
