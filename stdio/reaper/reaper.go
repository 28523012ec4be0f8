// Package reaper runs a stdio server's command under a reaper, a small
// process that makes sure no descendant of the command outlives it or the
// client that started it, however the client dies.
//
// A stdio MCP server is often started through a launcher (sh -c, npx, uvx)
// whose real server is a grandchild. The stdio client puts its child in a
// process group of its own and, on Linux, has the kernel kill the child
// when the client dies (Pdeathsig). But Pdeathsig reaches the child only,
// and nothing signals the group once the client is gone: a grandchild that
// ignores stdin EOF, or one that left the group, lives on with parent 1.
//
// With stdio.ClientConfig.Reaper set, the client runs this binary again,
// as the reaper, in place of the command, and the reaper runs the command.
// The reaper:
//
//   - leads the process group and starts the command in it, with
//     Pdeathsig SIGKILL tied to the reaper;
//   - is a child subreaper (PR_SET_CHILD_SUBREAPER): every orphan among
//     the command's descendants becomes its child, also one that left the
//     group or the session, so it can find them all, and it reaps them;
//   - reads a lifeline pipe whose write end only the client holds. At end
//     of file (the client closed it, or died) it kills the command and
//     every descendant with SIGKILL, reaps them and exits as the command
//     did;
//   - when the command exits, kills the descendants it left behind the same
//     way, then exits as the command did: with its exit code, or by the
//     same signal, so that the client sees the command's status.
//
// The reaper catches the signals a process group may be sent that would
// otherwise end or stop it (SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1,
// SIGUSR2, SIGALRM, SIGTSTP, SIGTTIN and SIGTTOU, unless they were
// ignored when it started) and does nothing with them: a signal sent to
// the group reaches the command directly, and the reaper stays to clean
// up. A signal sent to the reaper's pid alone is not passed on. The
// command's stdin and stdout are passed by descriptor inheritance and the
// reaper keeps no copy of them; it keeps stderr for its own errors. The
// command inherits neither the lifeline nor the variable that marks a
// reaper: it gets exactly the environment it was given.
//
// A program opts in by calling [Main] first thing in main; the protocol
// between the client and the reaper is in stdio/internal/lifeline, and
// docs/stdio.md, "Reapers" describes both sides.
package reaper

import (
	"os"

	"github.com/mcpbridge/mcpbridge/stdio/internal/lifeline"
)

// Env is the environment variable that makes a process of a binary that
// calls Main a reaper; its value is the lifeline descriptor's number. It
// is reserved for the stdio client: a command given it by anyone else
// (its configuration, a caller's request) would act on it.
const Env = lifeline.Env

// Main makes this binary able to act as a reaper. Call it first thing in
// main:
//
//	func main() {
//		reaper.Main()
//		...
//	}
//
// In a process that a stdio client started as a reaper (the environment
// variable MCPBRIDGE_REAPER is set), Main runs the reaper and never
// returns: the process ends as the command did. In any other process it
// records that this binary can act as a reaper and returns at once. Only
// then may a stdio client use one: the client runs this binary again as
// the reaper, and a binary that does not call Main would run the program
// itself instead, so without Main stdio.Start refuses
// ClientConfig.Reaper. Package init functions run before Main and must not
// act on the environment of the command.
//
// On systems other than Linux, Main does nothing and reapers are not
// available.
func Main() {
	if !supported {
		return
	}
	if v, ok := os.LookupEnv(lifeline.Env); ok {
		run(v) // never returns
	}
	lifeline.SetAvailable()
}

// Available reports whether a stdio client in this process can run its
// command under a reaper: Main was called, on Linux.
func Available() bool { return lifeline.Available() }
