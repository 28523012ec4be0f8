package sandbox

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// This file is the sandbox's control groups: a group of its own per
// sandboxed process, under the bridge's own, in the pids and memory
// controllers, which bound the whole tree of the process (a fork bomb, a
// leak in a grandchild) where rlimits bound each process, and which the
// kernel exempts no user from (RLIMIT_NPROC does not hold for root). The
// entry joins the groups before the command runs; Release removes them
// once the tree is gone. It is a directory and a few files of the cgroup
// filesystem (v1, or v2 with the controllers delegated), so no library:
// the ones there are bring systemd, D-Bus and eBPF along.

// cgroupRoot is where the cgroup filesystems are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroups are the groups of one sandboxed process.
type cgroups struct {
	dirs   []string // the groups, one per controller (v1) or one (v2)
	memory string   // the group whose memory.oom_control or memory.events counts kills
	v2     bool
}

// newCgroups makes the groups of a sandboxed process with limits: pids
// for processes, memory for memory. A limit of 0 needs no group. It fails
// when a limit's controller is not there to use.
func newCgroups(processes int, memory int64) (*cgroups, error) {
	if processes == 0 && memory == 0 {
		return &cgroups{}, nil
	}
	own, err := ownCgroups()
	if err != nil {
		return nil, err
	}
	name := "mcpbridge-sandbox-" + randomHex()
	cg := &cgroups{}
	if base, ok := own[""]; ok && isCgroup2(cgroupRoot) {
		cg.v2 = true
		dir := filepath.Join(cgroupRoot, base, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("cgroup v2 group %s: %v", dir, err)
		}
		cg.dirs, cg.memory = []string{dir}, dir
		writes := map[string]string{}
		if processes > 0 {
			writes["pids.max"] = strconv.Itoa(processes)
		}
		if memory > 0 {
			writes["memory.max"] = strconv.FormatInt(memory, 10)
			writes["memory.swap.max"] = "0"
		}
		for file, v := range writes {
			if err := os.WriteFile(filepath.Join(dir, file), []byte(v), 0); err != nil && file != "memory.swap.max" {
				cg.Release()
				return nil, fmt.Errorf("cgroup v2 %s (is the controller delegated to the bridge's group?): %v", file, err)
			}
		}
		return cg, nil
	}
	for _, c := range []struct {
		controller, file, value string
		on                      bool
	}{
		{"pids", "pids.max", strconv.Itoa(processes), processes > 0},
		{"memory", "memory.limit_in_bytes", strconv.FormatInt(memory, 10), memory > 0},
	} {
		if !c.on {
			continue
		}
		base, ok := own[c.controller]
		if !ok {
			cg.Release()
			return nil, fmt.Errorf("the cgroup v1 %s controller is not mounted", c.controller)
		}
		dir := filepath.Join(cgroupRoot, c.controller, base, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			cg.Release()
			return nil, fmt.Errorf("cgroup v1 %s group %s: %v", c.controller, dir, err)
		}
		cg.dirs = append(cg.dirs, dir)
		if c.controller == "memory" {
			cg.memory = dir
		}
		if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.value), 0); err != nil {
			cg.Release()
			return nil, fmt.Errorf("cgroup v1 %s: %v", c.file, err)
		}
	}
	return cg, nil
}

// ownCgroups are the bridge's own groups, by controller ("" for v2's
// unified one), from /proc/self/cgroup.
func ownCgroups() (map[string]string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, sc.Err()
}

// isCgroup2 reports whether dir is a cgroup v2 filesystem (not a v1
// hierarchy's tmpfs of mount points).
func isCgroup2(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "cgroup.controllers"))
	return err == nil
}

func randomHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// procs are the files the entry writes 0 to, to join the groups.
func (cg *cgroups) procs() []string {
	var out []string
	for _, d := range cg.dirs {
		out = append(out, filepath.Join(d, "cgroup.procs"))
	}
	return out
}

// oomKills is how many of the group's processes the kernel killed for
// memory.
func (cg *cgroups) oomKills() int {
	if cg == nil || cg.memory == "" {
		return 0
	}
	file := "memory.oom_control"
	if cg.v2 {
		file = "memory.events"
	}
	raw, err := os.ReadFile(filepath.Join(cg.memory, file))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// Release removes the groups once their processes are gone, waiting a
// little for the last to be reaped.
func (cg *cgroups) Release() {
	if cg == nil {
		return
	}
	for _, d := range cg.dirs {
		for i := 0; ; i++ {
			err := os.Remove(d)
			if err == nil || errors.Is(err, os.ErrNotExist) || i == 50 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// join moves this process into the groups (the entry, before the
// command runs).
func join(procs []string) error {
	for _, p := range procs {
		if err := os.WriteFile(p, []byte("0"), 0); err != nil {
			return fmt.Errorf("joining the control group %s: %v", filepath.Dir(p), err)
		}
	}
	return nil
}
