package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// grpcurlStream is a grpcurl process that keeps running: a Subscribe or a
// Connect whose stdin the test writes, and whose output lines it reads as
// they come.
type grpcurlStream struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *testkit.Lines
	stderr strings.Builder
	exited chan struct{}
}

// start runs grpcurl with args, -d @ (messages from stdin) when withStdin.
func (g grpcurl) start(t *testing.T, withStdin bool, args ...string) *grpcurlStream {
	t.Helper()
	if withStdin {
		args = append([]string{"-d", "@"}, args...)
	}
	s := &grpcurlStream{cmd: exec.Command(g.path, args...), out: &testkit.Lines{}, exited: make(chan struct{})}
	s.cmd.Stderr = &s.stderr
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if withStdin {
		if s.stdin, err = s.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { // the reader, then the sole caller of Wait
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			s.out.Add(sc.Text())
		}
		s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		<-s.exited
		t.Logf("$ grpcurl %s\n%s%s", shellQuote(args), s.out, s.stderr.String())
	})
	return s
}

// send writes one Connect message carrying a JSON-RPC message.
func (s *grpcurlStream) send(t *testing.T, message string) {
	t.Helper()
	if _, err := fmt.Fprintf(s.stdin, "{\"message_json\": %q}\n", message); err != nil {
		t.Fatal(err)
	}
}

// wait waits for grpcurl to exit and returns its stderr and exit code.
func (s *grpcurlStream) wait(ctx context.Context, t *testing.T) (string, int) {
	t.Helper()
	select {
	case <-s.exited:
	case <-ctx.Done():
		t.Fatal("grpcurl did not exit")
	}
	return s.stderr.String(), s.cmd.ProcessState.ExitCode()
}

// operatorConfig is the config file of docs/security.md's set-up: the API
// keys of principals (from keys), a rule that lets alice and bob use
// everything, a bridge-wide limit of 4 concurrent calls and an audit file,
// in front of the demo argv as the server "demo". head comes first: other
// top-level keys.
func operatorConfig(head string, keys map[string]string, audit string, demo []string, principals ...string) string {
	var b strings.Builder
	b.WriteString(head + "auth:\n  api_keys:\n")
	for _, p := range principals {
		fmt.Fprintf(&b, "    - {principal: %s, sha256: %s}\n", p, access.HashKey(keys[p]))
	}
	fmt.Fprintf(&b, `rules:
  - {principals: [alice, bob], servers: ["*"], tools: ["*"], resources: ["*"], prompts: ["*"]}
limits: {concurrent: 4}
audit: %s
servers:
  - name: demo
    command: %s
`, audit, yamlList(demo))
	return b.String()
}

// TestOneDoorAsAnOperator runs `mcpbridge serve --config` in front of the
// demo as docs/security.md sets it up (API keys, a rule, a bridge-wide
// limit, an audit file) and drives it with grpcurl: the limit holds
// inside a Connect tunnel as on CallTool, a caller the rule does not name
// is refused and audited on every path, and a key removed by a SIGHUP
// reload ends the streams it had open.
func TestOneDoorAsAnOperator(t *testing.T) {
	g := findGrpcurl(t)
	keys := map[string]string{"alice": "alice-key-5d1f0c3e9a7b4c2d8e6f", "bob": "bob-key-5d1f0c3e9a7b4c2d8e6f", "carol": "carol-key-5d1f0c3e9a7b4c2d8e6f"}
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	config := func(principals ...string) string {
		return operatorConfig("", keys, audit, []string{mcpbridgeBin, "demo"}, principals...)
	}
	path := writeConfig(t, "", config("alice", "bob", "carol"))
	b := startBridge(t, nil, "--config", path)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	as := func(who string, args ...string) []string {
		return append([]string{"-plaintext", "-H", "authorization: Bearer " + keys[who]}, args...)
	}
	call := func(id int, params string) string {
		return `{"jsonrpc":"2.0","id":` + fmt.Sprint(id) + `,"method":"tools/call","params":` + testkit.WithModernMeta(params) + `}`
	}

	// Eight 1.5 s calls in one tunnel: four run, four are refused, as
	// four of eight CallTools would be.
	tun := g.start(t, true, as("alice", b.addr, "mcpbridge.v1.BridgeService/Connect")...)
	for i := 1; i <= 8; i++ {
		tun.send(t, call(i, `{"name":"progress","arguments":{"seconds":1.5,"steps":1}}`))
	}
	tun.stdin.Close()
	if stderr, code := tun.wait(ctx, t); code != 0 {
		t.Fatalf("alice's tunnel ended with exit %d: %s", code, stderr)
	}
	out := tun.out.String()
	if refused, done := strings.Count(out, "Too many requests"), strings.Count(out, "done: 1 steps"); refused != 4 || done != 4 {
		t.Errorf("eight 1.5 s calls in one tunnel under concurrent: 4: %d refused, %d done; want 4 and 4", refused, done)
	}

	// carol may use nothing: refused on every path, and on the record.
	for _, c := range []struct{ method, data string }{
		{"CallTool", `{"name":"echo","arguments":{"message":"hi"}}`},
		{"ReadResource", `{"uri":"demo://about"}`},
		{"Call", `{"method":"tools/list"}`},
		{"Subscribe", `{}`},
	} {
		if _, stderr, code := g.run(t, as("carol", "-d", c.data, b.addr, "mcpbridge.v1.BridgeService/"+c.method)...); code == 0 || !strings.Contains(stderr, "PermissionDenied") {
			t.Errorf("carol's %s = exit %d, %s; want PermissionDenied", c.method, code, stderr)
		}
	}
	carols := g.start(t, true, as("carol", b.addr, "mcpbridge.v1.BridgeService/Connect")...)
	carols.send(t, call(1, `{"name":"echo","arguments":{"message":"hi"}}`))
	carols.stdin.Close()
	if stderr, code := carols.wait(ctx, t); code == 0 || !strings.Contains(stderr, "PermissionDenied") {
		t.Errorf("carol's Connect = exit %d, %s; want PermissionDenied", code, stderr)
	}
	data, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"tools/call", "resources/read", "tools/list", "Subscribe", "Connect"} {
		want := fmt.Sprintf(`"method":%q,"name":`, method)
		found := false
		for line := range strings.SplitSeq(string(data), "\n") {
			if strings.Contains(line, want) && strings.Contains(line, `"principal":"carol"`) && strings.Contains(line, `"refused":"permission_denied"`) {
				found = true
			}
		}
		if !found {
			t.Errorf("no audit record of carol's refused %s in %s", method, data)
		}
	}
	if n := strings.Count(string(data), `"refused":"limited"`); n != 4 {
		t.Errorf("%d audit records of refusals by the limit, want the tunnel's 4", n)
	}

	// bob's Subscribe and tunnel, open when his key is removed, end.
	sub := g.start(t, false, as("bob", "-d", `{"resources_list_changed":true}`, b.addr, "mcpbridge.v1.BridgeService/Subscribe")...)
	sub.out.WaitFor(ctx, t, "acknowledged")
	bobs := g.start(t, true, as("bob", b.addr, "mcpbridge.v1.BridgeService/Connect")...)
	bobs.send(t, call(1, `{"name":"echo","arguments":{"message":"before"}}`))
	bobs.out.WaitFor(ctx, t, "before")
	writeConfig(t, path, config("alice", "carol"))
	if err := b.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	b.log.WaitFor(ctx, t, "configuration reloaded")
	if stderr, code := sub.wait(ctx, t); code == 0 || !strings.Contains(stderr, "Unauthenticated") {
		t.Errorf("bob's Subscribe after his key was removed: exit %d, %s; want Unauthenticated", code, stderr)
	}
	// grpcurl reads its stdin until it closes, whatever the stream did: a
	// call sent now would be answered, and the tunnel end OK, had the
	// tunnel outlived the key.
	bobs.send(t, call(2, `{"name":"echo","arguments":{"message":"after"}}`))
	bobs.stdin.Close()
	if stderr, code := bobs.wait(ctx, t); code == 0 || !strings.Contains(stderr, "Unauthenticated") || bobs.out.Has("after") {
		t.Errorf("bob's tunnel after his key was removed: exit %d, %s; want Unauthenticated", code, stderr)
	}
	if echoed, stderr, code := g.echo(t, b.addr, "after", as("bob")...); code == 0 || !strings.Contains(stderr, "Unauthenticated") {
		t.Errorf("bob's CallTool after the reload = %q, exit %d, %s; want Unauthenticated", echoed, code, stderr)
	}
	if echoed, _, code := g.echo(t, b.addr, "still", as("alice")...); code != 0 || echoed != "still" {
		t.Errorf("alice's CallTool after the reload = %q, exit %d", echoed, code)
	}
}
