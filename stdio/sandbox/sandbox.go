// Package sandbox runs a stdio MCP server's process inside fences the
// kernel enforces, without a container runtime (docs/sandbox.md): the
// files it may read and write (Landlock), its network (a network
// namespace of its own, in a user namespace), the system calls no MCP
// server needs (a seccomp filter, with no_new_privs), its resources
// (rlimits), and the signals and abstract sockets it may reach outside
// its domain (Landlock scopes).
//
// The fences are set up by this binary itself, run again between the
// spawn and the command (the re-exec pattern of package stdio/reaper):
// Wrap rewrites a command to run this binary as the sandbox's entry,
// which applies the profile to itself and then executes the command,
// whose process and descendants keep every fence. A binary that wraps
// commands must call Main first thing in main.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
)

// Env is the environment variable that makes a process of a binary that
// calls Main the sandbox's entry; its value is the resolved profile. It is
// reserved for Wrap.
const Env = "MCPBRIDGE_SANDBOX"

// Name is the entry's argv[0], which names it in process listings.
const Name = "mcpbridge-sandbox"

// Network is what network a sandboxed process has.
type Network string

const (
	// NetworkNone: a network namespace of its own with only its own
	// loopback: nothing outside the process's own tree is reachable, not
	// even the host's loopback.
	NetworkNone Network = "none"
	// NetworkLoopback: NetworkNone, and the host's loopback ports listed
	// in Profile.LoopbackPorts, forwarded into the sandbox's own loopback
	// (a local database, a local proxy): 127.0.0.1:port inside reaches
	// 127.0.0.1:port outside, and nothing else outside is reachable.
	NetworkLoopback Network = "loopback"
	// NetworkHost: the host's network, as without a sandbox.
	NetworkHost Network = "host"
)

// Profile is what a sandboxed process may do.
type Profile struct {
	// Read are the files and directories (with everything under them) the
	// process may read and execute; Write those it may also write,
	// create and remove. A declared path that does not exist refuses the
	// start. DefaultRead (the system's libraries, certificates, /proc and
	// the like), the command's executable's directory, the directories of
	// its arguments that are paths (a node_modules tree as a whole) and its
	// working directory are added to Read, and the private temporary
	// directory Wrap is given to Write.
	Read, Write []string
	// Network: NetworkNone, NetworkLoopback or NetworkHost (the default,
	// "").
	Network Network
	// LoopbackPorts are the host's loopback TCP ports NetworkLoopback
	// forwards into the sandbox.
	LoopbackPorts []int
	// Limits bound the process's resources; zero is no limit.
	Limits Limits
}

// Limits bound a sandboxed process's resources, as rlimits.
type Limits struct {
	// Memory bounds each process's data (RLIMIT_DATA, bytes): heap and
	// private writable mappings, where an allocation beyond fails. Not
	// its address space: runtimes such as V8 reserve far more of that
	// than they use.
	Memory int64
	// Processes bounds the processes and threads of the sandbox's user
	// namespace (RLIMIT_NPROC, counted per user namespace).
	Processes int
	// OpenFiles bounds each process's open descriptors (RLIMIT_NOFILE).
	OpenFiles int
	// CPUSeconds bounds each process's CPU time (RLIMIT_CPU): SIGXCPU,
	// then SIGKILL a second later.
	CPUSeconds int
}

// DefaultRead are the paths every sandboxed process may read (those that
// exist): what a dynamically linked program, Node or Python needs to
// start and to speak TLS, and /proc and /dev's harmless devices. Landlock
// keeps /proc/<pid> of processes outside the sandbox (the bridge's
// environment, another child's memory) closed whatever these allow.
var DefaultRead = []string{
	"/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/opt",
	"/etc/ssl", "/etc/ca-certificates", "/etc/pki", "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf",
	"/etc/host.conf", "/etc/gai.conf", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/ld.so.cache",
	"/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/os-release", "/etc/mime.types",
	"/proc", "/sys/fs/cgroup", "/sys/devices/system/cpu",
	"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/full",
}

// defaultWrite are the paths every sandboxed process may write.
var defaultWrite = []string{"/dev/null", "/dev/zero", "/dev/full"}

// spec is what Wrap hands the entry: the profile resolved.
type spec struct {
	Path       string   `json:"path"`      // the command's executable
	Read       []string `json:"read"`      // declared: a missing one refuses
	Write      []string `json:"write"`     // declared, and the private temp dir
	Implied    []string `json:"implied"`   // added: a missing one is ignored
	ImpliedW   []string `json:"implied_w"` // added, writable
	Network    Network  `json:"network"`
	Memory     int64    `json:"memory"`
	Processes  int      `json:"processes"`
	OpenFiles  int      `json:"open_files"`
	CPUSeconds int      `json:"cpu_seconds"`
	Cgroups    []string `json:"cgroups"` // the cgroup.procs files to join
}

var available atomic.Bool

// Available reports whether this binary can start sandboxes: Main was
// called, on a system with the fences (Linux).
func Available() bool { return available.Load() }

// Main makes this binary able to start sandboxes. Call it first thing in
// main (after reaper.Main, when the binary uses both). In a process that
// Wrap's command started, it applies the profile and executes the
// command, and never returns: a fence that cannot be set up ends the
// process with status 126 and a message on stderr that names it.
func Main() {
	if !supported {
		return
	}
	if raw, ok := os.LookupEnv(Env); ok && len(os.Args) > 1 && os.Args[0] == Name {
		os.Unsetenv(Env)
		var s spec
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			fail(fmt.Errorf("%s is not a profile: %v", Env, err))
		}
		fail(enter(&s, os.Args[1:])) // returns only on failure
	}
	available.Store(true)
}

// fail ends the entry: the message names the fence that could not be set
// up, as the stdio client shows a child's last stderr lines.
func fail(err error) {
	fmt.Fprintf(os.Stderr, "mcpbridge sandbox: %v\n", err)
	os.Exit(126)
}

// ErrUnavailable is Wrap's error where sandboxes cannot be started.
var ErrUnavailable = errors.New("sandbox: not available: it needs Linux and sandbox.Main called first thing in main")

// Fences are what a sandbox holds outside its process: its control
// groups. Release them once the process has ended.
type Fences struct {
	cg     *cgroups
	memory int64 // the limits, for ExitFence
	cpu    int
	ports  []int // network loopback's
	fwd    *forwarder
}

// Started completes the fences once the process has started (pid, which
// must be the sandboxed process or one in its network namespace): network
// loopback's ports are forwarded into its namespace. Without such ports
// it does nothing.
func (f *Fences) Started(pid int) error {
	if f == nil || len(f.ports) == 0 {
		return nil
	}
	f.fwd = &forwarder{}
	return f.fwd.forward(pid, f.ports)
}

// Release stops the forwarding and removes the sandbox's control groups;
// the process and its descendants must have ended.
func (f *Fences) Release() {
	if f != nil {
		f.fwd.close()
		f.cg.Release()
	}
}

// OOMKills is how many of the sandbox's processes the kernel killed for
// going over limits.memory.
func (f *Fences) OOMKills() int {
	if f == nil {
		return 0
	}
	return f.cg.oomKills()
}

// ExitFence names the fence that ended the sandbox's process, given how
// it ended (signal: the signal's name, "" when it exited): the memory
// limit when the kernel killed one of its processes for memory, the CPU
// limit on SIGXCPU; "" when no fence shows. It fits
// stdio.ClientConfig.ExitFence.
func (f *Fences) ExitFence(signal string) string {
	switch {
	case f == nil:
		return ""
	case f.OOMKills() > 0:
		return fmt.Sprintf("killed for memory: the sandbox's limits.memory is %d bytes", f.memory)
	case signal == "CPU time limit exceeded" || signal == "cputime limit exceeded":
		return fmt.Sprintf("the sandbox's limits.cpu_seconds (%d s) ran out", f.cpu)
	}
	return ""
}

// Wrap rewrites cmd, not yet started, to run inside p: this binary runs
// first as the sandbox's entry, in namespaces of its own, and executes
// cmd's command once the fences hold. tmp is the process's private
// temporary directory (writable, and its TMPDIR). The limits on
// processes and memory are a control group's where the host offers one
// (pids, memory), else rlimits; a processes limit that neither can hold
// (RLIMIT_NPROC does not bind root) refuses.
func Wrap(cmd *exec.Cmd, p Profile, tmp string) (*Fences, error) {
	if !Available() {
		return nil, ErrUnavailable
	}
	if cmd.Process != nil {
		return nil, errors.New("sandbox: the command has started")
	}
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	switch p.Network {
	case "", NetworkHost, NetworkNone, NetworkLoopback:
	default:
		return nil, fmt.Errorf("sandbox: network %q is not one of none, loopback, host", p.Network)
	}
	for _, port := range p.LoopbackPorts {
		if port < 1 || port > 65535 || p.Network != NetworkLoopback {
			return nil, fmt.Errorf("sandbox: loopback port %d: ports are 1 to 65535, with network loopback", port)
		}
	}
	path, err := filepath.Abs(cmd.Path)
	if err != nil {
		return nil, err
	}
	s := &spec{Path: path, Network: p.Network, Memory: p.Limits.Memory, Processes: p.Limits.Processes,
		OpenFiles: p.Limits.OpenFiles, CPUSeconds: p.Limits.CPUSeconds}
	for _, list := range []struct {
		in  []string
		out *[]string
	}{{p.Read, &s.Read}, {p.Write, &s.Write}} {
		for _, x := range list.in {
			abs, err := filepath.Abs(x)
			if err != nil {
				return nil, err
			}
			*list.out = append(*list.out, abs)
		}
	}
	s.Implied = append(slices.Clone(DefaultRead), implied(path, cmd.Args, cmd.Dir)...)
	s.ImpliedW = slices.Clone(defaultWrite)
	if tmp != "" {
		s.Write = append(s.Write, tmp)
	}
	cg, err := newCgroups(p.Limits.Processes, p.Limits.Memory)
	if err != nil {
		if p.Limits.Processes > 0 && os.Geteuid() == 0 {
			return nil, fmt.Errorf("sandbox: limits.processes cannot be enforced: the bridge runs as root, which RLIMIT_NPROC does not bind, and the pids control group is not available (%v)", err)
		}
		cg = nil // rlimits alone
	}
	f := &Fences{cg: cg, memory: p.Limits.Memory, cpu: p.Limits.CPUSeconds}
	if p.Network == NetworkLoopback {
		f.ports = slices.Clone(p.LoopbackPorts)
	}
	if cg != nil {
		s.Cgroups = cg.procs()
		if cg.memory != "" {
			// The group bounds the whole tree, and its kills are told
			// apart from a crash (ExitFence): no per-process rlimit,
			// which would fail an allocation first.
			s.Memory = 0
		}
	}
	raw, err := json.Marshal(s)
	if err != nil {
		f.Release()
		return nil, err
	}
	env := cmd.Env
	if env == nil {
		env = cmd.Environ()
	}
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, Env+"=") || tmp != "" && strings.HasPrefix(kv, "TMPDIR=")
	})
	if tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	cmd.Env = append(env, Env+"="+string(raw))
	args := cmd.Args
	if len(args) == 0 {
		args = []string{cmd.Path}
	}
	cmd.Args = append([]string{Name}, args...)
	cmd.Path = "/proc/self/exe"
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	namespaces(cmd.SysProcAttr, p.Network)
	return f, nil
}

// implied are the paths a command needs to start: its executable's
// directory, its working directory, and for each argument that is an
// existing absolute path, its directory, or the outermost node_modules
// tree it is in (a script's imports are found up that tree).
func implied(path string, args []string, dir string) []string {
	out := []string{filepath.Dir(path)}
	if dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			out = append(out, abs)
		}
	}
	for _, a := range args {
		if !filepath.IsAbs(a) {
			continue
		}
		if _, err := os.Stat(a); err != nil {
			continue
		}
		root := filepath.Dir(a)
		if i := strings.Index(a, string(filepath.Separator)+"node_modules"+string(filepath.Separator)); i >= 0 {
			root = a[:i+len("/node_modules")]
		}
		out = append(out, root)
	}
	return out
}
