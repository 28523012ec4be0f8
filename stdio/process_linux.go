package stdio

import "syscall"

// sysProcAttr puts the child in a process group of its own, so that a
// launcher (npx, uvx, a shell) and its descendants are signalled together,
// and asks the kernel to kill it if the process that started it dies
// without stopping it: no child outlives a crashed or SIGKILLed host.
// (Pdeathsig reaches the leader only; a descendant that left the group is
// out of reach by design.) The caller's other attributes are kept.
func sysProcAttr(a *syscall.SysProcAttr) *syscall.SysProcAttr {
	if a == nil {
		a = &syscall.SysProcAttr{}
	}
	a.Setpgid, a.Pgid, a.Pdeathsig = true, 0, syscall.SIGKILL
	return a
}
