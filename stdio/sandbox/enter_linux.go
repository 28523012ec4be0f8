package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

const supported = true

// namespaces sets the namespaces of a sandbox whose network is network: a
// user namespace always (so that its process count is its own, and so
// that a network namespace needs no privilege), in which the entry is
// root (it needs CAP_NET_ADMIN in it to bring its loopback up, and drops
// every capability before the command runs), mapped to the bridge's own
// user and group; a network namespace for NetworkNone.
func namespaces(a *syscall.SysProcAttr, network Network) {
	a.Cloneflags |= syscall.CLONE_NEWUSER
	if network == NetworkNone || network == NetworkLoopback {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// denied are the system calls no MCP server needs, which the filter
// answers EPERM: tracing and reading other processes, mounting and
// namespaces, loading kernel code, keyrings, BPF, performance counters,
// rebooting and swapping.
var denied = []string{
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
	"mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick",
	"mount_setattr", "unshare", "setns",
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"bpf", "perf_event_open", "keyctl", "add_key", "request_key",
	"reboot", "swapon", "swapoff", "acct", "quotactl", "syslog", "userfaultfd",
	"iopl", "ioperm", "lookup_dcookie", "open_by_handle_at", "name_to_handle_at",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
}

// enter applies s's fences to this process, in the order that keeps each
// possible (the loopback while capable, rlimits, capabilities dropped,
// Landlock, then the seccomp filter, which forbids what came before), and
// executes the command: args are its argv. It returns only on failure.
func enter(s *spec, args []string) error {
	// One thread does everything, so that no fence misses a thread the
	// runtime starts meanwhile (Landlock and seccomp are set for every
	// thread all the same).
	runtime.LockOSThread()
	if err := join(s.Cgroups); err != nil {
		return fmt.Errorf("limits: %v", err)
	}
	if s.Network == NetworkNone || s.Network == NetworkLoopback {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("network %s: bringing up the sandbox's own loopback: %v", s.Network, err)
		}
	}
	for _, l := range []struct {
		name     string
		resource int
		v        uint64
	}{
		{"limits.memory (RLIMIT_DATA)", unix.RLIMIT_DATA, uint64(s.Memory)},
		{"limits.processes (RLIMIT_NPROC)", unix.RLIMIT_NPROC, uint64(s.Processes)},
		{"limits.open_files (RLIMIT_NOFILE)", unix.RLIMIT_NOFILE, uint64(s.OpenFiles)},
		{"limits.cpu_seconds (RLIMIT_CPU)", unix.RLIMIT_CPU, uint64(s.CPUSeconds)},
	} {
		if l.v == 0 {
			continue
		}
		if err := unix.Setrlimit(l.resource, &unix.Rlimit{Cur: l.v, Max: l.v}); err != nil {
			return fmt.Errorf("%s: %v", l.name, err)
		}
	}
	// Root of its user namespace, the entry is capable in it; the command
	// must not be: with an empty bounding set, execve grants nothing.
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("dropping capability %d: %v", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %v", err)
	}
	if err := restrictFiles(s); err != nil {
		return err
	}
	filter := seccomp.Filter{
		NoNewPrivs: true,
		Flag:       seccomp.FilterFlagTSync,
		Policy: seccomp.Policy{
			DefaultAction: seccomp.ActionAllow,
			Syscalls:      []seccomp.SyscallGroup{{Names: denied, Action: seccomp.ActionErrno}},
		},
	}
	if err := seccomp.LoadFilter(filter); err != nil {
		return fmt.Errorf("the seccomp filter: %v", err)
	}
	err := syscall.Exec(s.Path, args, os.Environ())
	return fmt.Errorf("executing %s: %v", s.Path, err)
}

// landlockABI is the Landlock the sandbox needs: files (with truncate and
// device ioctl, ABI 5) and the signal and abstract-socket scopes (ABI 6).
var landlockABI = landlock.V6

// restrictFiles applies the Landlock ruleset: the declared paths (a
// missing one refuses), the implied ones (a missing one is left out), and
// the scopes. Network access rights are not handled: the network fence is
// the namespace.
func restrictFiles(s *spec) error {
	cfg := landlock.Config{HandledAccessFS: landlockABI.HandledAccessFS, Scoped: landlockABI.Scoped}
	rules := []landlock.Rule{}
	add := func(paths []string, write, optional bool) error {
		for _, p := range paths {
			fi, err := os.Stat(p)
			if err != nil {
				if optional {
					continue
				}
				return fmt.Errorf("filesystem: %s cannot be granted: %v", p, err)
			}
			var r landlock.FSRule
			switch {
			case fi.IsDir() && write:
				r = landlock.RWDirs(p)
			case fi.IsDir():
				r = landlock.RODirs(p)
			case write:
				r = landlock.RWFiles(p).WithIoctlDev()
			default:
				r = landlock.ROFiles(p)
			}
			rules = append(rules, r)
		}
		return nil
	}
	if err := add(s.Read, false, false); err != nil {
		return err
	}
	if err := add(s.Write, true, false); err != nil {
		return err
	}
	if err := add(s.Implied, false, true); err != nil {
		return err
	}
	if err := add(s.ImpliedW, true, true); err != nil {
		return err
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("filesystem: Landlock ABI %d (files and scopes) is needed: %v", 6, err)
	}
	return nil
}

// loopbackUp sets the loopback interface of the process's network
// namespace up.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
