//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/bridge/access"
)

// TestTasksWithGrpcurl drives the task RPCs with grpcurl, as an operator
// would, for the demo in both eras (2026-07-28 and pinned at 2025-11-25):
// alice starts the demo's build as a task and watches it to its result,
// and answers the question of another (in both eras, with AnswerTask);
// bob, another principal, is refused every task RPC on alice's task as if
// it did not exist, and lists no tasks; alice's third live task is beyond
// tasks.max_per_principal (2) and refused RESOURCE_EXHAUSTED with
// RetryInfo; she cancels both; a task whose child is killed is failed,
// naming the exit; the audit log has the cancellations, and the tasks
// metric counts the tasks by status.
func TestTasksWithGrpcurl(t *testing.T) {
	g := findGrpcurl(t)
	const alice, bob = "alice-key-0b8e7d6c5a4f3e2d1c0b", "bob-key-9a8b7c6d5e4f3a2b1c0d"
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	demo := yamlList([]string{mcpbridgeBin, "demo"})
	b := startBridge(t, nil, "--config", writeConfig(t, "", fmt.Sprintf(`auth:
  api_keys:
    - {principal: alice, sha256: %s}
    - {principal: bob, sha256: %s}
rules:
  - {principals: [alice, bob], servers: ["*"], tools: ["*"]}
audit: %s
servers:
  - name: modern
    command: %s
    tasks: {max_per_principal: 2}
  - name: legacy
    command: %s
    protocol: "2025-11-25"
    tasks: {max_per_principal: 2}
`, access.HashKey(alice), access.HashKey(bob), audit, demo, demo)), "--metrics-listen", "127.0.0.1:0")
	metricsAddr := metricsListenRE.FindStringSubmatch(b.log.WaitFor(t.Context(), t, `msg="mcpbridge: serving metrics"`))[1]
	run := func(key, method, data string) (string, string, int) {
		// -format-error prints a status as JSON: its code as a number
		// (5 NOT_FOUND, 8 RESOURCE_EXHAUSTED) and its details.
		return g.run(t, "-plaintext", "-format-error", "-H", "authorization: Bearer "+key, "-d", data, b.addr, "mcpbridge.v1.BridgeService/"+method)
	}
	start := func(server string, steps int, seconds float64, more ...string) string {
		t.Helper()
		out, stderr, code := run(alice, "StartTask", fmt.Sprintf(`{"server":%q,"name":"build","arguments":{"steps":%d,"seconds":%g%s}}`, server, steps, seconds, strings.Join(more, "")))
		var resp struct {
			Task struct{ TaskID, State, Server string }
		}
		if code != 0 || json.Unmarshal([]byte(out), &resp) != nil || resp.Task.TaskID == "" || resp.Task.State != "TASK_STATE_WORKING" || resp.Task.Server != server {
			t.Fatalf("StartTask on %s: %s %s (exit %d); want a WORKING task", server, out, stderr, code)
		}
		return resp.Task.TaskID
	}
	for _, server := range []string{"modern", "legacy"} {
		quick := start(server, 2, 0.3)
		// bob: every task RPC on alice's task is NOT_FOUND, as an
		// unknown task's.
		for _, method := range []string{"GetTask", "WaitTask", "WatchTask", "CancelTask", "AnswerTask"} {
			data := fmt.Sprintf(`{"server":%q,"taskId":%q}`, server, quick)
			if method == "AnswerTask" {
				data = fmt.Sprintf(`{"server":%q,"taskId":%q,"inputResponses":{"publish":{"action":"accept"}}}`, server, quick)
			}
			out, stderr, code := run(bob, method, data)
			if code == 0 || !strings.Contains(stderr, `"code": 5,`) || !strings.Contains(stderr, "Task not found") || strings.Contains(out, "TASK_STATE") {
				t.Errorf("%s: bob's %s of alice's task: %s %s (exit %d); want NotFound", server, method, out, stderr, code)
			}
		}
		if out, stderr, code := run(bob, "ListTasks", fmt.Sprintf(`{"server":%q}`, server)); code != 0 || strings.Contains(out, quick) {
			t.Errorf("%s: bob's ListTasks: %s %s (exit %d); want none of alice's", server, out, stderr, code)
		}
		// alice watches hers to its result.
		out, stderr, code := run(alice, "WatchTask", fmt.Sprintf(`{"server":%q,"taskId":%q}`, server, quick))
		if code != 0 || !strings.Contains(out, `"state": "TASK_STATE_WORKING"`) || !strings.Contains(out, `"state": "TASK_STATE_COMPLETED"`) ||
			!strings.Contains(out, "built in 2 steps; not asked to publish") || strings.Count(out, `"done": true`) != 1 {
			t.Errorf("%s: alice's WatchTask: %s %s (exit %d); want WORKING, then COMPLETED with the build's report", server, out, stderr, code)
		}
		// A task that asks: WaitTask returns when it needs input, and
		// AnswerTask answers its input request (on a 2026 child under the
		// child's key, on a legacy one under the bridge's).
		asking := start(server, 1, 0.1, `,"confirm":true`)
		out, stderr, code = run(alice, "WaitTask", fmt.Sprintf(`{"server":%q,"taskId":%q,"timeout":"20s"}`, server, asking))
		var waited struct {
			Task struct {
				State         string
				InputRequests map[string]struct{ Method string }
			}
		}
		if code != 0 || json.Unmarshal([]byte(out), &waited) != nil || waited.Task.State != "TASK_STATE_INPUT_REQUIRED" || len(waited.Task.InputRequests) != 1 {
			t.Fatalf("%s: alice's WaitTask of the asking build: %s %s (exit %d); want INPUT_REQUIRED with one input request", server, out, stderr, code)
		}
		for key, q := range waited.Task.InputRequests {
			if q.Method != "elicitation/create" {
				t.Errorf("%s: input request %s is %s, want elicitation/create", server, key, q.Method)
			}
			answer := fmt.Sprintf(`{"server":%q,"taskId":%q,"inputResponses":{%q:{"action":"accept","content":{"publish":true}}}}`, server, asking, key)
			if out, stderr, code := run(alice, "AnswerTask", answer); code != 0 || !strings.Contains(out, asking) {
				t.Errorf("%s: alice's AnswerTask: %s %s (exit %d)", server, out, stderr, code)
			}
		}
		out, stderr, code = run(alice, "WaitTask", fmt.Sprintf(`{"server":%q,"taskId":%q,"timeout":"20s"}`, server, asking))
		if code != 0 || !strings.Contains(out, "TASK_STATE_COMPLETED") || !strings.Contains(out, "built in 1 steps; published") {
			t.Errorf("%s: alice's WaitTask after the answer: %s %s (exit %d); want the published build", server, out, stderr, code)
		}
		// Two live tasks are alice's most; the third is refused.
		long1, long2 := start(server, 100, 1), start(server, 100, 1)
		_, stderr, code = run(alice, "StartTask", fmt.Sprintf(`{"server":%q,"name":"build","arguments":{"steps":100,"seconds":1}}`, server))
		if code == 0 || !strings.Contains(stderr, `"code": 8,`) || !strings.Contains(stderr, "max_per_principal 2") || !strings.Contains(stderr, "google.rpc.RetryInfo") {
			t.Errorf("%s: alice's third live task: %s (exit %d); want ResourceExhausted with RetryInfo", server, stderr, code)
		}
		for _, id := range []string{long1, long2} {
			out, stderr, code := run(alice, "CancelTask", fmt.Sprintf(`{"server":%q,"taskId":%q}`, server, id))
			if code != 0 || !strings.Contains(out, "TASK_STATE_CANCELLED") || !strings.Contains(out, `"done": true`) {
				t.Errorf("%s: alice's CancelTask: %s %s (exit %d); want CANCELLED", server, out, stderr, code)
			}
		}
		out, stderr, code = run(alice, "ListTasks", fmt.Sprintf(`{"server":%q}`, server))
		for _, id := range []string{quick, long1, long2} {
			if code != 0 || !strings.Contains(out, id) {
				t.Errorf("%s: alice's ListTasks: %s %s (exit %d); want %s in it", server, out, stderr, code, id)
			}
		}
		// The child dies under a running task: the task failed, and says
		// why, where the restarted child would not know it at all.
		doomed := start(server, 100, 1)
		out, _, _ = run(alice, "GetServer", fmt.Sprintf(`{"server":%q}`, server))
		var srv struct{ Child struct{ Pid int } }
		if json.Unmarshal([]byte(out), &srv) != nil || srv.Child.Pid == 0 {
			t.Fatalf("%s: GetServer: %s; want the child's pid", server, out)
		}
		if err := syscall.Kill(srv.Child.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(testTimeout)
		for {
			out, stderr, code = run(alice, "GetTask", fmt.Sprintf(`{"server":%q,"taskId":%q}`, server, doomed))
			if strings.Contains(out, "TASK_STATE_FAILED") || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if code != 0 || !strings.Contains(out, "TASK_STATE_FAILED") || !strings.Contains(out, "exited before the task ended") || !strings.Contains(out, `"code": -32000`) {
			t.Errorf("%s: GetTask after the child was killed: %s %s (exit %d); want FAILED naming the exit", server, out, stderr, code)
		}
	}
	// The tasks metric: by server and the status the bridge last saw.
	for _, server := range []string{"modern", "legacy"} {
		got := map[string]float64{}
		for _, m := range scrape(t, "http://"+metricsAddr+"/metrics")["mcpbridge_tasks"] {
			if m.labels["server"] == server {
				got[m.labels["state"]] = m.value
			}
		}
		if got["completed"] != 2 || got["cancelled"] != 2 || got["failed"] != 1 || got["working"] != 0 {
			t.Errorf("mcpbridge_tasks of %s: %v; want 2 completed, 2 cancelled and 1 failed", server, got)
		}
	}
	data, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"method":"tasks/cancel"`); n < 4 || !strings.Contains(string(data), `"task_id"`) {
		t.Errorf("audit log: %d tasks/cancel records (want 4 or more) in %s", n, data)
	}
}
