package stdio

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/mcpbridge/mcpbridge/stdio/internal/lifeline"
)

// sysProcAttr puts the child in a process group of its own, so that a
// launcher (npx, uvx, a shell) and its descendants are signalled together.
// Without a reaper it asks the kernel to kill the child if the process
// that started it dies without stopping it (Pdeathsig), which reaches the
// child only: a descendant that ignores stdin EOF, or left the group,
// survives a crashed or SIGKILLed host. A reaper gets no Pdeathsig: the end
// of its lifeline tells it that the host is gone, and it must live on to
// kill every descendant (package stdio/reaper). The caller's other
// attributes are kept.
func sysProcAttr(a *syscall.SysProcAttr, reaper bool) *syscall.SysProcAttr {
	if a == nil {
		a = &syscall.SysProcAttr{}
	}
	a.Setpgid, a.Pgid, a.Pdeathsig = true, 0, syscall.SIGKILL
	if reaper {
		a.Pdeathsig = 0
	}
	return a
}

// wrap rewrites cmd to run this binary as a reaper that runs cmd's command
// (the protocol is package lifeline's): the same environment with the
// reaper's variable added, the same directory, stdin, stdout, stderr and
// extra files, then the lifeline's read end and the status's write end.
// /proc/self/exe is this binary even after it was replaced or removed on
// disk.
func wrap(cmd *exec.Cmd) (*wrapping, error) {
	lr, lw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	sr, sw, err := os.Pipe()
	if err != nil {
		lr.Close()
		lw.Close()
		return nil, err
	}
	args := cmd.Args
	if len(args) == 0 {
		args = []string{cmd.Path}
	}
	env := cmd.Env
	if env == nil {
		env = cmd.Environ() // what os/exec would give the command
	}
	fd := 3 + len(cmd.ExtraFiles)
	w := &wrapping{path: cmd.Path, lifeline: lw, theirs: []*os.File{lr, sw}, statusR: sr}
	cmd.Env = append(slices.Clip(env), lifeline.Env+"="+strconv.Itoa(fd))
	cmd.ExtraFiles = append(slices.Clip(cmd.ExtraFiles), lr, sw)
	cmd.Args = append([]string{lifeline.Name, cmd.Path}, args...)
	cmd.Path = "/proc/self/exe"
	return w, nil
}

// unread returns how many of the bytes written to the pipe f its reader
// has not taken yet (FIONREAD, alias TIOCINQ, which Linux answers on either end of a
// pipe); ok is false when that cannot be known.
func unread(f *os.File) (n int, ok bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	var ierr error
	if err := rc.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }); err != nil || ierr != nil {
		return 0, false
	}
	return n, true
}
