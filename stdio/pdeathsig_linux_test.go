package stdio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// The "host" fixture starts a child that ignores stdin EOF, prints its pid
// and waits to be killed.
func init() {
	fixtures["host"] = func() int {
		exe, _ := os.Executable()
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), testkit.FixtureEnv+"=mcp", "FIXTURE_ERA=legacy", "FIXTURE_IGNORE_EOF=1")
		cmd.Stderr = os.Stderr
		c, err := Start(context.Background(), cmd, ClientConfig{})
		if err != nil {
			fmt.Println("error", err)
			return 1
		}
		fmt.Println(c.Pid())
		for {
			time.Sleep(time.Hour)
		}
	}
}

// alive reports whether pid runs (exists and is not a zombie).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// No child outlives its host, even one killed with SIGKILL that could not
// close the child's stdin or signal it: the kernel does (Pdeathsig).
func TestChildDiesWithKilledHost(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(exe)
	host.Env = append(os.Environ(), testkit.FixtureEnv+"=host")
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		host.Process.Kill()
		host.Wait()
		t.Fatalf("host: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		host.Process.Kill()
		host.Wait()
		t.Fatalf("host printed %q", line)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("child %d not running: %v", pid, err)
	}
	host.Process.Kill()
	host.Wait()
	// The orphan is reaped by whoever adopts it; poll the kernel, there is
	// no event to wait on. A zombie awaiting that reaper is dead already.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("child %d outlived its SIGKILLed host", pid)
}
