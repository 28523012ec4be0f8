//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// These tests run the built mcpbridge binary's command line: help,
// version, the one style of its usage errors, its exit statuses, and
// --log-format. They wait for the process to exit or for log lines, never
// for time to pass; cliTimeout only keeps a broken binary (one that
// starts serving instead of failing) from hanging the test.

const cliTimeout = 2 * time.Minute

// runCLI runs mcpbridge with args in dir (empty: ours), which must exit
// by itself without serving, and returns its stdout, its stderr and its
// exit status. When it logs that it is serving, runCLI kills it and
// fails t at once.
func runCLI(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpbridgeBin, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout = &out
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	served := false
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		errOut.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "mcpbridge: serving") {
			served = true
			cmd.Process.Kill()
			break // Wait closes the pipe
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case served:
		t.Fatalf("mcpbridge %s started serving instead of exiting; stderr:\n%s", strings.Join(args, " "), &errOut)
	case ctx.Err() != nil:
		t.Fatalf("mcpbridge %s did not exit by itself; stderr:\n%s", strings.Join(args, " "), &errOut)
	case err != nil && !errors.As(err, &exit):
		t.Fatalf("running mcpbridge %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

var versionRE = regexp.MustCompile(`^mcpbridge \S+ \(go1\.[^)]+\)\n$`)

// help and version print to stdout and exit 0; every subcommand has its
// line in the help.
func TestCLIHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"-help"}, {"help", "help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", args...)
			if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: mcpbridge [command]") {
				t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0 and the help on stdout only", code, stdout, stderr)
			}
			for _, c := range commands {
				if !regexp.MustCompile(`(?m)^  ` + c.name + ` +` + regexp.QuoteMeta(c.summary) + `$`).MatchString(stdout) {
					t.Errorf("the help lacks the line of %s (%q):\n%s", c.name, c.summary, stdout)
				}
			}
		})
	}
	for _, args := range [][]string{{"help", "serve"}, {"serve", "-h"}, {"serve", "--help"}, {"--listen", ":0", "-h"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", args...)
			if code != 0 || stderr != "" || !testkit.ContainsAll(stdout, "usage: mcpbridge serve", "-listen", "-log-format", "-log-level", "-version", "Exit status") {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0 and serve's usage on stdout only", code, stdout, stderr)
			}
		})
	}
	// demo and connect are stdio MCP servers: their stdout is the
	// protocol's, and their usage goes to stderr.
	for _, sub := range []string{"demo", "connect"} {
		t.Run("help "+sub, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", "help", sub)
			if code != 0 || stdout != "" || !strings.HasPrefix(stderr, "usage: mcpbridge "+sub) {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0 and %s's usage on stderr", code, stdout, stderr, sub)
			}
		})
	}
	var first string
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}, {"serve", "--version"}, {"--listen", ":0", "--version"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", args...)
			if code != 0 || stderr != "" || !versionRE.MatchString(stdout) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 0 and \"mcpbridge <version> (go<version>)\" on stdout", code, stdout, stderr)
			}
			if first == "" {
				first = stdout
			} else if stdout != first {
				t.Errorf("stdout %q, want the same as the others: %q", stdout, first)
			}
		})
	}
}

// A mistake on the command line is one line, in one style, with exit
// status 2, before anything starts.
func TestCLIUsageErrors(t *testing.T) {
	usage := func(sub, msg string) string {
		return "mcpbridge " + sub + ": " + msg + "\nRun 'mcpbridge " + sub + " -h' for usage.\n"
	}
	for _, tc := range []struct {
		args []string
		want string // all of stderr
	}{
		{[]string{"bogus"}, "mcpbridge: unknown command \"bogus\"; run 'mcpbridge help'\n"},
		{[]string{"npx", "-y", "server-everything"}, "mcpbridge: unknown command \"npx\"; run 'mcpbridge help'\n"},
		{[]string{"-"}, "mcpbridge: unknown command \"-\"; run 'mcpbridge help'\n"},
		{[]string{"--bogus"}, usage("serve", "flag provided but not defined: --bogus")},
		{[]string{"serve", "--bogus"}, usage("serve", "flag provided but not defined: --bogus")},
		{[]string{"serve", "--listen"}, usage("serve", "flag needs an argument: --listen")},
		{[]string{"serve", "--max-message-bytes", "16MiB"}, usage("serve", `invalid value "16MiB" for flag --max-message-bytes: want a whole number`)},
		{[]string{"--listen", "127.0.0.1:99999"}, usage("serve", `invalid value "127.0.0.1:99999" for flag --listen: the port must be a number from 0 to 65535`)},
		{[]string{"serve", "--listen", "127.0.0.1:http"}, usage("serve", `invalid value "127.0.0.1:http" for flag --listen: the port must be a number from 0 to 65535`)},
		{[]string{"serve", "--listen", "127.0.0.1:-1"}, usage("serve", `invalid value "127.0.0.1:-1" for flag --listen: the port must be a number from 0 to 65535`)},
		{[]string{"--log-format", "xml"}, usage("serve", `invalid value "xml" for flag --log-format: want text or json`)},
		// Lowering only --max-deadline below the default deadline is no
		// mistake, and does not skip the checks of the other flags.
		{[]string{"--max-deadline", "1s", "--log-format", "xml"}, usage("serve", `invalid value "xml" for flag --log-format: want text or json`)},
		{[]string{"--max-deadline", "1s", "--grace", "0"}, usage("serve", `invalid value "0s" for flag --grace: must be positive`)},
		{[]string{"--listen", "127.0.0.1:0", "npx", "server"}, usage("serve", `unexpected argument "npx": without the serve subcommand, the server command must follow --`)},
		{[]string{"help", "nope"}, usage("help", `unknown command "nope"`)},
		{[]string{"help", "serve", "demo"}, usage("help", `unexpected argument "demo": help takes one command`)},
		{[]string{"version", "now"}, usage("version", `unexpected argument "now"`)},
		{[]string{"version", "--short"}, usage("version", "flag provided but not defined: --short")},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", tc.args...)
			if code != 2 || stdout != "" || stderr != tc.want {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2, no stdout, and stderr:\n%s", code, stdout, stderr, tc.want)
			}
		})
	}
}

// A server command that cannot be run fails at once, before the bridge
// listens, with exit status 1 and the reason, instead of a restart loop.
func TestCLIServerCommandCannotRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "testdata", "not-executable-file"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string // in stderr
	}{
		{[]string{"serve", "--listen", "127.0.0.1:0", "--", "/nonexistent"}, []string{`"/nonexistent"`, "no such file or directory"}},
		{[]string{"--listen", "127.0.0.1:0", "--", "/nonexistent", "arg"}, []string{`"/nonexistent"`, "no such file or directory"}},
		{[]string{"serve", "--listen", "127.0.0.1:0", "/nonexistent"}, []string{`"/nonexistent"`, "no such file or directory"}},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--", "./testdata/not-executable-file"}, []string{`"./testdata/not-executable-file"`, "permission denied"}},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--", "./testdata"}, []string{`"./testdata"`, "is a directory"}},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--", "mcpbridge-test-no-such-command"}, []string{`"mcpbridge-test-no-such-command"`, "executable file not found in $PATH"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, dir, tc.args...)
			want := append([]string{"mcpbridge serve: cannot run the server command "}, tc.want...)
			if code != 1 || stdout != "" || !testkit.ContainsAll(stderr, want...) || strings.Contains(stderr, "mcpbridge: serving") {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1 before serving, with %q", code, stdout, stderr, want)
			}
		})
	}
}

// --log-format json makes every line of the log a JSON object, the
// per-call lines included, which name the server, the MCP method and the
// tool, and not its arguments.
func TestCLILogFormatJSON(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), cliTimeout)
	defer cancel()
	cmd := exec.Command(mcpbridgeBin, "serve", "--listen", "127.0.0.1:0", "--log-format", "json", "--name", "demo",
		"--", mcpbridgeBin, "demo", "-tick", "0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	log, exited := &testkit.Lines{}, make(chan struct{})
	go func() { // the reader, then the sole caller of Wait
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			log.Add(sc.Text())
		}
		io.Copy(io.Discard, stderr)
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("the bridge's log:\n%s", log)
		}
	})
	record := func(line string) map[string]any {
		t.Helper()
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q is not a JSON object: %v", line, err)
		}
		return rec
	}

	record(log.WaitFor(ctx, t, "")) // the first line, whatever it says
	serving := record(log.WaitFor(ctx, t, `"msg":"mcpbridge: serving"`))
	addr, _ := serving["listen"].(string)
	if addr == "" {
		t.Fatalf("the serving record %v lacks the address", serving)
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const secret = "an-argument-the-log-must-not-hold"
	args, err := structpb.NewStruct(map[string]any{"message": secret})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mcpbridgev1.NewBridgeServiceClient(conn).CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "echo", Arguments: args}); err != nil {
		t.Fatalf("CallTool(echo): %v", err)
	}
	call := record(log.WaitFor(ctx, t, `"msg":"finished call"`, `"grpc.method":"CallTool"`))
	for k, v := range map[string]string{"server": "demo", "mcp.method": "tools/call", "mcp.name": "echo", "grpc.code": "OK"} {
		if call[k] != v {
			t.Errorf("the call's record has %s = %v, want %q: %v", k, call[k], v, call)
		}
	}
	if _, ok := call["grpc.time_ms"]; !ok {
		t.Errorf("the call's record lacks grpc.time_ms: %v", call)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-ctx.Done():
		t.Fatalf("the bridge did not exit after SIGTERM")
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0", code)
	}
	lines := strings.Split(log.String(), "\n")
	for _, line := range lines {
		if msg, _ := record(line)["msg"].(string); msg == "" {
			t.Errorf("log line %q has no msg", line)
		}
	}
	if !log.Has(`"msg":"mcpbridge: stopped"`) || strings.Contains(log.String(), secret) {
		t.Errorf("want the log to end with \"mcpbridge: stopped\" and to hold no argument")
	}
}
