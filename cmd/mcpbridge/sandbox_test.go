//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/metadata"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/cmd/mcpbridge/internal/conformancetest"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// attackOutcome is what testdata/hostile's attack tool reports.
type attackOutcome struct {
	Attack  string `json:"attack"`
	Refused bool   `json:"refused"`
	Error   string `json:"error"`
	Detail  string `json:"detail"`
}

// TestSandboxHoldsAHostileServer runs testdata/hostile, a stdio MCP server
// that attacks what is around it, inside the default sandbox (`sandbox:
// {}`, docs/sandbox.md) of a session server behind a bridge with TLS, and
// checks that the system refused every attack: reading the bridge's config,
// its TLS key and another session's files; writing outside its write list;
// connecting to the bridge's gRPC port and to a loopback listener the test
// opens (which is never reached); starting 10,000 processes; allocating
// 10 GiB; tracing its parent; reading /proc/<bridge pid>/environ; and
// signalling the bridge. With network: loopback it reaches the host
// loopback port it lists and not the bridge's. The same server without a sandbox succeeds at the
// harmless ones (so the refusals are the sandbox's), its own private
// temporary directory is writable, one that allocates beyond its memory
// limit is killed and the caller, GetServer, the log and the metrics say
// why, and the
// bridge and its other children serve on.
func TestSandboxHoldsAHostileServer(t *testing.T) {
	g := findGrpcurl(t)
	f := newTLSFiles(t)
	hostile := testkit.GoBuild(t, "./testdata/hostile")
	dir := t.TempDir()
	outside := filepath.Join(dir, "written-by-hostile")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var reached atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			reached.Add(1)
			c.Close()
		}
	}()
	config := writeConfig(t, filepath.Join(dir, "mcpbridge.yaml"), fmt.Sprintf(`sandbox: {}
servers:
  - name: hostile
    command: [%q]
    policy: session
  - name: open
    command: [%q]
    sandbox: {disabled: true}
  - name: tight
    command: [%q]
    sandbox: {limits: {memory: 256MiB}}
  - name: local
    command: [%q]
    sandbox: {network: loopback, loopback_ports: [%d]}
  - name: demo
    command: %s
`, hostile, hostile, hostile, hostile, ln.Addr().(*net.TCPAddr).Port, yamlList([]string{mcpbridgeBin, "demo"})))
	b := startBridge(t, nil, append(f.args(), "--config", config, "--metrics-listen", "127.0.0.1:0")...)
	metricsAddr := metricsListenRE.FindStringSubmatch(b.log.WaitFor(t.Context(), t, `msg="mcpbridge: serving metrics"`))[1]
	bridgePid := strconv.Itoa(b.cmd.Process.Pid)
	call := func(server, session, tool, args string) string {
		t.Helper()
		out, stderr, code := g.run(t, "-cacert", f.caFile, "-H", "mcp-session: "+session, "-d",
			fmt.Sprintf(`{"server":%q,"name":%q,"arguments":%s}`, server, tool, args), b.addr, "mcpbridge.v1.BridgeService/CallTool")
		var res struct {
			Content []struct{ Text struct{ Text string } }
		}
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Content) != 1 {
			t.Fatalf("%s on %s: %s %s (exit %d)", tool, server, out, stderr, code)
		}
		return res.Content[0].Text.Text
	}
	attack := func(server, session, what, target string) attackOutcome {
		t.Helper()
		var o attackOutcome
		text := call(server, session, "attack", fmt.Sprintf(`{"what":%q,"target":%q}`, what, target))
		if err := json.Unmarshal([]byte(text), &o); err != nil {
			t.Fatalf("attack %s %s: %q", what, target, text)
		}
		return o
	}

	// The session's own temporary directory is its to write; another
	// session's is closed to it.
	tmpA := call("hostile", "a", "tmpdir", `{}`)
	if !strings.HasPrefix(tmpA, os.TempDir()) {
		t.Fatalf("session a's TMPDIR is %q", tmpA)
	}
	notes := filepath.Join(tmpA, "notes")
	if o := attack("hostile", "a", "write", notes); o.Refused {
		t.Fatalf("session a writing its own temporary directory: %+v", o)
	}
	if o := attack("hostile", "a", "read", notes); o.Refused {
		t.Fatalf("session a reading back its own file: %+v", o)
	}
	for _, a := range []struct{ what, target, why string }{
		{"read", config, "the bridge's config"},
		{"read", f.key, "the bridge's TLS key"},
		{"read", notes, "another session's file"},
		{"write", outside, "a file outside the write list"},
		{"connect", b.addr, "the bridge's gRPC port"},
		{"connect", ln.Addr().String(), "a loopback listener"},
		{"fork", "10000", "10,000 processes"},
		{"alloc", strconv.Itoa(10 << 30), "10 GiB"},
		{"ptrace", "0", "its parent"},
		{"read", "/proc/" + bridgePid + "/environ", "the bridge's environment"},
		{"signal", bridgePid, "the bridge"},
	} {
		o := attack("hostile", "b", a.what, a.target)
		t.Logf("sandboxed: %s (%s): refused %v: %s %s", a.why, o.Attack, o.Refused, o.Error, o.Detail)
		if !o.Refused {
			t.Errorf("inside the sandbox, %s (%s) was not refused: %+v", a.why, o.Attack, o)
		}
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("%s was written", outside)
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the loopback listener was reached %d times from inside the sandbox", n)
	}
	// Without the sandbox the same server reads, connects and signals:
	// the refusals above are the sandbox's.
	for _, a := range []struct{ what, target string }{
		{"read", f.key},
		{"connect", ln.Addr().String()},
		{"read", "/proc/" + bridgePid + "/environ"},
		{"signal", bridgePid},
	} {
		if o := attack("open", "", a.what, a.target); o.Refused {
			t.Errorf("without a sandbox %s %s was refused: %+v", a.what, a.target, o)
		}
	}
	// network: loopback reaches the host's loopback ports it lists, and
	// nothing else: not the bridge's port.
	before := reached.Load()
	if o := attack("local", "", "connect", ln.Addr().String()); o.Refused {
		t.Errorf("network loopback: connecting to its listed port was refused: %+v", o)
	}
	for deadline := time.Now().Add(testTimeout); reached.Load() == before && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if reached.Load() != before+1 {
		t.Errorf("network loopback: the listed port was reached %d times, want once", reached.Load()-before)
	}
	if o := attack("local", "", "connect", b.addr); !o.Refused {
		t.Errorf("network loopback: the bridge's port, which it does not list, was reached: %+v", o)
	}
	// A child that goes over its memory is killed, and says why: to the
	// caller, in its state, in the log.
	out, stderr, code := g.run(t, "-cacert", f.caFile, "-format-error", "-d", `{"server":"tight","name":"exhaust","arguments":{}}`, b.addr, "mcpbridge.v1.BridgeService/CallTool")
	if code == 0 || !strings.Contains(stderr, `"code": 14`) || !strings.Contains(stderr, "killed for memory: the sandbox's limits.memory is 268435456 bytes") {
		t.Errorf("exhaust on a 256 MiB sandbox: %s %s (exit %d); want UNAVAILABLE naming the memory limit", out, stderr, code)
	}
	for deadline := time.Now().Add(testTimeout); ; time.Sleep(100 * time.Millisecond) {
		out, _, _ = g.run(t, "-cacert", f.caFile, "-d", `{"server":"tight"}`, b.addr, "mcpbridge.v1.BridgeService/GetServer")
		if strings.Contains(out, "killed for memory") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(out, `"lastExit": "signal: killed (killed for memory: the sandbox's limits.memory is 268435456 bytes)"`) {
		t.Errorf("GetServer tight after the kill: %s; want lastExit naming the memory limit", out)
	}
	b.log.WaitFor(t.Context(), t, `killed for memory`)
	kills := 0.0
	for _, m := range scrape(t, "http://"+metricsAddr+"/metrics")["mcpbridge_child_sandbox_kills_total"] {
		if m.labels["server"] == "tight" && m.labels["fence"] == "memory" {
			kills += m.value
		}
	}
	if kills != 1 {
		t.Errorf("mcpbridge_child_sandbox_kills_total of tight, fence memory: %v, want 1", kills)
	}
	// The bridge and its other children serve on.
	if got := call("demo", "", "echo", `{"message":"still here"}`); got != "still here" {
		t.Errorf("the demo's echo after the attacks: %q", got)
	}
	if got := call("hostile", "a", "tmpdir", `{}`); got != tmpA {
		t.Errorf("session a's child after the attacks: TMPDIR %q, want %q (the same child)", got, tmpA)
	}
}

// TestConformanceSandboxed scores the demo and the Go SDK's conformance
// server inside the default sandbox (`sandbox: {}`), through a Connect
// tunnel, in both eras: check by check as each scores directly, without
// one (docs/sandbox.md). server-everything under Node runs in it in
// TestHostSandboxed.
func TestConformanceSandboxed(t *testing.T) {
	testkit.Conformance(t)
	for _, srv := range conformanceServers {
		for _, era := range []string{"2026-07-28", "2025-11-25"} {
			t.Run(srv.name+"/"+era, func(t *testing.T) {
				argv := srv.argv(t)
				b := startBridge(t, nil, "--config", writeConfig(t, "", fmt.Sprintf("sandbox: {}\nservers:\n  - name: main\n    command: %s\n    protocol: %q\n", yamlList(argv), era)))
				checkSandboxed(t, b, "main")
				for attempt := 1; ; attempt++ { // as TestConformanceThroughBridge: a disagreement is scored again once
					direct := conformancetest.Score(t, argv, era, "")
					boxed := conformancetest.Score(t, []string{mcpbridgeBin, "connect", "--addr", b.addr}, era, "")
					t.Logf("%s at %s: %d passed, %d failed directly; %d passed, %d failed sandboxed", srv.name, era, direct.Passed, direct.Failed, boxed.Passed, boxed.Failed)
					diff := cmp.Diff(direct.FailedChecks(), boxed.FailedChecks())
					for _, sc := range scenarioDiffs(direct, boxed) {
						diff += "\n" + sc
					}
					if diff == "" && direct.Passed == boxed.Passed {
						break
					}
					if attempt == 2 {
						t.Errorf("%s at %s sandboxed differs from directly (-direct +sandboxed):\n%s", srv.name, era, diff)
						break
					}
				}
			})
		}
	}
}

// TestHostSandboxed: the TypeScript SDK host on server-everything under
// Node, inside the default sandbox, through connect and at /mcp: the same
// operations and answers as on server-everything directly.
func TestHostSandboxed(t *testing.T) {
	script := hostScript(t)
	argv := testkit.ServerEverything(t)
	key := "host-test-key-5d0c9a71e24b"
	b := startBridge(t, nil, "--config", writeConfig(t, "", fmt.Sprintf(`http_listen: 127.0.0.1:0
sandbox: {}
auth:
  api_keys:
    - {principal: host, sha256: %s}
servers:
  - name: main
    command: %s
`, access.HashKey(key), yamlList(argv))))
	runTypeScriptHosts(t, script, "everything", argv, b, key)
	checkSandboxed(t, b, "main", "authorization", "Bearer "+key)
}

// checkSandboxed fails the test unless the running child of server is in
// a sandbox: a seccomp filter, no_new_privs, no capabilities, and a network
// namespace other than the test's. md is metadata for GetServer.
func checkSandboxed(t *testing.T, b *bridgeProcess, server string, md ...string) {
	t.Helper()
	ctx := metadata.AppendToOutgoingContext(t.Context(), md...)
	res, err := mcpbridgev1.NewBridgeServiceClient(b.conn(t)).GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: server, WaitForReady: true})
	if err != nil || res.GetChild().GetPid() == 0 {
		t.Fatalf("GetServer %s: %v, %v", server, res, err)
	}
	// The command's pid (under its reaper, which stays outside the
	// fences to kill every descendant).
	// A pinned 2026-07-28 child is ready once started, with no
	// handshake: its entry may still be setting the fences up.
	pid := int(res.GetChild().GetPid())
	var status []byte
	for deadline := time.Now().Add(testTimeout); ; time.Sleep(20 * time.Millisecond) {
		if status, err = os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(status), "Name:\texe\n") || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range []string{"Seccomp:\t2", "NoNewPrivs:\t1", "CapEff:\t0000000000000000", "CapBnd:\t0000000000000000"} {
		if !strings.Contains(string(status), want) {
			t.Errorf("the child %d of %s is not sandboxed: its status lacks %q:\n%s", pid, server, want, status)
		}
	}
	ours, _ := os.Readlink("/proc/self/ns/net")
	theirs, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil || theirs == ours {
		t.Errorf("the child %d of %s shares the test's network namespace (%s, %v)", pid, server, theirs, err)
	}
}

// TestSandboxEveryPolicy: the fences hold for a pool's children, for a
// tunnel's private child (a 2025 host's own, through connect), and after
// a child's restart: in each, reading the bridge's config is refused.
func TestSandboxEveryPolicy(t *testing.T) {
	g := findGrpcurl(t)
	hostile := testkit.GoBuild(t, "./testdata/hostile")
	dir := t.TempDir()
	config := writeConfig(t, filepath.Join(dir, "mcpbridge.yaml"), fmt.Sprintf(`sandbox: {}
servers:
  - name: pool
    command: [%q]
    policy: pool
    pool: {min: 2, max: 2}
  - name: private
    command: [%q]
    tunnel: private
`, hostile, hostile))
	b := startBridge(t, nil, "--config", config)
	readConfig := fmt.Sprintf(`{"what":"read","target":%q}`, config)
	grpcAttack := func(server string) attackOutcome {
		t.Helper()
		out, stderr, code := g.run(t, "-plaintext", "-d", fmt.Sprintf(`{"server":%q,"name":"attack","arguments":%s}`, server, readConfig), b.addr, "mcpbridge.v1.BridgeService/CallTool")
		var res struct {
			Content []struct{ Text struct{ Text string } }
		}
		var o attackOutcome
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Content) != 1 || json.Unmarshal([]byte(res.Content[0].Text.Text), &o) != nil {
			t.Fatalf("attack on %s: %s %s (exit %d)", server, out, stderr, code)
		}
		return o
	}
	// Both children of the pool (calls go to the least loaded: four
	// calls reach both).
	for i := range 4 {
		if o := grpcAttack("pool"); !o.Refused {
			t.Errorf("pool call %d: reading the config was not refused: %+v", i, o)
		}
	}
	// A restart: the child is killed, and its successor is fenced too.
	out, _, _ := g.run(t, "-plaintext", "-d", `{"server":"pool"}`, b.addr, "mcpbridge.v1.BridgeService/GetServer")
	var srv struct {
		Children []struct {
			Pid   int
			State string
		}
	}
	if json.Unmarshal([]byte(out), &srv) != nil || len(srv.Children) != 2 {
		t.Fatalf("GetServer pool: %s; want two children", out)
	}
	for _, c := range srv.Children {
		if err := syscall.Kill(c.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	old := map[int]bool{srv.Children[0].Pid: true, srv.Children[1].Pid: true}
	for deadline := time.Now().Add(testTimeout); ; time.Sleep(100 * time.Millisecond) {
		out, _, _ = g.run(t, "-plaintext", "-d", `{"server":"pool"}`, b.addr, "mcpbridge.v1.BridgeService/GetServer")
		srv.Children = nil
		fresh := 0
		if json.Unmarshal([]byte(out), &srv) == nil {
			for _, c := range srv.Children {
				if c.State == "CHILD_STATE_READY" && !old[c.Pid] {
					fresh++
				}
			}
		}
		if fresh == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pool's children did not come back: %s", out)
		}
	}
	for i := range 4 {
		if o := grpcAttack("pool"); !o.Refused {
			t.Errorf("pool call %d after the restart: reading the config was not refused: %+v", i, o)
		}
	}
	// A 2025 host's private child, through connect.
	h := startHost(t, mcpbridgeBin, "connect", "--addr", b.addr, "--server", "private")
	if a := h.call(t, initializeWith(`{}`)); a["result"] == nil {
		t.Fatalf("initialize: %v", a)
	}
	h.send(t, hostInitialized)
	a := h.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"attack","arguments":%s}}`, readConfig))
	res, _ := a["result"].(map[string]any)
	content, _ := res["content"].([]any)
	var o attackOutcome
	if len(content) != 1 || json.Unmarshal([]byte(content[0].(map[string]any)["text"].(string)), &o) != nil || !o.Refused {
		t.Errorf("the private child: %v; want the read refused", a)
	}
}
