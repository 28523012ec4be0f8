package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// yamlList is argv as a YAML flow list.
func yamlList(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		b, _ := json.Marshal(a) // a JSON string is a YAML string
		quoted[i] = string(b)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// writeConfig writes a config file and returns its path.
func writeConfig(t testing.TB, path, text string) string {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "mcpbridge.yaml")
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServeConfigThreePolicies runs `mcpbridge serve --config` with three
// real servers, each under another policy: the demo shared, the Go SDK
// server in a pool of two, server-everything one per session with a
// per-session token from request metadata. Driven through gRPC: every
// server answers; each session's child sees its own token and none sees a
// secret of the bridge's environment. Then a SIGHUP reload adds, changes
// and removes servers while calls to the unchanged one go on without an
// error.
func TestServeConfigThreePolicies(t *testing.T) {
	sdk, everything := testkit.GoSDKServer(t), testkit.ServerEverything(t)
	demo := []string{mcpbridgeBin, "demo"}
	servers := func(extra string) string {
		return fmt.Sprintf(`servers:
  - name: demo
    command: %s
  - name: sdk
    command: %s
    policy: pool
    pool: {min: 2}
  - name: everything
    command: %s
    policy: session
    session:
      max: 4
      env_from_metadata: {USER_TOKEN: x-user-token}
%s`, yamlList(demo), yamlList(sdk), yamlList(everything), extra)
	}
	path := writeConfig(t, "", servers(""))
	b := startBridge(t, []string{"MCPBRIDGE_BRIDGE_SECRET=do-not-leak"}, "--config", path)
	bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()

	list, err := bc.ListServers(ctx, &mcpbridgev1.ListServersRequest{})
	if err != nil || len(list.GetServers()) != 3 {
		t.Fatalf("ListServers = %v, %v", list, err)
	}
	wantPolicies := map[string]mcpbridgev1.ServerPolicy{
		"demo": mcpbridgev1.ServerPolicy_SERVER_POLICY_SHARED, "sdk": mcpbridgev1.ServerPolicy_SERVER_POLICY_POOL,
		"everything": mcpbridgev1.ServerPolicy_SERVER_POLICY_SESSION,
	}
	for _, s := range list.GetServers() {
		if s.GetPolicy() != wantPolicies[s.GetName()] {
			t.Errorf("server %s has policy %v, want %v", s.GetName(), s.GetPolicy(), wantPolicies[s.GetName()])
		}
	}
	text := func(ctx context.Context, server, tool, args string) string {
		t.Helper()
		res, err := bc.Call(ctx, &mcpbridgev1.CallRequest{Server: server, Method: "tools/call", ParamsJson: `{"name":"` + tool + `","arguments":` + args + `}`})
		if err != nil {
			t.Fatalf("%s %s: %v", server, tool, err)
		}
		var r struct{ Content []struct{ Text string } }
		if err := json.Unmarshal([]byte(res.GetResultJson()), &r); err != nil || len(r.Content) == 0 {
			t.Fatalf("%s %s = %s", server, tool, res.GetResultJson())
		}
		return r.Content[0].Text
	}
	if got := text(ctx, "demo", "echo", `{"message":"hi"}`); got != "hi" {
		t.Errorf("demo echo = %q", got)
	}
	for range 4 {
		if got := text(ctx, "sdk", "test_simple_text", `{}`); got == "" {
			t.Error("sdk answered nothing")
		}
	}
	alice := metadata.AppendToOutgoingContext(ctx, "mcp-session", "alice-7f3a9c", "x-user-token", "token-of-alice")
	bob := metadata.AppendToOutgoingContext(ctx, "mcp-session", "bob-29d1e0", "x-user-token", "token-of-bob")
	aliceEnv, bobEnv := text(alice, "everything", "get-env", `{}`), text(bob, "everything", "get-env", `{}`)
	switch {
	case !strings.Contains(aliceEnv, "token-of-alice") || strings.Contains(aliceEnv, "token-of-bob"):
		t.Errorf("alice's child sees %s, want her token only", aliceEnv)
	case !strings.Contains(bobEnv, "token-of-bob") || strings.Contains(bobEnv, "token-of-alice"):
		t.Errorf("bob's child sees %s, want his token only", bobEnv)
	case strings.Contains(aliceEnv, "do-not-leak") || strings.Contains(bobEnv, "do-not-leak"):
		t.Errorf("a child sees the bridge's secret: %s", aliceEnv)
	}
	if strings.Contains(b.log.String(), "token-of-alice") {
		t.Error("a session's token reached the log")
	}

	// Reload: demo goes, sdk changes (a pool of 3), demo2 arrives, and
	// alice keeps calling the unchanged server throughout.
	var calls atomic.Int64
	loadCtx, stopLoad := context.WithCancel(alice)
	errs := make(chan error, 1)
	progress := make(chan struct{}, 1) // a call finished
	go func() {
		defer close(errs)
		for loadCtx.Err() == nil {
			_, err := bc.Call(loadCtx, &mcpbridgev1.CallRequest{Server: "everything", Method: "tools/call", ParamsJson: `{"name":"echo","arguments":{"message":"x"}}`})
			if err != nil && loadCtx.Err() == nil {
				errs <- err
				return
			}
			calls.Add(1)
			select {
			case progress <- struct{}{}:
			default:
			}
		}
	}()
	next := strings.Replace(servers(fmt.Sprintf("  - name: demo2\n    command: %s\n", yamlList(demo))), "pool: {min: 2}", "pool: {min: 3}", 1)
	next = strings.Replace(next, "  - name: demo\n    command: "+yamlList(demo)+"\n", "", 1)
	writeConfig(t, path, next)
	if err := b.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	b.log.WaitFor(ctx, t, "configuration reloaded")
	list, err = bc.ListServers(ctx, &mcpbridgev1.ListServersRequest{})
	var names []string
	for _, s := range list.GetServers() {
		names = append(names, s.GetName())
	}
	if err != nil || strings.Join(names, ",") != "demo2,everything,sdk" {
		t.Errorf("servers after the reload = %v, %v; want demo2, everything, sdk", names, err)
	}
	if got := text(ctx, "demo2", "echo", `{"message":"new"}`); got != "new" {
		t.Errorf("demo2 echo = %q", got)
	}
	// A file that does not load is refused; the configuration stays.
	writeConfig(t, path, "servers:\n  - name: x\n    comand: [y]\n")
	if err := b.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	b.log.WaitFor(ctx, t, "reload refused")
	if got := text(ctx, "demo2", "echo", `{"message":"still"}`); got != "still" {
		t.Errorf("demo2 after a refused reload = %q", got)
	}
	for range 5 { // a few more calls after the refused reload
		select {
		case <-progress:
		case <-ctx.Done():
		}
	}
	stopLoad()
	if err := <-errs; err != nil {
		t.Errorf("a call to the unchanged server failed during the reloads: %v", err)
	}
	t.Logf("%d calls to the unchanged server across two reloads", calls.Load())
}

// TestServeConfigErrors: a config file that does not load, or flags that
// contradict it, exit 2 with the file, line and field.
func TestServeConfigErrors(t *testing.T) {
	bad := writeConfig(t, "", "servers:\n  - name: a\n    command: [x]\n    policy: pooled\n")
	good := writeConfig(t, "", "servers:\n  - name: a\n    command: [x]\n")
	missing := writeConfig(t, "", "servers:\n  - name: a\n    command: [mcpbridge-test-no-such-command]\n")
	preload := writeConfig(t, "", "servers:\n  - name: a\n    command: [x]\n    policy: session\n    session:\n      env_from_metadata: {LD_PRELOAD: x-preload}\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", bad}, bad + `:4: servers[0].policy: unknown policy "pooled"`},
		// A command that is not there is a mistake in the file, not a
		// child to restart.
		{[]string{"--config", missing}, missing + `:3: servers[0].command: "mcpbridge-test-no-such-command" cannot be run: executable file not found in $PATH`},
		// A caller must not choose what the child's dynamic loader loads.
		{[]string{"--config", preload}, preload + `:6: servers[0].session.env_from_metadata.LD_PRELOAD: LD_PRELOAD may not be set from request metadata`},
		{[]string{"--config", filepath.Join(t.TempDir(), "none.yaml")}, "no such file or directory"},
		{[]string{"--config", good, "--", "x"}, "no command may follow it"},
		{[]string{"--config", good, "--name", "b"}, "--name describes the one server of the command line"},
		{[]string{"--policy", "pooled"}, `invalid value "pooled" for flag --policy`},
	} {
		// Bounded: a file wrongly accepted would serve until killed.
		ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
		cmd := exec.CommandContext(ctx, mcpbridgeBin, append([]string{"serve", "--listen", "127.0.0.1:0"}, tc.args...)...)
		out, err := cmd.CombinedOutput()
		cancel()
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), tc.want) {
			t.Errorf("serve %q = exit %d (%v), %q; want exit 2 and %q", tc.args, code, err, out, tc.want)
		}
	}
}

// TestServeReloadSaysWhatChanged: a SIGHUP reload says what it changed
// beyond the servers (auth, rules, limits), and refuses, once, a file
// whose server command cannot be run, keeping the configuration in force
// (no child of it crash-loops).
func TestServeReloadSaysWhatChanged(t *testing.T) {
	t.Parallel()
	key := "reload-key-5e1f0c2a9d7b3846"
	demo := yamlList([]string{mcpbridgeBin, "demo"})
	file := func(tools, limits, extra string) string {
		return fmt.Sprintf("auth:\n  api_keys:\n    - {principal: host, sha256: %s}\nrules:\n  - {principals: [host], servers: [\"*\"], tools: %s}\n%sservers:\n  - name: demo\n    command: %s\n%s",
			access.HashKey(key), tools, limits, demo, extra)
	}
	path := writeConfig(t, "", file(`["*"]`, "", ""))
	b := startBridge(t, nil, "--config", path)
	bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	host := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key)
	if _, err := bc.GetServer(host, &mcpbridgev1.GetServerRequest{WaitForReady: true}); err != nil {
		t.Fatal(err)
	}
	reload := func(text string, n int, want ...string) {
		t.Helper()
		writeConfig(t, path, text)
		if err := b.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		if line := b.log.WaitCount(ctx, t, n, "mcpbridge: configuration reloaded")[n-1]; !testkit.ContainsAll(line, want...) {
			t.Errorf("reload %d logged %s; want it to say %q", n, line, want)
		}
	}

	// Only the rules: the auth section is the same, so no auth change.
	reload(file(`[echo]`, "", ""), 1, "changed=[]", "unchanged=[demo]", "settings_changed=[rules]", "rules=1")
	// Only the limits.
	reload(file(`[echo]`, "limits: {rate: 50, burst: 10}\n", ""), 2, "settings_changed=[limits]", `limits="rate=50/s burst=10"`)

	// A server whose command is not there: refused, once, and the
	// configuration in force stays.
	writeConfig(t, path, file(`[echo]`, "limits: {rate: 50, burst: 10}\n", "  - name: typo\n    command: [mcpbridge-test-no-such-command]\n"))
	if err := b.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	b.log.WaitFor(ctx, t, "reload refused; the running configuration stays", `servers[1].command: \"mcpbridge-test-no-such-command\" cannot be run: executable file not found in $PATH`)
	list, err := bc.ListServers(host, &mcpbridgev1.ListServersRequest{})
	if err != nil || len(list.GetServers()) != 1 || list.GetServers()[0].GetName() != "demo" {
		t.Errorf("ListServers after the refused reload = %v, %v; want demo alone", list, err)
	}
	// A key the file adds is an auth change.
	other := "reload-other-key-7c3b1a0e"
	withKey := strings.Replace(file(`[echo]`, "", ""), "  api_keys:\n", "  api_keys:\n    - {principal: other, sha256: "+access.HashKey(other)+"}\n", 1)
	reload(withKey, 3, `settings_changed="[auth limits]"`, "limits=none")
	if n := len(b.log.WaitCount(ctx, t, 1, "cannot be run")); n != 1 || b.log.Has("crash-looping") || b.log.Has("Executable not found") {
		t.Errorf("the missing command was said %d times (crash-looping: %v): want once, in the refusal\n%s", n, b.log.Has("crash-looping"), b.log)
	}
}
