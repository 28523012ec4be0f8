//go:build unix

package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

func init() {
	fixtures["run"] = runFixture
}

// runFixture is a whole server program built on the one call: NewServer,
// AddTool, Server.Run. Its tools:
//
//   - echo(message) returns message;
//   - print prints a line with fmt.Println, which must land on stderr;
//   - wait reports progress 1 ("started"), then waits for SIGUSR1 (and
//     returns "finished") or for its ctx to end (and says so on stderr).
//
// RUN_TEST_GRACE, when set, makes it call server.Run with that
// ShutdownGrace instead; RUN_TEST_TAKE_FIRST makes it call
// server.TakeStdout first and print before Run, as a main that parses
// flags first would.
func runFixture() int {
	if os.Getenv("RUN_TEST_TAKE_FIRST") != "" {
		if _, err := server.TakeStdout(); err != nil {
			fmt.Fprintln(os.Stderr, "fixture:", err)
			return 3
		}
		fmt.Println("fixture: printed between TakeStdout and Run")
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "run-fixture", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		return 3
	}
	srv.AddTool(mcp.Tool{Name: "echo"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var args struct{ Message string }
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return nil, err
		}
		return mcp.TextResult(args.Message), nil
	})
	srv.AddTool(mcp.Tool{Name: "print"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		fmt.Println("fixture: a stray print from a handler")
		return mcp.TextResult("printed"), nil
	})
	srv.AddTool(mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		release := make(chan os.Signal, 1)
		signal.Notify(release, syscall.SIGUSR1)
		defer signal.Stop(release)
		if err := req.ReportProgress(ctx, mcp.Progress{Progress: 1, Message: "started"}); err != nil {
			return nil, err
		}
		select {
		case <-release:
			return mcp.TextResult("finished"), nil
		case <-ctx.Done():
			fmt.Fprintln(os.Stderr, "fixture: wait cancelled:", context.Cause(ctx))
			return nil, ctx.Err()
		}
	})
	if grace := os.Getenv("RUN_TEST_GRACE"); grace != "" {
		d, perr := time.ParseDuration(grace)
		if perr != nil {
			fmt.Fprintln(os.Stderr, "fixture:", perr)
			return 3
		}
		err = server.Run(context.Background(), srv, server.Config{ShutdownGrace: d})
	} else {
		err = srv.Run(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture: Run:", err)
		return 1
	}
	fmt.Fprintln(os.Stderr, "fixture: Run returned nil")
	return 0
}

// runProc is the run fixture as a host runs it: its stdin, stdout and
// stderr are real pipes, and every byte of stdout is kept.
type runProc struct {
	tb     testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // stdout, one line each, closed at EOF
	stdout strings.Builder
	stderr *testkit.Lines
	exited chan struct{} // closed once the process has been reaped
	ctx    context.Context
}

// startRun starts the run fixture with env added.
func startRun(t *testing.T, env ...string) *runProc {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	t.Cleanup(cancel)
	p := &runProc{tb: t, cmd: testkit.FixtureCommand(t, "run", env...), lines: make(chan string, 100),
		stderr: &testkit.Lines{}, exited: make(chan struct{}), ctx: ctx}
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdoutDone := make(chan struct{})
	go func() { // the stdout reader
		defer close(stdoutDone)
		defer close(p.lines)
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadString('\n')
			p.stdout.WriteString(line) // read by the test only after lines closes
			if err != nil {
				return
			}
			p.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	go func() { // the stderr reader, then the sole caller of Wait
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.stderr.Add(sc.Text())
		}
		<-stdoutDone
		p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("the fixture's stderr:\n%s", p.stderr)
		}
	})
	return p
}

// send writes one request line, a 2026-07-28 tools/call with a progress
// token.
func (p *runProc) call(id int, tool, args string) {
	p.tb.Helper()
	line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,`+
		`"_meta":{%s,%s,%s,"progressToken":"p%d"}}}`+"\n", id, tool, args, v26, noCaps, infoMeta, id)
	if _, err := io.WriteString(p.stdin, line); err != nil {
		p.tb.Fatalf("writing %s: %v", line, err)
	}
}

// next returns the next line of stdout, which must be a JSON object.
func (p *runProc) next() map[string]any {
	p.tb.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.tb.Fatalf("stdout ended; stderr:\n%s", p.stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			p.tb.Fatalf("stdout line %q is not a JSON object: %v", line, err)
		}
		return m
	case <-p.ctx.Done():
		p.tb.Fatalf("no line on stdout: %v", p.ctx.Err())
	}
	return nil
}

// result returns the text of the next line, which must be the successful
// response to id.
func (p *runProc) result(id int) string {
	p.tb.Helper()
	m := p.next()
	var res struct {
		ID     int
		Result struct {
			Content []struct{ Text string }
		}
	}
	raw, _ := json.Marshal(m)
	if err := json.Unmarshal(raw, &res); err != nil || res.ID != id || len(res.Result.Content) != 1 {
		p.tb.Fatalf("stdout %s, want the result of request %d with one text block", raw, id)
	}
	return res.Result.Content[0].Text
}

// progress waits for the progress notification of request id.
func (p *runProc) progress(id int) {
	p.tb.Helper()
	m := p.next()
	params, _ := m["params"].(map[string]any)
	if m["method"] != "notifications/progress" || params["progressToken"] != fmt.Sprintf("p%d", id) {
		p.tb.Fatalf("stdout %v, want the progress of request %d", m, id)
	}
}

// wait waits for the process to exit and returns how it did.
func (p *runProc) wait() *os.ProcessState {
	p.tb.Helper()
	select {
	case <-p.exited:
	case <-p.ctx.Done():
		p.tb.Fatalf("the fixture did not exit: %v", p.ctx.Err())
	}
	return p.cmd.ProcessState
}

// signal sends sig to the fixture.
func (p *runProc) signal(sig syscall.Signal) {
	p.tb.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.tb.Fatal(err)
	}
}

// A program built on Server.Run answers over real pipes; a fmt.Println
// in a handler, like one between TakeStdout and Run, lands on stderr and
// never on the protocol stream; stdin EOF ends it with status 0.
func TestRunServesUntilEOF(t *testing.T) { // scenario 98
	for _, tc := range []struct {
		name string
		env  []string
	}{
		{"Run", nil},
		{"TakeStdout first", []string{"RUN_TEST_TAKE_FIRST=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startRun(t, tc.env...)
			p.call(1, "echo", `{"message":"hello"}`)
			if got := p.result(1); got != "hello" {
				t.Errorf("echo(hello) = %q, want hello", got)
			}
			p.call(2, "print", `{}`)
			if got := p.result(2); got != "printed" {
				t.Errorf("print = %q, want printed", got)
			}
			p.stderr.WaitFor(p.ctx, t, "fixture: a stray print from a handler")
			p.stdin.Close()
			if st := p.wait(); st.ExitCode() != 0 {
				t.Errorf("exit at stdin EOF = %v, want status 0", st)
			}
			for line := range strings.Lines(p.stdout.String()) {
				if !json.Valid([]byte(line)) || !strings.HasSuffix(line, "\n") {
					t.Errorf("stdout line %q is not a whole JSON line", line)
				}
			}
			if strings.Contains(p.stdout.String(), "fixture:") {
				t.Errorf("stdout holds a stray print:\n%s", p.stdout.String())
			}
			if tc.env != nil && !p.stderr.Has("fixture: printed between TakeStdout and Run") {
				t.Errorf("the print between TakeStdout and Run is not on stderr")
			}
			if !p.stderr.Has("fixture: Run returned nil") {
				t.Errorf("Run did not return nil at EOF")
			}
		})
	}
}

// SIGTERM or SIGINT with a request in flight: Run stops reading stdin (a
// request sent afterwards is never answered), lets the request finish,
// and returns nil; the process exits 0 with its stdin still open.
func TestRunSignalLetsRequestsFinish(t *testing.T) { // scenario 99
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			p := startRun(t)
			p.call(1, "wait", `{}`)
			p.progress(1) // the handler runs
			p.signal(sig)
			p.stderr.WaitFor(p.ctx, t, "stdio: shutting down: input is no longer read", "running=1")
			p.call(2, "echo", `{"message":"too late"}`)
			p.signal(syscall.SIGUSR1) // the handler may finish now
			if got := p.result(1); got != "finished" {
				t.Errorf("the request in flight at %v = %q, want finished", sig, got)
			}
			if st := p.wait(); st.ExitCode() != 0 {
				t.Errorf("exit after %v = %v, want status 0", sig, st)
			}
			if rest := p.stdout.String(); strings.Contains(rest, "too late") || strings.Count(rest, "\n") != 2 {
				t.Errorf("stdout after %v:\n%s\nwant the progress and the one response only", sig, rest)
			}
			if !p.stderr.Has("fixture: Run returned nil") {
				t.Errorf("Run did not return nil after %v", sig)
			}
		})
	}
}

// A request still running at the end of ShutdownGrace is cancelled,
// unanswered, and Run returns an error that says so.
func TestRunGraceEnds(t *testing.T) { // scenario 100
	p := startRun(t, "RUN_TEST_GRACE=50ms")
	p.call(1, "wait", `{}`)
	p.progress(1)
	p.signal(syscall.SIGTERM)
	if st := p.wait(); st.ExitCode() != 1 {
		t.Errorf("exit = %v, want status 1 (Run's error)", st)
	}
	if !p.stderr.Has("fixture: wait cancelled") {
		t.Errorf("the handler's ctx did not end")
	}
	if !p.stderr.Has("fixture: Run: stdio: cancelled 1 request still running at the end of the 50ms shutdown grace") {
		t.Errorf("Run's error does not count the cancelled request")
	}
	if strings.Count(p.stdout.String(), "\n") != 1 {
		t.Errorf("stdout:\n%s\nwant the progress only", p.stdout.String())
	}
}

// A second signal while Run waits for a request ends the process at once,
// by that signal, whatever the grace.
func TestRunSecondSignalExits(t *testing.T) { // scenario 101
	p := startRun(t, "RUN_TEST_GRACE=1h")
	p.call(1, "wait", `{}`)
	p.progress(1)
	p.signal(syscall.SIGTERM)
	p.stderr.WaitFor(p.ctx, t, "stdio: shutting down: input is no longer read")
	p.signal(syscall.SIGTERM)
	st := p.wait()
	if ws, ok := st.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("exit after a second SIGTERM = %v, want killed by SIGTERM", st)
	}
	if p.stderr.Has("fixture: Run") {
		t.Errorf("Run returned instead of the process ending")
	}
}
