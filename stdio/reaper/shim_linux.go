package reaper

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/mcpbridge/mcpbridge/stdio/internal/lifeline"
)

const supported = true

// caught are the signals that would end or stop the reaper when its
// process group is sent them. The reaper catches them (a caught signal's
// handler is reset for the command at exec, an ignored one would not be)
// and lets the command, which got the same group signal, decide.
var caught = []os.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGUSR1,
	syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU,
}

// run is the reaper (the package comment says what it does); fdText is
// the lifeline's descriptor number. It never returns.
func run(fdText string) {
	// The command's Pdeathsig is tied to the thread that starts it; this
	// one runs until the process ends.
	runtime.LockOSThread()
	fd, err := strconv.Atoi(fdText)
	if err != nil || fd < 3 || !isPipe(fd) || !isPipe(fd+1) || len(os.Args) < 3 {
		fail(2, "%s=%q is set, but this process was not started by a stdio client", lifeline.Env, fdText)
	}
	syscall.CloseOnExec(fd) // the command must not hold the lifeline
	syscall.CloseOnExec(fd + 1)
	life := os.NewFile(uintptr(fd), "lifeline")
	status := os.NewFile(uintptr(fd+1), "reaper status")

	// From here on, every orphan among the command's descendants becomes
	// the reaper's child.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		lifeline.WriteFailed(status, err)
		syscall.Exit(127)
	}
	sigs := make(chan os.Signal, 1)
	for _, s := range caught {
		if !signal.Ignored(s) {
			signal.Notify(sigs, s)
		}
	}
	// Before the command starts, so that no exit goes unnoticed; the
	// buffer keeps one notice for exits that happen while children are
	// reaped.
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	files := make([]uintptr, fd) // stdin, stdout, stderr and the command's extra files
	for i := range files {
		files[i] = uintptr(i)
	}
	pid, err := syscall.ForkExec(os.Args[1], os.Args[2:], &syscall.ProcAttr{
		Env:   environ(),
		Files: files,
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		lifeline.WriteFailed(status, err)
		syscall.Exit(127)
	}
	lifeline.WriteStarted(status, pid)
	status.Close()
	release(fd)
	// Once the client is gone, its end of stderr may be too: an error
	// written there must not kill the reaper before it has cleaned up.
	// (Ignored only now: the command would inherit SIG_IGN.)
	signal.Ignore(syscall.SIGPIPE)

	lost := make(chan struct{}) // closed at the lifeline's end of file
	go func() {                 // runs until the process ends
		var b [1]byte
		for {
			if _, err := life.Read(b[:]); err != nil {
				close(lost)
				return
			}
		}
	}()
	var ws syscall.WaitStatus
	exited := false
	// reap reaps every child that has ended, the command and adopted
	// orphans alike, and reports whether none is left.
	reap := func() (none bool) {
		for {
			var st syscall.WaitStatus
			p, err := syscall.Wait4(-1, &st, syscall.WNOHANG, nil)
			switch {
			case err == syscall.EINTR:
			case err != nil: // ECHILD
				return true
			case p == 0: // children left, all running
				return false
			case p == pid:
				ws, exited = st, true
			}
		}
	}
wait:
	for reap(); !exited; reap() {
		select {
		case <-chld:
		case <-lost: // the client closed the lifeline or died
			break wait
		case <-sigs:
		}
	}
	// The command first, so that it dies of SIGKILL as it would of a group
	// SIGKILL, not of a descendant's end (a shell's wait returns 0).
	if !exited {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	// Kill whatever is left until no child is: every descendant is a child
	// or descends from one, so none is left then. Each killed child's end
	// brings a SIGCHLD.
	for !reap() {
		self := os.Getpid()
		for _, p := range descendants(self) {
			syscall.Kill(p, syscall.SIGKILL)
		}
		select {
		case <-chld:
		case <-sigs:
		}
	}
	exitAs(ws)
}

// environ is the reaper's environment without the variable that made it
// one: the environment the command was given.
func environ() []string {
	env := os.Environ()
	out := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, lifeline.Env+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// release drops the reaper's copies of the command's descriptors: stdin
// and stdout become /dev/null (a pipe held here would hide the command's
// end of file and its exit from the client), and the extra files below the
// lifeline are closed. Stderr stays, for the reaper's own errors.
func release(lifelineFD int) {
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		unix.Dup3(int(null.Fd()), 0, 0)
		unix.Dup3(int(null.Fd()), 1, 0)
		null.Close()
	}
	for i := 3; i < lifelineFD; i++ {
		syscall.Close(i)
	}
}

// descendants lists the live processes that descend from self (by parent
// pids: the reaper is a subreaper, so orphans among them have it as their
// parent, not init) or are in its process group, self excepted.
func descendants(self int) []int {
	type proc struct{ ppid, pgrp int }
	procs := map[int]proc{}
	d, err := os.Open("/proc")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpbridge-reaper:", err)
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone
		}
		// "pid (comm) state ppid pgrp ...": comm may hold anything.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue // dead already
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		procs[pid] = proc{ppid, pgrp}
	}
	var out []int
	for pid, p := range procs {
		if pid == self {
			continue
		}
		in := p.pgrp == self
		for up, n := p.ppid, 0; !in && up > 1 && n < len(procs); n++ {
			in = up == self
			up = procs[up].ppid
		}
		if in {
			out = append(out, pid)
		}
	}
	return out
}

// exitAs ends the reaper as the command ended: with its exit code, or by
// the same signal.
func exitAs(ws syscall.WaitStatus) {
	if ws.Signaled() {
		dieOf(ws.Signal())
	}
	// Not os.Exit: nothing is left to flush, and under the race detector
	// os.Exit would first sleep (GORACE atexit_sleep_ms) while the client
	// waits for the status.
	syscall.Exit(ws.ExitStatus())
}

// dieOf kills the reaper with sig under its default action, which the Go
// runtime's own handlers would replace by an exit with a stack dump for
// some signals (SIGQUIT, SIGSEGV, SIGABRT).
func dieOf(sig syscall.Signal) {
	signal.Reset()
	// The command dumped core already if it was to; the reaper must not
	// add one of its own.
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	// A zeroed struct sigaction is SIG_DFL with no flags and an empty mask,
	// whatever the architecture's layout; 64 bytes cover every layout.
	var dfl [8]uint64
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	// To this thread, which blocks no signal: the default action is taken
	// before the call returns.
	syscall.Tgkill(os.Getpid(), unix.Gettid(), sig)
	syscall.Exit(128 + int(sig)) // a signal whose default is not to end the process
}

// isPipe reports whether fd is an open pipe.
func isPipe(fd int) bool {
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mcpbridge-reaper: "+format+"\n", args...)
	syscall.Exit(code)
}
