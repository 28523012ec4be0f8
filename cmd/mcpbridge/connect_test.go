package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// hostRun is what a host saw of one `mcpbridge connect`: the lines it
// read on connect's stdout, connect's stderr and its exit status.
type hostRun struct {
	answers  []map[string]any
	stderr   string
	code     int
	lingered bool // it did not exit within 10 s of its stdin's end, and was killed
}

// runHost runs `mcpbridge connect args...` as a host would (runStdio).
func runHost(t *testing.T, env []string, args []string, lines ...string) hostRun {
	t.Helper()
	run := runStdio(t, env, append([]string{mcpbridgeBin, "connect"}, args...), lines...)
	if run.lingered {
		t.Fatalf("connect %q did not exit when its stdin ended; stderr:\n%s", args, run.stderr)
	}
	return run
}

// runStdio runs the stdio MCP server argv as a host would: it writes each
// of lines to its stdin, reading one answer after each request (a line
// with an id and a method) and skipping the notifications and requests
// the server sends meanwhile, then closes stdin and waits for the exit.
// env is added to the environment.
func runStdio(t *testing.T, env []string, argv []string, lines ...string) hostRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var run hostRun
	out := bufio.NewReader(stdout)
	for _, line := range lines {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			break // connect has exited: what it said is on stdout and stderr
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("a test line %s: %v", line, err)
		}
		if m["id"] == nil || m["method"] == nil {
			continue // a notification: nothing to wait for
		}
		a, ok := readAnswer(t, out, m["id"])
		if !ok {
			break
		}
		run.answers = append(run.answers, a)
	}
	stdin.Close()
	// A server that outlives its stdin (server-everything does) is
	// stopped, as a host stops it; connect must exit by itself (runHost).
	waited := make(chan error, 1)
	go func() {
		_, _ = io.Copy(io.Discard, out)
		waited <- cmd.Wait()
	}()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		run.lingered = true
		_ = cmd.Process.Kill()
		<-waited
	}
	run.stderr, run.code = stderr.String(), cmd.ProcessState.ExitCode()
	return run
}

// readAnswer reads out's messages up to the answer to the request id.
func readAnswer(t *testing.T, out *bufio.Reader, id any) (map[string]any, bool) {
	t.Helper()
	for {
		line, err := out.ReadString('\n')
		if err != nil {
			return nil, false
		}
		var a map[string]any
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("the server wrote %q, not a JSON-RPC message: %v", line, err)
		}
		if a["method"] == nil && a["id"] == id {
			return a, true
		}
	}
}

// A host's handshake and one list, as a 2025-11-25 host sends them.
const (
	hostInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test-host","version":"1"}}}`
	hostInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	hostListTools   = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

// errorOf is an answer's JSON-RPC error message, "" for a result.
func errorOf(a map[string]any) string {
	e, _ := a["error"].(map[string]any)
	msg, _ := e["message"].(string)
	return msg
}

// TestConnectTLSAndToken: `mcpbridge connect` reaches a bridge that
// serves TLS and wants an API key, with the CA from --ca and the key from
// the environment or a file, and the host gets the server's answers. Each
// way it can fail answers the host's initialize with a JSON-RPC error
// that says what went wrong and what to do, says the same on stderr, and
// exits 1: a CA that did not sign the bridge's certificate, a wrong key,
// no key, a server the bridge does not front, TLS to a plaintext bridge,
// a bridge that is not there.
func TestConnectTLSAndToken(t *testing.T) {
	f := newTLSFiles(t)
	key := "host-key-0b7d2c9e4f1a6358"
	config := writeConfig(t, "", fmt.Sprintf("auth:\n  api_keys:\n    - {principal: host, sha256: %s}\nservers:\n  - name: demo\n    command: %s\n",
		access.HashKey(key), yamlList([]string{mcpbridgeBin, "demo"})))
	b := startBridge(t, nil, append(f.args(), "--config", config)...)
	plain := startBridge(t, nil) // the demo, plaintext, no authentication
	keyFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	otherCA := filepath.Join(t.TempDir(), "other-ca.pem")
	testkit.WriteFileAtomic(t, otherCA, testkit.NewCA(t, "a CA the bridge does not use").PEM)
	closed := closedPort(t)

	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"token from the environment", []string{"MCPBRIDGE_TOKEN=" + key}, []string{"--addr", b.addr, "--ca", f.caFile}},
		{"token from a file", nil, []string{"--addr", b.addr, "--ca", f.caFile, "--token-file", keyFile, "--server", "demo"}},
		{"token from another variable", []string{"HOST_TOKEN=" + key}, []string{"--addr", b.addr, "--tls", "--ca", f.caFile, "--token-env", "HOST_TOKEN"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := runHost(t, c.env, c.args, hostInitialize, hostInitialized, hostListTools)
			if run.code != 0 || len(run.answers) != 2 || errorOf(run.answers[0]) != "" || !strings.Contains(fmt.Sprint(run.answers[1]["result"]), "echo") {
				t.Fatalf("connect = exit %d, answers %v, stderr %s; want the handshake and a tools list with echo", run.code, run.answers, run.stderr)
			}
		})
	}

	for _, c := range []struct {
		name string
		env  []string
		args []string
		want []string // in the host's error and on stderr
	}{
		{"a CA that did not sign the bridge's certificate", []string{"MCPBRIDGE_TOKEN=" + key}, []string{"--addr", b.addr, "--ca", otherCA},
			[]string{"does not trust", "--ca"}},
		{"a wrong key", []string{"MCPBRIDGE_TOKEN=" + key + "x"}, []string{"--addr", b.addr, "--ca", f.caFile},
			[]string{"refused this host's credentials", "$MCPBRIDGE_TOKEN"}},
		{"no key", []string{"MCPBRIDGE_TOKEN="}, []string{"--addr", b.addr, "--ca", f.caFile},
			[]string{"refused this host's credentials"}},
		{"a server the bridge does not front", []string{"MCPBRIDGE_TOKEN=" + key}, []string{"--addr", b.addr, "--ca", f.caFile, "--server", "nope"},
			[]string{`fronts no server "nope"`, "--server"}},
		{"TLS to a plaintext bridge", nil, []string{"--addr", plain.addr, "--tls"},
			[]string{"does not serve TLS", "--insecure"}},
		{"plaintext to a TLS bridge", nil, []string{"--addr", b.addr},
			[]string{"if it serves TLS, dial it with --tls"}},
		{"no bridge there", nil, []string{"--addr", closed},
			[]string{"cannot reach the bridge at " + closed, "check --addr"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := runHost(t, c.env, c.args, hostInitialize, hostInitialized, hostListTools)
			if run.code != 1 || len(run.answers) != 1 || run.answers[0]["id"] != float64(1) {
				t.Fatalf("connect = exit %d, answers %v, stderr %s; want exit 1 and the initialize answered", run.code, run.answers, run.stderr)
			}
			msg := errorOf(run.answers[0])
			for _, want := range c.want {
				if !strings.Contains(msg, want) || !strings.Contains(run.stderr, want) {
					t.Errorf("the host's error %q and stderr %q; want both to say %q", msg, run.stderr, want)
				}
			}
			if strings.Contains(run.stderr, key) || strings.Contains(msg, key) {
				t.Errorf("the key leaked into what connect says: %q, %q", msg, run.stderr)
			}
		})
	}
}

// TestConnectNamesNoServerAmongSeveral: connect without --server to a
// bridge that fronts several servers fails with a message that says so,
// names them, and says to pick one with --server.
func TestConnectNamesNoServerAmongSeveral(t *testing.T) {
	t.Parallel()
	demo := yamlList([]string{mcpbridgeBin, "demo"})
	config := writeConfig(t, "", fmt.Sprintf("servers:\n  - name: demo\n    command: %s\n  - name: demo2\n    command: %s\n", demo, demo))
	b := startBridge(t, nil, "--config", config)
	run := runHost(t, nil, []string{"--addr", b.addr}, hostInitialize, hostInitialized, hostListTools)
	if run.code != 1 || len(run.answers) != 1 {
		t.Fatalf("connect = exit %d, answers %v, stderr %s; want exit 1 and the initialize answered", run.code, run.answers, run.stderr)
	}
	msg := errorOf(run.answers[0])
	for _, want := range []string{"the bridge at " + b.addr + " fronts several servers", `("demo", "demo2")`, "--server NAME"} {
		if !strings.Contains(msg, want) || !strings.Contains(run.stderr, want) {
			t.Errorf("the host's error %q and stderr %q; want both to say %q", msg, run.stderr, want)
		}
	}
}

// TestConnectSlowChildSaysHandshake: when the host's own child does not
// complete the handshake in time (its start is slow), the host is told
// so, as the bridge's log says, and that the bridge could not start the
// server.
func TestConnectSlowChildSaysHandshake(t *testing.T) {
	t.Parallel()
	b := startBridge(t, nil, "--handshake-timeout", "1s", "--", "sh", "-c", `sleep 5 && exec "$0" demo`, mcpbridgeBin)
	run := runHost(t, nil, []string{"--addr", b.addr}, hostInitialize, hostInitialized, hostListTools)
	if run.code != 1 || len(run.answers) != 1 {
		t.Fatalf("connect = exit %d, answers %v, stderr %s; want exit 1 and the initialize answered", run.code, run.answers, run.stderr)
	}
	msg := errorOf(run.answers[0])
	for _, want := range []string{"could not start the server", "did not complete the handshake in time"} {
		if !strings.Contains(msg, want) || !strings.Contains(run.stderr, want) {
			t.Errorf("the host's error %q and stderr %q; want both to say %q", msg, run.stderr, want)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	b.log.WaitFor(ctx, t, "did not complete the handshake in time")
}

// TestConnectFlagErrors: flags that cannot work together are usage
// errors (exit 2), before anything is dialled.
func TestConnectFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cert", "c.pem"}, "--cert and --key go together"},
		{[]string{"--insecure", "--tls"}, "--insecure dials plaintext"},
		{[]string{"--ca", "/nonexistent/ca.pem"}, "--ca: open /nonexistent/ca.pem"},
		{[]string{"--token-file", "/nonexistent/token"}, "--token-file: open /nonexistent/token"},
		{[]string{"--metadata", "novalue"}, "want key=value"},
	} {
		run := runHost(t, nil, c.args)
		if run.code != 2 || !strings.Contains(run.stderr, c.want) {
			t.Errorf("connect %q = exit %d, %q; want exit 2 and %q", c.args, run.code, run.stderr, c.want)
		}
	}
}

// closedPort is a loopback address where nothing listens.
func closedPort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
