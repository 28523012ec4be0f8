package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/internal/lifeline"
)

// These tests run commands under a reaper (package stdio/reaper): this
// test binary, since the package's TestMain calls reaper.Main. The
// launcher is sh -c, and its grandchild the "linger" fixture, which
// outlives stdin EOF, SIGTERM, SIGHUP and SIGINT.

func init() {
	fixtures["linger"] = testkit.Linger
	fixtures["reaperhost"] = runReaperHost
	fixtures["inspect"] = runInspect
}

// launcher is the sh -c command line that starts the linger fixture in
// the background (with setsid: in a session and process group of its own)
// and then runs script.
func launcher(setsid bool, script string) []string {
	exe, _ := os.Executable()
	return []string{"sh", "-c", testkit.FixtureEnv + "=linger LINGER_SETSID=" + strconv.FormatBool(setsid) + ` "$0" & ` + script, exe}
}

// readLinger reads the linger fixture's pid from r.
func readLinger(r *bufio.Reader) (int, error) {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return 0, err
		}
		if pid, ok := strings.CutPrefix(strings.TrimSpace(line), "linger "); ok {
			return strconv.Atoi(pid)
		}
	}
}

// runReaperHost is a host that runs a launcher with a lingering grandchild
// under a reaper (without one when HOST_REAPER is false), prints "<child
// pid> <grandchild pid>" and waits to be killed.
func runReaperHost() int {
	argv := launcher(os.Getenv("HOST_SETSID") == "true", "wait")
	cmd := exec.Command(argv[0], argv[1:]...)
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	cmd.Stderr = w
	c, err := Start(context.Background(), cmd, ClientConfig{Reaper: os.Getenv("HOST_REAPER") != "false"})
	w.Close()
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	grandchild, err := readLinger(bufio.NewReader(r))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println(c.Pid(), grandchild)
	for {
		time.Sleep(time.Hour)
	}
}

// pidfd opens a pidfd for pid and, when the test ends, kills the process
// if it is still there, so that a failing test leaves nothing behind.
func pidfd(t *testing.T, pid int) int {
	t.Helper()
	fd := testkit.Pidfd(t, pid)
	t.Cleanup(func() { unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) })
	return fd
}

// parentOf returns pid's parent pid.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}

// Scenario 93: a host killed with SIGKILL leaves nothing behind under a
// reaper: not the launcher, not its grandchild that ignores stdin EOF,
// also not one that left the process group, and not the reaper. Without a
// reaper (HOST_REAPER=false) the grandchild survives with parent 1:
// Pdeathsig reaches the launcher only.
func TestReaperOutlivesKilledHost(t *testing.T) {
	for _, setsid := range []bool{false, true} {
		t.Run(fmt.Sprintf("setsid=%v", setsid), func(t *testing.T) {
			host := testkit.FixtureCommand(t, "reaperhost", "HOST_SETSID="+strconv.FormatBool(setsid))
			out, err := host.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			host.Stderr = os.Stderr
			if err := host.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				host.Process.Kill()
				host.Wait()
			})
			line, err := bufio.NewReader(out).ReadString('\n')
			var child, grandchild int
			if _, serr := fmt.Sscan(line, &child, &grandchild); err != nil || serr != nil {
				t.Fatalf("host printed %q, %v", line, err)
			}
			procs := map[string]int{"launcher": pidfd(t, child), "grandchild": pidfd(t, grandchild)}
			procs["reaper"] = pidfd(t, parentOf(t, child))

			host.Process.Kill()
			host.Wait()
			for _, name := range []string{"launcher", "grandchild", "reaper"} {
				if !testkit.Exited(t, procs[name], 10*time.Second) {
					t.Errorf("the %s outlived the SIGKILLed host", name)
				}
			}
		})
	}
}

// startLauncher starts a launcher with a lingering grandchild under a
// reaper and returns the client and the grandchild's pidfd.
func startLauncher(t *testing.T, setsid bool, script string) (*Client, int) {
	t.Helper()
	argv := launcher(setsid, script)
	cmd := exec.Command(argv[0], argv[1:]...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd.Stderr = w
	c, err := Start(context.Background(), cmd, ClientConfig{Reaper: true})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testkit.StopChild(t, c, 2*time.Second) })
	pid, err := readLinger(bufio.NewReader(r))
	if err != nil {
		t.Fatalf("reading the grandchild's pid: %v", err)
	}
	return c, pidfd(t, pid)
}

// reaped waits for the child to be reaped.
func reaped(t *testing.T, c *Client) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(30 * time.Second):
		t.Fatalf("the child was not reaped")
	}
}

// done waits for the child to be reaped and returns how it ended.
func done(t *testing.T, c *Client) *ExitError {
	t.Helper()
	reaped(t, c)
	var x *ExitError
	if !errors.As(c.Err(), &x) {
		t.Fatalf("Err() = %v, want an *ExitError", c.Err())
	}
	return x
}

// Scenario 94: however the command ends (it exits, a group signal ends it,
// the host stops it with SIGKILL), its descendants are gone once the
// client is Done, and the client sees the command's status.
func TestReaperStopLeavesNothing(t *testing.T) {
	for _, setsid := range []bool{false, true} {
		for _, tc := range []struct {
			name   string
			script string
			stop   func(*Client) error
			want   ExitError
		}{
			// The launcher reads a line, then exits 3.
			{"exits", "read x; exit 3", func(c *Client) error { return c.Notify(context.Background(), "x", nil) }, ExitError{Code: 3}},
			{"SIGTERM", "wait", func(c *Client) error { return c.Signal(syscall.SIGTERM) }, ExitError{Code: -1, Signal: "terminated"}},
			{"SIGKILL", "wait", func(c *Client) error { return c.Signal(syscall.SIGKILL) }, ExitError{Code: -1, Signal: "killed"}},
		} {
			t.Run(fmt.Sprintf("%s/setsid=%v", tc.name, setsid), func(t *testing.T) {
				c, grandchild := startLauncher(t, setsid, tc.script)
				if err := tc.stop(c); err != nil {
					t.Fatal(err)
				}
				if got := done(t, c); !cmp.Equal(*got, tc.want) {
					t.Errorf("the command ended with %+v, want %+v", *got, tc.want)
				}
				if !testkit.Exited(t, grandchild, 0) {
					t.Errorf("the grandchild outlived the reaper")
				}
			})
		}
	}
}

// Scenario 95: the client sees the same exit code, signal and stderr tail
// with a reaper as without one; the reaper adds no core dump of its own.
func TestReaperMirrorsExit(t *testing.T) {
	dir := t.TempDir() // where a core would go
	for _, script := range []string{
		"exit 0",
		"echo boom >&2; exit 7",
		"kill -TERM $$",
		"kill -USR1 $$",
		"kill -KILL $$",
		"ulimit -c 0; kill -SEGV $$",
		"ulimit -c 0; kill -QUIT $$",
		"ulimit -c 0; kill -ABRT $$",
	} {
		t.Run(script, func(t *testing.T) {
			var got [2]ExitError
			for i, reaper := range []bool{false, true} {
				cmd := exec.Command("sh", "-c", script)
				cmd.Dir = dir
				cmd.Stderr = io.Discard
				c, err := Start(context.Background(), cmd, ClientConfig{Reaper: reaper})
				if err != nil {
					t.Fatal(err)
				}
				got[i] = *done(t, c)
			}
			if diff := cmp.Diff(got[0], got[1]); diff != "" {
				t.Errorf("the exit under a reaper differs (-without +with):\n%s", diff)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("files left in the working directory: %v", entries)
	}
}

// inspection is what the "inspect" fixture reports about itself.
type inspection struct {
	Env   []string
	Cwd   string
	Pipes []int // descriptors above 2 that are pipes
}

// runInspect writes its inspection as JSON to the file INSPECT_OUT names.
func runInspect() int {
	var in inspection
	in.Env = os.Environ()
	in.Cwd, _ = os.Getwd()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		fmt.Fprintln(os.Stderr, "inspect:", err)
		return 1
	}
	for _, e := range ents {
		fd, _ := strconv.Atoi(e.Name())
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && fd > 2 && strings.HasPrefix(target, "pipe:") {
			in.Pipes = append(in.Pipes, fd)
		}
	}
	b, _ := json.Marshal(in)
	if err := os.WriteFile(os.Getenv("INSPECT_OUT"), b, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "inspect:", err)
		return 1
	}
	return 0
}

// Scenario 96: under a reaper the command gets exactly the environment,
// directory and descriptors it gets without one: not the reaper's
// variable, not the lifeline, and its extra files at their numbers.
func TestReaperIsTransparent(t *testing.T) {
	out := t.TempDir() + "/inspect.json"
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		setup func(*exec.Cmd)
	}{
		{"Env set", func(cmd *exec.Cmd) {}},
		{"Env nil, Dir set", func(cmd *exec.Cmd) { cmd.Env, cmd.Dir = nil, dir }},
		{"ExtraFiles", func(cmd *exec.Cmd) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close(); w.Close() })
			cmd.ExtraFiles = []*os.File{r}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// For Env nil: the fixture's name and output come from ours.
			t.Setenv(testkit.FixtureEnv, "inspect")
			t.Setenv("INSPECT_OUT", out)
			t.Setenv("GORACE", strings.TrimPrefix(testkit.QuickRaceExit(), "GORACE="))
			var got [2]inspection
			for i, reaper := range []bool{false, true} {
				cmd := testkit.FixtureCommand(t, "inspect")
				tc.setup(cmd)
				var stderr strings.Builder
				cmd.Stderr = &stderr
				c, err := Start(context.Background(), cmd, ClientConfig{Reaper: reaper})
				if err != nil {
					t.Fatal(err)
				}
				if x := done(t, c); x.Code != 0 {
					t.Fatalf("inspect (reaper %v) exited %+v: %s", reaper, x, stderr.String())
				}
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(b, &got[i]); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(got[0], got[1]); diff != "" {
				t.Errorf("the command's view under a reaper differs (-without +with):\n%s", diff)
			}
			if slices.ContainsFunc(got[1].Env, func(kv string) bool { return strings.HasPrefix(kv, lifeline.Env+"=") }) {
				t.Errorf("the command's environment holds %s", lifeline.Env)
			}
		})
	}
}

// Scenario 97: a command that cannot be started fails Start as it does
// without a reaper, and the client keeps no descriptor of any child: one
// that failed to start, ended, or was killed.
func TestReaperStartFailuresAndDescriptors(t *testing.T) {
	checkMissingExecutables(t, ClientConfig{Reaper: true})

	cycle := func() {
		for _, stop := range []func(*Client){
			func(c *Client) { c.Close() },
			func(c *Client) { c.Signal(syscall.SIGKILL) },
		} {
			c, err := Start(context.Background(), testkit.FixtureCommand(t, "echo"), ClientConfig{Reaper: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Call(context.Background(), "echo", nil, nil); err != nil {
				t.Fatal(err)
			}
			stop(c)
			reaped(t, c)
		}
		Start(context.Background(), exec.Command("/nonexistent/mcp-server"), ClientConfig{Reaper: true})
	}
	cycle() // the runtime's own descriptors (the poller's) are open from here on
	before := openFDs(t)
	cycle()
	if after := openFDs(t); !cmp.Equal(before, after) {
		t.Errorf("descriptors open after starting and stopping children (-before +after):\n%s", cmp.Diff(before, after))
	}
}

// openFDs maps this process's open descriptors to what they are.
func openFDs(t *testing.T) map[string]string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	fds := map[string]string{}
	for _, e := range ents {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && !strings.HasPrefix(target, "/proc/") {
			fds[e.Name()] = target
		}
	}
	return fds
}
