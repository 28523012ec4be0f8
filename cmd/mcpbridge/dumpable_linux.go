package main

import "golang.org/x/sys/unix"

// notDumpable makes the bridge's process non-dumpable (PR_SET_DUMPABLE 0;
// docs/security.md, "Hardening"). Then the kernel gives the process's
// /proc/<pid> entries to root, so that another process of the bridge's
// user can read neither its environment (/proc/<pid>/environ: the secrets
// passed to children with --env) nor its memory (the sessions' values,
// the tokens of calls in flight), and may not ptrace it; nor does it dump
// core. Its children are not affected: exec makes a process dumpable
// again.
func notDumpable() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
