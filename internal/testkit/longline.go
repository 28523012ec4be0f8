package testkit

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// LongLineSize is the long line LongLine sends: 64 MiB, as
// in docs/stdio.md, scenario 83.
const LongLineSize = 64 << 20

// LongLine runs cmd, a stdio MCP server whose input line limit is limit
// bytes, and checks the process side of the line limit (docs/stdio.md,
// "Line limits"; scenario 83): when long is true, a line of LongLineSize
// bytes is refused with -32600 and a null id once its line feed is
// written; then the request line ping gets the
// response line want (both with their LF); at EOF the server writes nothing
// more and exits 0. It returns the server's peak resident memory (VmHWM)
// read just before its stdin is closed, so that a caller can compare a run
// with the long line against one without. Linux only (VmHWM).
func LongLine(tb testing.TB, cmd *exec.Cmd, limit int, long bool, ping, want string) (peak int64) {
	tb.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	defer func() { // a failed check still leaves no process behind
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	lines := make(chan string, 16)
	go func() { // ends at the server's stdout EOF
		defer close(lines)
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			lines <- line
		}
	}()
	next := func(what string) string {
		tb.Helper()
		select {
		case line, ok := <-lines:
			if !ok {
				tb.Fatalf("%s: the server's output ended", what)
			}
			return line
		case <-time.After(time.Minute):
			tb.Fatalf("%s: no line within a minute", what)
		}
		return ""
	}

	if long {
		wrote := make(chan error, 1)
		go func() { // ends when the line is written or stdin fails
			chunk := bytes.Repeat([]byte("x"), 1<<20)
			var err error
			for i := 0; i < LongLineSize/len(chunk) && err == nil; i++ {
				_, err = stdin.Write(chunk)
			}
			wrote <- err
		}()
		if err := <-wrote; err != nil {
			tb.Fatalf("writing the long line: %v", err)
		}
		io.WriteString(stdin, "\n")
		refusal := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Line exceeds the ` +
			strconv.Itoa(limit) + `-byte limit"}}` + "\n"
		if got := next("the refusal"); got != refusal {
			tb.Fatalf("got %q after the long line, want the refusal %q", got, refusal)
		}
	}
	io.WriteString(stdin, ping)
	if got := next("the response"); got != want {
		tb.Errorf("got %q, want %q", got, want)
	}
	peak = vmHWM(tb, cmd.Process.Pid)
	stdin.Close()
	for line := range lines {
		tb.Errorf("unexpected output after EOF %q", line)
	}
	if err := cmd.Wait(); err != nil {
		tb.Fatalf("%s: %v\nstderr:\n%s", cmd.Path, err, stderr.String())
	}
	return peak
}

// LongLineGrowth runs LongLine twice on fresh processes from newCmd,
// without and then with the long line, and returns how much more peak
// resident memory the server needed for it (logged with both peaks).
func LongLineGrowth(tb testing.TB, newCmd func() *exec.Cmd, limit int, ping, want string) int64 {
	tb.Helper()
	base := LongLine(tb, newCmd(), limit, false, ping, want)
	peak := LongLine(tb, newCmd(), limit, true, ping, want)
	tb.Logf("peak RSS: baseline %d KiB, with the %d MiB line %d KiB, growth %d KiB", base>>10, LongLineSize>>20, peak>>10, (peak-base)>>10)
	return peak - base
}

// vmHWM is the peak resident memory of a running process, in bytes. Unlike
// a child's rusage, it starts at exec, so it does not include the peak of
// the process that started it.
func vmHWM(tb testing.TB, pid int) int64 {
	tb.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				tb.Fatalf("VmHWM of %d: %q", pid, line)
			}
			return kb << 10
		}
	}
	tb.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}
