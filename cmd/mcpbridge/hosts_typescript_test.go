//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// The official TypeScript SDK client as an MCP host (testdata/peers/host.mjs,
// with @modelcontextprotocol/sdk from testdata/peers), three times: once
// launching a server itself, once launching `mcpbridge connect` on a
// bridge that fronts the same server, and once with
// StreamableHTTPClientTransport at that bridge's HTTP front door
// (/mcp/{server}). The bridge asks for an API key, which connect and the
// HTTP transport send as a bearer token. The lines host.mjs prints, one per
// operation, must be the same. The TypeScript SDK speaks 2025-11-25 and
// opens with initialize, so through connect, and per HTTP session, it gets
// a tunnel child of its own.

// installHostPeers installs host.mjs's packages, run from the module root.
const installHostPeers = "npm ci --prefix testdata/peers"

// hostScript returns the argv prefix that runs host.mjs with node, or ends
// the test (testkit.MissingPeer) when node or the SDK is not installed.
func hostScript(t *testing.T) []string {
	t.Helper()
	return peerScript(t, "host.mjs", "@modelcontextprotocol/sdk")
}

// hostLine is one line host.mjs prints.
type hostLine struct {
	Op     string          `json:"op"`
	Result json.RawMessage `json:"result"`
	Check  string          `json:"check"` // what host.mjs found wrong with the result
}

// runTypeScriptHost runs host.mjs's scenario on the stdio server argv and
// returns its lines. The direct run (checked) must also pass host.mjs's own
// checks, so that both runs agreeing on an error cannot pass.
func runTypeScriptHost(t *testing.T, script []string, scenario string, argv []string, env []string, checked bool) hostOps {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, script[0], append(append(script[1:], scenario), argv...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 10 * time.Second
	var stdout bytes.Buffer
	stderr := &testkit.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("host.mjs %s on %q: %v\nstdout:\n%s\nstderr:\n%s", scenario, argv, err, stdout.String(), stderr)
	}
	var ops hostOps
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var l hostLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("host.mjs printed %q: %v", sc.Text(), err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, l.Result); err != nil {
			t.Fatalf("host.mjs printed %q: %v", sc.Text(), err)
		}
		if checked && l.Check != "" {
			t.Errorf("%s on %q: %s: %s", l.Op, argv, l.Check, compact.String())
		}
		ops.add(l.Op, "%s", compact.String())
	}
	if len(ops) == 0 {
		t.Fatalf("host.mjs %s on %q printed nothing; stderr:\n%s", scenario, argv, stderr)
	}
	if t.Failed() {
		t.Logf("stderr of host.mjs %s on %q:\n%s", scenario, argv, stderr)
	}
	return ops
}

// runTypeScriptHosts runs the scenario on argv directly, through connect to
// the bridge b and at b's HTTP front door, with key as the bearer token, and
// compares each bridged run with the direct one line by line.
func runTypeScriptHosts(t *testing.T, script []string, scenario string, argv []string, b *bridgeProcess, key string) {
	t.Helper()
	env := []string{"MCPBRIDGE_TOKEN=" + key, "MCPBRIDGE_HOST_TOKEN=" + key}
	direct := runTypeScriptHost(t, script, scenario, argv, nil, true)
	names := func(ops hostOps) string {
		var n []string
		for _, op := range ops {
			n = append(n, op.name)
		}
		return strings.Join(n, "\n")
	}
	for _, path := range []struct{ name, argv0 string }{
		{"connect", ""},
		{"http", "http://" + httpAddr(t, b) + "/mcp/main"},
	} {
		hostArgv := []string{mcpbridgeBin, "connect", "--addr", b.addr, "--server", "main"}
		if path.argv0 != "" {
			hostArgv = []string{path.argv0}
		}
		bridged := runTypeScriptHost(t, script, scenario, hostArgv, env, false)
		t.Logf("through %s:", path.name)
		logHostOps(t, direct, bridged)
		if names(direct) != names(bridged) {
			t.Errorf("the operations differ:\n direct  %q\n %s %q", names(direct), path.name, names(bridged))
		}
		compareHostOps(t, direct, bridged)
	}
}

// startKeyedBridge starts a bridge fronting argv as the server "main",
// with an HTTP listener, that admits the API key it returns and no caller
// without it.
func startKeyedBridge(t *testing.T, argv []string) (*bridgeProcess, string) {
	t.Helper()
	key := "host-test-key-5d0c9a71e24b"
	config := writeConfig(t, "", fmt.Sprintf(`http_listen: 127.0.0.1:0
auth:
  api_keys:
    - {principal: host, sha256: %s}
servers:
  - name: main
    command: %s
`, access.HashKey(key), yamlList(argv)))
	return startBridge(t, nil, "--config", config), key
}

// TestHostTypeScriptDemo: the TypeScript SDK host on `mcpbridge demo`
// (with the conformance fixtures, for logging, roots and sampling),
// directly and through connect.
func TestHostTypeScriptDemo(t *testing.T) {
	script := hostScript(t)
	argv := []string{mcpbridgeBin, "demo", "-tick", "200ms", "-conformance"}
	b, key := startKeyedBridge(t, argv)
	runTypeScriptHosts(t, script, "demo", argv, b, key)
}

// TestHostTypeScriptEverything: the TypeScript SDK host on the TypeScript
// server-everything, directly and through connect.
func TestHostTypeScriptEverything(t *testing.T) {
	script := hostScript(t)
	argv := testkit.ServerEverything(t)
	b, key := startKeyedBridge(t, argv)
	runTypeScriptHosts(t, script, "everything", argv, b, key)
}

// TestHostTypeScriptTasks: the TypeScript SDK client's tasks API (the
// 2025-11-25 core tasks: callToolStream, getTask, listTasks, cancelTask)
// on the demo's task fixtures, which the runtime serves (stdio/mcp,
// tasks.go): a task polled to its result, one that asks for input, a tool
// error and a JSON-RPC error, a long one got, listed and cancelled, and the
// refusals; directly, through connect and at /mcp, the same answers.
func TestHostTypeScriptTasks(t *testing.T) {
	script := peerScript(t, "tasks-host.mjs", "@modelcontextprotocol/sdk")
	argv := []string{mcpbridgeBin, "demo", "-conformance"}
	b, key := startKeyedBridge(t, argv)
	runTypeScriptHosts(t, script, "tasks", argv, b, key)
}

// TestHostTypeScriptTasksAcrossEras: the same tasks API of the TypeScript
// SDK's 2025-11-25 client, through the bridge in front of a demo that
// speaks 2026-07-28 only, whose tasks are the tasks extension's: the
// tunnel translates (docs/protocol.md, "Tasks"), and the host sees what it
// sees on the demo spoken to natively at 2025-11-25, through connect and
// at /mcp.
func TestHostTypeScriptTasksAcrossEras(t *testing.T) {
	script := peerScript(t, "tasks-host.mjs", "@modelcontextprotocol/sdk")
	argv := []string{mcpbridgeBin, "demo", "-conformance"}
	b, key := startKeyedBridge(t, append(slices.Clone(argv), "-versions", "2026-07-28"))
	runTypeScriptHosts(t, script, "tasks", argv, b, key)
}
