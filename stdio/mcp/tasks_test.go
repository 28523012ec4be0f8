package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
)

// Tests of tasks (tasks.go): the 2026-07-28 extension and the 2025-11-25
// core tasks, on one fixture server.

const (
	tasksCaps   = `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	metaTasks26 = `"_meta":{` + v26 + `,` + tasksCaps + `}`
)

// taskServer has a tool of each kind: "sleep" (optional: sleeps ms, or
// until cancelled), "job" (required: fails as a tool), "broken" (required:
// a JSON-RPC error), "panics", "ask" (required: two questions), "sync"
// (forbidden), "prelude" (asks in the request, then runs as a task).
func taskServer(t *testing.T, cfg mcp.Config) *mcp.Server {
	srv := newServer(t, "task-server", cfg)
	started := make(chan struct{}, 100)
	srv.AddTaskTool(mcp.Tool{Name: "sleep"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		var a struct{ MS int }
		json.Unmarshal(req.Arguments, &a)
		req.SetTaskStatus("sleeping")
		started <- struct{}{}
		select {
		case <-time.After(time.Duration(a.MS) * time.Millisecond):
			return mcp.TextResult("slept"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	required := &mcp.ToolExecution{TaskSupport: mcp.TaskRequired}
	srv.AddTaskTool(mcp.Tool{Name: "job", Execution: required}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		return nil, errors.New("the job failed")
	})
	srv.AddTaskTool(mcp.Tool{Name: "broken", Execution: required}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		return nil, jsonrpc.Errorf(-32000, "broken on purpose")
	})
	srv.AddTaskTool(mcp.Tool{Name: "panics", Execution: required}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		panic("on purpose")
	})
	srv.AddTaskTool(mcp.Tool{Name: "ask", Execution: required}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		answers, err := req.Ask(ctx, map[string]mcp.InputRequest{
			"a": mcp.ElicitInput(mcp.ElicitParams{Message: "A?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}),
			"b": mcp.ElicitInput(mcp.ElicitParams{Message: "B?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}),
		})
		if err != nil {
			return nil, err
		}
		return mcp.TextResult(string(answers["a"]) + " " + string(answers["b"])), nil
	})
	srv.AddTool(mcp.Tool{Name: "sync"}, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		return mcp.TextResult("at once"), nil
	})
	srv.AddTool(mcp.Tool{Name: "prelude", Execution: required}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
		res, err := req.Elicit(ctx, "who", mcp.ElicitParams{Message: "Who?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return nil, err
		}
		return req.RunTask(ctx, func(context.Context, *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			return mcp.TextResult("hello " + string(res.Content)), nil
		})
	})
	return srv
}

// pollTask polls tasks/get until the task's status is want, and returns
// that result.
func pollTask(t *testing.T, p *pipe, id, meta, want string) json.RawMessage {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for n := 1000; time.Now().Before(deadline); n++ {
		res := wantResult(t, p.call(request(n, "tasks/get", `{"taskId":`+id+`,`+meta+`}`)), jsonText(n))
		if field(res, "status") == `"`+want+`"` {
			return res
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("task %s never became %s", id, want)
	return nil
}

func TestTasksModern(t *testing.T) {
	p := serve(t, taskServer(t, mcp.Config{}))
	disc := wantResult(t, p.call(request(1, "server/discover", `{`+metaTasks26+`}`)), "1")
	if field(disc, "capabilities", "extensions") != `{"io.modelcontextprotocol/tasks":{}}` || field(disc, "capabilities", "tasks") != "" {
		t.Errorf("discover's capabilities: %s", field(disc, "capabilities"))
	}

	// A client without the extension: an optional tool runs in the
	// request, a required one and the tasks methods are -32021.
	res := wantResult(t, p.call(request(2, "tools/call", `{"name":"sleep","arguments":{"ms":1},`+meta26+`}`)), "2")
	if field(res, "resultType") != `"complete"` || field(res, "content") != `[{"type":"text","text":"slept"}]` {
		t.Errorf("an optional tool without the extension: %s", res)
	}
	m := wantError(t, p.call(request(3, "tools/call", `{"name":"job",`+meta26+`}`)), "3", -32021)
	if string(m.Error.Data) != `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}` {
		t.Errorf("-32021 data: %s", m.Error.Data)
	}
	for i, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		wantError(t, p.call(request(10+i, method, `{"taskId":"x","inputResponses":{},`+meta26+`}`)), jsonText(10+i), -32021)
	}
	for i, method := range []string{"tasks/result", "tasks/list"} {
		wantError(t, p.call(request(20+i, method, `{"taskId":"x",`+metaTasks26+`}`)), jsonText(20+i), -32601)
	}
	wantError(t, p.call(request(22, "tasks/get", `{"taskId":"nope",`+metaTasks26+`}`)), "22", -32602)

	// A task: the flat envelope, then the result inlined by tasks/get.
	created := wantResult(t, p.call(request(30, "tools/call", `{"name":"sleep","arguments":{"ms":50},"task":{"ttl":5},`+metaTasks26+`}`)), "30")
	var env map[string]json.RawMessage
	json.Unmarshal(created, &env)
	for _, key := range []string{"resultType", "taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"} {
		if env[key] == nil {
			t.Errorf("the task envelope lacks %s: %s", key, created)
		}
	}
	for _, key := range []string{"task", "ttl", "pollInterval", "result", "requestState", "content"} {
		if env[key] != nil {
			t.Errorf("the task envelope has %s: %s", key, created)
		}
	}
	if string(env["resultType"]) != `"task"` || string(env["status"]) != `"working"` || string(env["ttlMs"]) != "3600000" || len(env["taskId"]) < 20 {
		t.Errorf("the envelope: %s", created)
	}
	id := string(env["taskId"])
	done := pollTask(t, p, id, metaTasks26, "completed")
	if field(done, "resultType") != `"complete"` || field(done, "result", "content") != `[{"type":"text","text":"slept"}]` || field(done, "result", "resultType") != `"complete"` {
		t.Errorf("tasks/get of a completed task: %s", done)
	}
	if ack := wantResult(t, p.call(request(31, "tasks/cancel", `{"taskId":`+id+`,`+metaTasks26+`}`)), "31"); field(ack, "status") != "" || field(ack, "resultType") != `"complete"` {
		t.Errorf("cancelling a final task: %s", ack)
	}

	// A tool error completes the task with isError; a JSON-RPC error and a
	// panic fail it with the error.
	id = field(wantResult(t, p.call(request(40, "tools/call", `{"name":"job",`+metaTasks26+`}`)), "40"), "taskId")
	if res := pollTask(t, p, id, metaTasks26, "completed"); field(res, "result", "isError") != "true" {
		t.Errorf("a tool error: %s", res)
	}
	for i, tool := range []string{"broken", "panics"} {
		id = field(wantResult(t, p.call(request(41+i, "tools/call", `{"name":"`+tool+`",`+metaTasks26+`}`)), jsonText(41+i)), "taskId")
		res := pollTask(t, p, id, metaTasks26, "failed")
		if code := field(res, "error", "code"); field(res, "result") != "" || tool == "broken" && code != "-32000" || tool == "panics" && code != "-32603" {
			t.Errorf("%s: %s", tool, res)
		}
	}

	// Cancelling a running task: an empty ack, and cancelled at once.
	id = field(wantResult(t, p.call(request(50, "tools/call", `{"name":"sleep","arguments":{"ms":60000},`+metaTasks26+`}`)), "50"), "taskId")
	ack := wantResult(t, p.call(request(51, "tasks/cancel", `{"taskId":`+id+`,`+metaTasks26+`}`)), "51")
	if ack := strings.TrimSuffix(string(ack), "}"); !strings.HasPrefix(ack, `{"resultType":"complete"`) || strings.Contains(ack, "status") {
		t.Errorf("the cancel's ack: %s", ack)
	}
	pollTask(t, p, id, metaTasks26, "cancelled")

	// Input: two questions open at once, answered one at a time; other
	// keys are ignored.
	id = field(wantResult(t, p.call(request(60, "tools/call", `{"name":"ask",`+metaTasks26+`}`)), "60"), "taskId")
	res = pollTask(t, p, id, metaTasks26, "input_required")
	for field(res, "inputRequests", "b") == "" { // both questions are asked together
		res = pollTask(t, p, id, metaTasks26, "input_required")
	}
	if field(res, "inputRequests", "a", "method") != `"elicitation/create"` {
		t.Errorf("the input requests: %s", res)
	}
	wantResult(t, p.call(request(61, "tasks/update", `{"taskId":`+id+`,"inputResponses":{"a":{"action":"accept","content":{"name":"A"}},"zz":{"x":1}},`+metaTasks26+`}`)), "61")
	res = wantResult(t, p.call(request(62, "tasks/get", `{"taskId":`+id+`,`+metaTasks26+`}`)), "62")
	if field(res, "status") != `"input_required"` || field(res, "inputRequests", "a") != "" || field(res, "inputRequests", "b") == "" {
		t.Errorf("after one answer: %s", res)
	}
	wantResult(t, p.call(request(63, "tasks/update", `{"taskId":`+id+`,"inputResponses":{"b":{"action":"accept","content":{"name":"B"}}},`+metaTasks26+`}`)), "63")
	if res := pollTask(t, p, id, metaTasks26, "completed"); !strings.Contains(field(res, "result", "content"), `\"name\":\"B\"`) {
		t.Errorf("after both answers: %s", res)
	}

	// Input before the task: an input_required round, then the task.
	ir := wantResult(t, p.call(request(70, "tools/call", `{"name":"prelude",`+metaTasks26+`}`)), "70")
	if field(ir, "resultType") != `"input_required"` || field(ir, "taskId") != "" {
		t.Fatalf("the prelude's first round: %s", ir)
	}
	var state struct {
		RequestState string `json:"requestState"`
	}
	json.Unmarshal(ir, &state)
	created = wantResult(t, p.call(request(71, "tools/call", `{"name":"prelude","inputResponses":{"who":{"action":"accept","content":{"name":"Ada"}}},"requestState":"`+state.RequestState+`",`+metaTasks26+`}`)), "71")
	if field(created, "resultType") != `"task"` || field(created, "requestState") != "" {
		t.Fatalf("the prelude's second round: %s", created)
	}
	if res := pollTask(t, p, field(created, "taskId"), metaTasks26, "completed"); !strings.Contains(field(res, "result", "content"), "Ada") {
		t.Errorf("the prelude's task: %s", res)
	}
	p.eof()
}

func TestTasksLegacy(t *testing.T) {
	p := serve(t, taskServer(t, mcp.Config{TaskPollInterval: 20 * time.Millisecond}))
	init := p.initialize("2025-11-25", `{"elicitation":{}}`)
	if field(init, "capabilities", "tasks") != `{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}` {
		t.Errorf("initialize's tasks capability: %s", field(init, "capabilities"))
	}
	list := wantResult(t, p.call(request(1, "tools/list", `{}`)), "1")
	if !strings.Contains(string(list), `"name":"job","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}`) {
		t.Errorf("tools/list: %s", list)
	}
	wantError(t, p.call(request(2, "tools/call", `{"name":"job"}`)), "2", -32601)            // required, not asked
	wantError(t, p.call(request(3, "tools/call", `{"name":"sync","task":{}}`)), "3", -32601) // forbidden, asked
	if res := wantResult(t, p.call(request(4, "tools/call", `{"name":"sleep","arguments":{"ms":1}}`)), "4"); field(res, "content") == "" {
		t.Errorf("an optional tool, not asked: %s", res)
	}

	created := wantResult(t, p.call(request(5, "tools/call", `{"name":"sleep","arguments":{"ms":50},"task":{"ttl":60000}}`)), "5")
	if field(created, "task", "status") != `"working"` || field(created, "task", "ttl") != "60000" || field(created, "task", "pollInterval") != "20" || field(created, "resultType") != "" {
		t.Errorf("the CreateTaskResult: %s", created)
	}
	id := field(created, "task", "taskId")
	res := wantResult(t, p.call(request(6, "tasks/result", `{"taskId":`+id+`,"task":{}}`)), "6")
	if field(res, "content") != `[{"type":"text","text":"slept"}]` || field(res, "_meta", "io.modelcontextprotocol/related-task", "taskId") != id {
		t.Errorf("tasks/result: %s", res)
	}
	if got := wantResult(t, p.call(request(7, "tasks/get", `{"taskId":`+id+`}`)), "7"); field(got, "status") != `"completed"` || field(got, "result") != "" {
		t.Errorf("tasks/get: %s", got)
	}
	wantError(t, p.call(request(8, "tasks/cancel", `{"taskId":`+id+`}`)), "8", -32602) // final
	wantError(t, p.call(request(9, "tasks/update", `{"taskId":`+id+`,"inputResponses":{}}`)), "9", -32601)

	// A tool error fails a 2025-11-25 task; tasks/result still returns
	// the result.
	id = field(wantResult(t, p.call(request(10, "tools/call", `{"name":"job","task":{}}`)), "10"), "task", "taskId")
	if res := wantResult(t, p.call(request(11, "tasks/result", `{"taskId":`+id+`}`)), "11"); field(res, "isError") != "true" {
		t.Errorf("tasks/result of a failing job: %s", res)
	}
	if got := wantResult(t, p.call(request(12, "tasks/get", `{"taskId":`+id+`}`)), "12"); field(got, "status") != `"failed"` {
		t.Errorf("the failing job's status: %s", got)
	}

	// Cancel returns the cancelled Task.
	id = field(wantResult(t, p.call(request(20, "tools/call", `{"name":"sleep","arguments":{"ms":60000},"task":{}}`)), "20"), "task", "taskId")
	if got := wantResult(t, p.call(request(21, "tasks/cancel", `{"taskId":`+id+`}`)), "21"); field(got, "status") != `"cancelled"` || field(got, "taskId") != id {
		t.Errorf("tasks/cancel: %s", got)
	}
	listed := wantResult(t, p.call(request(22, "tasks/list", `{}`)), "22")
	if n := strings.Count(field(listed, "tasks"), `"taskId"`); n != 3 {
		t.Errorf("tasks/list has %d tasks: %s", n, listed)
	}

	// Input: a real elicitation with the related-task _meta, the task
	// input_required meanwhile.
	id = field(wantResult(t, p.call(request(30, "tools/call", `{"name":"ask","task":{}}`)), "30"), "task", "taskId")
	var asked []msg
	for range 2 { // both at once
		m := decode(t, p.next())
		if m.Method != "elicitation/create" || field(m.Params, "_meta", "io.modelcontextprotocol/related-task", "taskId") != id {
			t.Fatalf("the task's question: %+v", m)
		}
		asked = append(asked, m)
	}
	if got := wantResult(t, p.call(request(31, "tasks/get", `{"taskId":`+id+`}`)), "31"); field(got, "status") != `"input_required"` {
		t.Errorf("the status while asking: %s", got)
	}
	for _, m := range asked {
		p.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"action":"accept","content":{"name":"x"}}}`)
	}
	if res := wantResult(t, p.call(request(32, "tasks/result", `{"taskId":`+id+`}`)), "32"); !strings.Contains(field(res, "content"), "accept") {
		t.Errorf("the asking task's result: %s", res)
	}
	p.eof()
}

// TestTasksBounded: a session keeps at most MaxTasks (an optional tool
// then runs in the request, a required one is refused, retryable), and a
// task is forgotten once its TTL passes.
func TestTasksBounded(t *testing.T) {
	p := serve(t, taskServer(t, mcp.Config{MaxTasks: 1, TaskTTL: 300 * time.Millisecond}))
	first := wantResult(t, p.call(request(1, "tools/call", `{"name":"sleep","arguments":{"ms":60000},`+metaTasks26+`}`)), "1")
	if field(first, "ttlMs") != "300" {
		t.Errorf("the ttl: %s", first)
	}
	if res := wantResult(t, p.call(request(2, "tools/call", `{"name":"sleep","arguments":{"ms":1},`+metaTasks26+`}`)), "2"); field(res, "resultType") != `"complete"` {
		t.Errorf("an optional tool with no room: %s", res)
	}
	m := wantError(t, p.call(request(3, "tools/call", `{"name":"job",`+metaTasks26+`}`)), "3", -32603)
	if string(m.Error.Data) != `{"retryable":true}` {
		t.Errorf("a required tool with no room: %s", m.Error.Data)
	}
	deadline := time.Now().Add(waitLimit)
	for n := 10; ; n++ {
		line := p.call(request(n, "tasks/get", `{"taskId":`+field(first, "taskId")+`,`+metaTasks26+`}`))
		if decode(t, line).Error != nil {
			wantError(t, line, jsonText(n), -32602)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task outlived its ttl: %s", line)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Room again.
	if res := wantResult(t, p.call(request(4, "tools/call", `{"name":"job",`+metaTasks26+`}`)), "4"); field(res, "resultType") != `"task"` {
		t.Errorf("after the ttl: %s", res)
	}
	p.eof()
}
