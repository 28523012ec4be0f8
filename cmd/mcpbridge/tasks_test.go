package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/access"
)

// TestTasksStayTheirCreators: two hosts, alice and bob, each through
// connect with an API key of its own, share one 2025-11-25 child (tunnel:
// shared), which knows one client, the bridge. Alice's task answers alice;
// to bob it is a task that does not exist (tasks/get, tasks/result and
// tasks/cancel answer -32602 "Task not found", as the child answers for an
// unknown one), and tasks/list shows each host its own tasks
// (docs/security.md, "Tasks").
func TestTasksStayTheirCreators(t *testing.T) {
	keys := map[string]string{"alice": "alice-key-3f0d9b72c1", "bob": "bob-key-8e21a4c57d"}
	config := writeConfig(t, "", fmt.Sprintf(`auth:
  api_keys:
    - {principal: alice, sha256: %s}
    - {principal: bob, sha256: %s}
servers:
  - name: main
    command: %s
    tunnel: shared
`, access.HashKey(keys["alice"]), access.HashKey(keys["bob"]),
		yamlList([]string{mcpbridgeBin, "demo", "-conformance", "-versions", "2025-11-25"})))
	b := startBridge(t, nil, "--config", config)
	hosts := map[string]*hostSession{}
	for name, key := range keys {
		file := filepath.Join(t.TempDir(), name+".token")
		if err := os.WriteFile(file, []byte(key), 0o600); err != nil {
			t.Fatal(err)
		}
		h := startHost(t, mcpbridgeBin, "connect", "--addr", b.addr, "--token-file", file)
		if a := h.call(t, initializeWith(`{}`)); a["result"] == nil {
			t.Fatalf("%s's initialize: %v", name, a)
		}
		h.send(t, hostInitialized)
		hosts[name] = h
	}
	start := func(host string, seconds float64) string {
		a := hosts[host].call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":%g,"label":%q},"task":{"ttl":60000}}}`, seconds, host))
		res, _ := a["result"].(map[string]any)
		task, _ := res["task"].(map[string]any)
		id, _ := task["taskId"].(string)
		if id == "" {
			t.Fatalf("%s's task: %v", host, a)
		}
		return id
	}
	ask := func(host, method, id string) map[string]any {
		return hosts[host].call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":20,"method":%q,"params":{"taskId":%q}}`, method, id))
	}
	notFound := func(a map[string]any) bool {
		e, _ := a["error"].(map[string]any)
		return e != nil && e["code"] == float64(-32602) && e["message"] == "Task not found"
	}
	aliceTask, bobTask := start("alice", 60), start("bob", 0.1)
	for _, method := range []string{"tasks/get", "tasks/cancel", "tasks/result"} {
		if a := ask("bob", method, aliceTask); !notFound(a) {
			t.Errorf("bob's %s of alice's task: %v, want -32602 Task not found", method, a)
		}
	}
	if a := ask("alice", "tasks/get", aliceTask); a["result"].(map[string]any)["status"] != "working" {
		t.Errorf("alice's tasks/get of her task: %v", a)
	}
	for host, want := range map[string][2]string{"alice": {aliceTask, bobTask}, "bob": {bobTask, aliceTask}} {
		a := hosts[host].call(t, `{"jsonrpc":"2.0","id":30,"method":"tasks/list"}`)
		listed := fmt.Sprint(a["result"])
		if !strings.Contains(listed, want[0]) || strings.Contains(listed, want[1]) {
			t.Errorf("%s's tasks/list: %s; want %s and not %s", host, listed, want[0], want[1])
		}
	}
	if a := ask("bob", "tasks/result", bobTask); !strings.Contains(fmt.Sprint(a["result"]), `computed "bob"`) {
		t.Errorf("bob's tasks/result of his own task: %v", a)
	}
	if a := ask("alice", "tasks/cancel", aliceTask); a["result"].(map[string]any)["status"] != "cancelled" {
		t.Errorf("alice's tasks/cancel of her task: %v", a)
	}
}

// TestDemoBuildTask: the demo's build tool as a 2026-07-28 host uses it,
// directly and through connect: a task at once, its status while it
// works, its question in tasks/get, the answer with tasks/update, and the
// report in tasks/get; a second build cancelled.
func TestDemoBuildTask(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	demo := []string{mcpbridgeBin, "demo", "-tick", "0"}
	b := startBridge(t, nil, append([]string{"--"}, demo...)...)
	for name, argv := range map[string][]string{"direct": demo, "connect": {mcpbridgeBin, "connect", "--addr", b.addr}} {
		t.Run(name, func(t *testing.T) {
			h := startHost(t, argv...)
			result := func(a map[string]any) map[string]any {
				res, _ := a["result"].(map[string]any)
				if res == nil {
					t.Fatalf("no result: %v", a)
				}
				return res
			}
			get := func(id string) map[string]any {
				return result(h.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":%q,%s}}`, id, meta)))
			}
			await := func(id, status string) map[string]any {
				deadline := time.Now().Add(testTimeout)
				for time.Now().Before(deadline) {
					if res := get(id); res["status"] == status {
						return res
					}
					time.Sleep(20 * time.Millisecond)
				}
				t.Fatalf("task %s never became %s", id, status)
				return nil
			}
			created := result(h.call(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"build","arguments":{"steps":3,"seconds":0.05,"confirm":true},`+meta+`}}`))
			id, _ := created["taskId"].(string)
			if created["resultType"] != "task" || created["status"] != "working" || id == "" {
				t.Fatalf("the build's answer: %v", created)
			}
			asked := await(id, "input_required")
			if asked["statusMessage"] != "waiting for the user" || !strings.Contains(fmt.Sprint(asked["inputRequests"]), "Publish the build?") {
				t.Errorf("the build's question: %v", asked)
			}
			h.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks/update","params":{"taskId":%q,"inputResponses":{"publish":{"action":"accept","content":{"publish":true}}},%s}}`, id, meta))
			done := await(id, "completed")
			if !strings.Contains(fmt.Sprint(done["result"]), "built in 3 steps; published") {
				t.Errorf("the build's report: %v", done)
			}
			long := result(h.call(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"build","arguments":{"steps":100,"seconds":60},`+meta+`}}`))
			lid, _ := long["taskId"].(string)
			h.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"tasks/cancel","params":{"taskId":%q,%s}}`, lid, meta))
			if res := await(lid, "cancelled"); res["statusMessage"] == nil {
				t.Errorf("the cancelled build: %v", res)
			}
		})
	}
}
