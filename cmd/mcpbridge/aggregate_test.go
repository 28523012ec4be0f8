package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/bridge/access"
	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// aggregateConfig is docs/aggregation.md's example: the demo and
// server-everything, and "all" merging them with the default prefixes,
// one of everything's tools left out. alice may use every tool of
// everything and the demo's tools but echo; the audit goes to audit.
func aggregateConfig(t *testing.T, key, audit string) string {
	return fmt.Sprintf(`auth:
  api_keys:
    - {principal: alice, sha256: %s}
rules:
  - {principals: [alice], servers: [everything], tools: ["*"], resources: ["*"], prompts: ["*"]}
  - {principals: [alice], servers: [demo], tools: [progress, whoami, ask], resources: ["*"], prompts: ["*"]}
audit: %s
servers:
  - name: demo
    command: %s
  - name: everything
    command: %s
  - name: all
    aggregate:
      servers: [demo, everything]
      tools:
        exclude: [everything_trigger-long-running-operation]
`, access.HashKey(key), audit, yamlList([]string{mcpbridgeBin, "demo"}), yamlList(testkit.ServerEverything(t)))
}

// TestAggregateWithGrpcurl drives an aggregate of the demo (2026-07-28)
// and server-everything (2025-11-25) with grpcurl, as an operator would:
// ListTools on "all" lists both members' tools under their prefixed
// names, less the excluded one and the one the rules deny; CallTool on
// "all" reaches each member under its own name; the demo's echo, which the
// rules deny on "demo", is denied on "all" as demo_echo, and the audit
// record of the refusal names the member, its tool and the aggregate's
// name; GetServer on "all" shows both members.
func TestAggregateWithGrpcurl(t *testing.T) {
	g := findGrpcurl(t)
	const key = "alice-key-7c1e5b2a9d0f4e3c8b6a"
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	b := startBridge(t, nil, "--config", writeConfig(t, "", aggregateConfig(t, key, audit)))
	run := func(method, data string) (string, string, int) {
		return g.run(t, "-plaintext", "-H", "authorization: Bearer "+key, "-d", data, b.addr, "mcpbridge.v1.BridgeService/"+method)
	}

	out, stderr, code := run("ListTools", `{"server":"all"}`)
	if code != 0 {
		t.Fatalf("ListTools on all: exit %d: %s", code, stderr)
	}
	var list struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"demo_progress", "demo_whoami", "everything_echo", "everything_get-sum"} {
		if !slices.Contains(names, want) {
			t.Errorf("ListTools on all lacks %s: %v", want, names)
		}
	}
	for _, unwanted := range []string{"demo_echo", "everything_trigger-long-running-operation", "echo", "progress"} {
		if slices.Contains(names, unwanted) {
			t.Errorf("ListTools on all lists %s (denied, excluded or unprefixed): %v", unwanted, names)
		}
	}

	for _, c := range []struct{ name, args, want string }{
		{"everything_echo", `{"message":"through all"}`, "Echo: through all"},
		{"everything_get-sum", `{"a":2,"b":3}`, "5"},
		{"demo_progress", `{"seconds":0.1,"steps":1}`, "done: 1 steps"},
	} {
		out, stderr, code := run("CallTool", fmt.Sprintf(`{"server":"all","name":%q,"arguments":%s}`, c.name, c.args))
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("CallTool %s on all: exit %d, %s%s; want %q", c.name, code, out, stderr, c.want)
		}
	}

	out, stderr, code = run("CallToolStream", `{"server":"all","name":"demo_progress","arguments":{"seconds":0.2,"steps":2},"log_level":"LOGGING_LEVEL_DEBUG"}`)
	if code != 0 || strings.Count(out, `"progress"`) < 2 || !strings.Contains(out, "done: 2 steps") {
		t.Errorf("CallToolStream demo_progress on all: exit %d, %s%s; want two progress events and the result", code, out, stderr)
	}
	out, stderr, code = run("Call", `{"server":"all","method":"tools/call","params_json":"{\"name\":\"everything_get-sum\",\"arguments\":{\"a\":4,\"b\":5}}"}`)
	if code != 0 || !strings.Contains(out, "9") {
		t.Errorf("Call tools/call everything_get-sum on all: exit %d, %s%s", code, out, stderr)
	}
	_, stderr, code = run("Subscribe", `{"server":"all"}`)
	if code == 0 || !strings.Contains(stderr, "Unimplemented") || !strings.Contains(stderr, "name one of its members") {
		t.Errorf("Subscribe on all: exit %d, %s; want Unimplemented naming the way out", code, stderr)
	}

	_, stderr, code = run("CallTool", `{"server":"all","name":"demo_echo","arguments":{"message":"denied"}}`)
	if code == 0 || !strings.Contains(stderr, "PermissionDenied") {
		t.Errorf("CallTool demo_echo on all, which the rules deny on demo: exit %d, %s; want PermissionDenied", code, stderr)
	}
	_, stderr, code = run("CallTool", `{"server":"all","name":"everything_trigger-long-running-operation"}`)
	if code == 0 || !strings.Contains(stderr, "Unknown tool") {
		t.Errorf("CallTool of the excluded tool on all: exit %d, %s; want an unknown tool", code, stderr)
	}
	// A session on the aggregate (a Connect tunnel): its call is audited
	// as the member's, through the aggregate.
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	tun := g.start(t, true, "-plaintext", "-H", "authorization: Bearer "+key, "-H", "mcp-server: all", b.addr, "mcpbridge.v1.BridgeService/Connect")
	tun.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+testkit.WithModernMeta(`{"name":"demo_whoami","arguments":{}}`)+`}`)
	tun.out.WaitFor(ctx, t, "pid")
	tun.stdin.Close()
	if stderr, code := tun.wait(ctx, t); code != 0 {
		t.Errorf("the tunnel on all ended with exit %d: %s", code, stderr)
	}

	data, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"server":"demo","method":"tools/call","name":"whoami","via":"connect","duration_ms"`) ||
		!strings.Contains(string(data), `"aggregate":"all","aggregate_name":"demo_whoami"`) {
		t.Errorf("no audit record of the tunnel's demo_whoami naming demo, whoami and all's demo_whoami in\n%s", data)
	}
	refused := false
	for line := range strings.SplitSeq(string(data), "\n") {
		if strings.Contains(line, `"server":"demo"`) && strings.Contains(line, `"name":"echo"`) &&
			strings.Contains(line, `"aggregate":"all","aggregate_name":"demo_echo"`) && strings.Contains(line, `"refused":"permission_denied"`) {
			refused = true
		}
	}
	if !refused {
		t.Errorf("no audit record of the refused demo_echo naming demo, echo and all's demo_echo in\n%s", data)
	}

	out, stderr, code = run("GetServer", `{"server":"all"}`)
	var desc struct {
		Policy  string
		Members []struct {
			Name  string
			Child struct{ State string }
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &desc) != nil {
		t.Fatalf("GetServer on all: exit %d, %s%s", code, out, stderr)
	}
	if desc.Policy != "SERVER_POLICY_AGGREGATE" || len(desc.Members) != 2 || desc.Members[0].Name != "demo" || desc.Members[1].Name != "everything" {
		t.Errorf("GetServer on all = %s; want the aggregate policy and its members demo and everything", out)
	}
}
