//go:build unix && !linux

package stdio

import "syscall"

// sysProcAttr puts the child in a process group of its own, so that a
// launcher and its descendants are signalled together.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
