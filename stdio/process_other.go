//go:build unix && !linux

package stdio

import "syscall"

// sysProcAttr puts the child in a process group of its own, so that a
// launcher and its descendants are signalled together. The caller's other
// attributes are kept.
func sysProcAttr(a *syscall.SysProcAttr) *syscall.SysProcAttr {
	if a == nil {
		a = &syscall.SysProcAttr{}
	}
	a.Setpgid, a.Pgid = true, 0
	return a
}
