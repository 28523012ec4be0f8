//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpbridge/mcpbridge/bridge/access"
)

// keyBridge runs `mcpbridge serve --config` in front of the demo with one
// API key, ci-bot's, and the rules given (YAML list items), and returns
// it with grpcurl's arguments for a plaintext call with that key.
func keyBridge(t *testing.T, rules string) (b *bridgeProcess, config string, withKey []string) {
	t.Helper()
	key := "ci-bot-key-8c2e4f6a1b3d5e7f9a0b"
	config = writeConfig(t, "", fmt.Sprintf(`auth:
  api_keys:
    - {principal: ci-bot, sha256: %s}
rules:
%sservers:
  - command: %s
`, access.HashKey(key), rules, yamlList([]string{mcpbridgeBin, "demo"})))
	b = startBridge(t, nil, "--config", config)
	return b, config, []string{"-plaintext", "-H", "authorization: Bearer " + key}
}

// TestServeRuleGrantsOnlyWhatItNames: a rule that names the echo tool and
// no resources or prompts grants echo and nothing else, and the bridge
// warns of it at start and at each reload.
func TestServeRuleGrantsOnlyWhatItNames(t *testing.T) {
	g := findGrpcurl(t)
	b, _, withKey := keyBridge(t, "  - {principals: [ci-bot], servers: [\"*\"], tools: [echo]}\n")
	rpc := func(method, req string) (string, int) {
		_, stderr, code := g.run(t, append(withKey, "-d", req, b.addr, "mcpbridge.v1.BridgeService/"+method)...)
		return stderr, code
	}
	if echoed, stderr, code := g.echo(t, b.addr, "hi", withKey...); code != 0 || echoed != "hi" {
		t.Errorf("CallTool echo = %q, exit %d, %s", echoed, code, stderr)
	}
	for _, c := range []struct{ method, req string }{
		{"ReadResource", `{"uri":"demo://about"}`},
		{"GetPrompt", `{"name":"greet","arguments":{"name":"Ada"}}`},
	} {
		if stderr, code := rpc(c.method, c.req); code == 0 || !strings.Contains(stderr, "PermissionDenied") {
			t.Errorf("%s %s = exit %d, %s; want PermissionDenied", c.method, c.req, code, stderr)
		}
	}
	warning := `rules[0]: the rule names no resources or prompts: it grants none of them`
	if !b.log.Has("level=WARN", warning) {
		t.Errorf("the start-up log does not warn %q", warning)
	}
	if err := b.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	b.log.WaitFor(ctx, t, "configuration reloaded")
	if n := strings.Count(b.log.String(), warning); n != 2 {
		t.Errorf("the log warns %d times, want 2 (start and reload)", n)
	}
}

// TestServeResourcePatternsSeeDecodedURIs: a rule's resource pattern is
// matched against the URI decoded and normalised, so an escaped ".." does
// not reach past it: demo://greeting/..%2fcounter is refused where
// demo://greeting/bob is read.
func TestServeResourcePatternsSeeDecodedURIs(t *testing.T) {
	g := findGrpcurl(t)
	b, _, withKey := keyBridge(t, "  - {principals: [ci-bot], servers: [\"*\"], tools: [], resources: [\"demo://greeting/*\"], prompts: []}\n")
	read := func(uri string) (string, string, int) {
		return g.run(t, append(withKey, "-d", fmt.Sprintf(`{"uri":%q}`, uri), b.addr, "mcpbridge.v1.BridgeService/ReadResource")...)
	}
	if out, stderr, code := read("demo://greeting/bob"); code != 0 || !strings.Contains(out, "Hello, bob!") {
		t.Errorf("ReadResource demo://greeting/bob = %s, exit %d, %s; want the greeting", out, code, stderr)
	}
	for _, uri := range []string{"demo://greeting/..%2fcounter", "demo://greeting/%2e%2e/counter", "demo://counter"} {
		if out, stderr, code := read(uri); code == 0 || !strings.Contains(stderr, "PermissionDenied") {
			t.Errorf("ReadResource %s = %s, exit %d, %s; want PermissionDenied", uri, out, code, stderr)
		}
	}
}

// TestServeIsNotDumpable runs `mcpbridge serve` as an unprivileged user
// (nobody, uid 65534) and checks that the entries in its /proc/<pid>
// (environ, mem, status) belong to root rather than to that user: the
// kernel's sign of a non-dumpable process, whose environment and memory
// other processes of its user cannot read and which they cannot ptrace. Root is needed to start a
// process as another user (CI runs as root).
func TestServeIsNotDumpable(t *testing.T) {
	if os.Geteuid() != 0 {
		const why = "needs root, to run the bridge as uid 65534 and see its /proc entries' owner"
		if os.Getenv("CI") == "true" {
			t.Fatal(why + " (CI runs as root; CI=true makes this a failure)")
		}
		t.Skip(why)
	}
	// The binary where that user may read and run it: a readable binary
	// keeps the process dumpable across exec, as any user's would be.
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "mcpbridge")
	data, err := os.ReadFile(mcpbridgeBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	const nobody = 65534
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	b := startBridgeCmd(t, cmd)
	pid := b.cmd.Process.Pid
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil || !regexp.MustCompile(`(?m)^Uid:\s+65534\s`).Match(status) {
		t.Fatalf("the bridge does not run as uid 65534: %v\n%s", err, status)
	}
	for _, name := range []string{"environ", "mem", "status"} {
		path := fmt.Sprintf("/proc/%d/%s", pid, name)
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if uid := info.Sys().(*syscall.Stat_t).Uid; uid != 0 {
			t.Errorf("%s belongs to uid %d, want 0: the bridge is dumpable", path, uid)
		}
	}
}
