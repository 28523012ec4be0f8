package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
	"github.com/mcpbridge/mcpbridge/stdio/mcp"
)

// This file holds the fixtures of the conformance suite's tasks scenarios
// (the tasks extension, io.modelcontextprotocol/tasks), served with
// -conformance: each a tool the scenarios call by name, doing what their
// descriptions ask, on the runtime's tasks (stdio/mcp, tasks.go).

// confirmSchema is the elicitation schema of a yes-or-no confirmation.
var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)

// taskTool registers a fixture whose handler runs as a task when the
// client can take one, with the given support.
func (d *Demo) taskTool(name, description string, schema json.RawMessage, support mcp.TaskSupport, work mcp.TaskFunc) {
	if schema == nil {
		schema = noArgs
	}
	d.srv.AddTaskTool(mcp.Tool{Name: name, Description: description, InputSchema: schema,
		Execution: &mcp.ToolExecution{TaskSupport: support}}, work)
}

func (d *Demo) addConformanceTaskTools() {
	d.tool("greet", "Greets name, at once (never a task)",
		json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`),
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			var a struct {
				Name string `json:"name"`
			}
			json.Unmarshal(req.Arguments, &a)
			return mcp.TextResult("Hello, " + a.Name + "!"), nil
		})
	d.taskTool("slow_compute", "Works for seconds seconds, then says so: a task when the client takes one",
		json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"number"},"label":{"type":"string"}}}`),
		mcp.TaskOptional, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			var a struct {
				Seconds float64 `json:"seconds"`
				Label   string  `json:"label"`
			}
			json.Unmarshal(req.Arguments, &a)
			req.SetTaskStatus(fmt.Sprintf("computing for %gs", a.Seconds))
			if err := wait(ctx, time.Duration(a.Seconds*float64(time.Second))); err != nil {
				return nil, err
			}
			return mcp.TextResult(fmt.Sprintf("computed %q in %gs", a.Label, a.Seconds)), nil
		})
	d.taskTool("failing_job", "Fails as a tool after a second: only as a task", nil, mcp.TaskRequired,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			if err := wait(ctx, time.Second); err != nil {
				return nil, err
			}
			return nil, errors.New("the job failed, as it always does")
		})
	d.taskTool("protocol_error_job", "Ends in a JSON-RPC error: the task fails", nil, mcp.TaskRequired,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: the job broke")
		})
	d.taskTool("confirm_delete", "Asks to confirm the deletion of filename, then deletes nothing",
		json.RawMessage(`{"type":"object","properties":{"filename":{"type":"string"}}}`),
		mcp.TaskRequired, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			var a struct {
				Filename string `json:"filename"`
			}
			json.Unmarshal(req.Arguments, &a)
			res, err := req.Elicit(ctx, "confirm", mcp.ElicitParams{Message: "Delete " + a.Filename + "?", RequestedSchema: confirmSchema})
			if err != nil {
				return nil, err
			}
			return mcp.TextResult(fmt.Sprintf("%s: %s", a.Filename, res.Action)), nil
		})
	d.taskTool("multi_input", "Asks two questions at once", nil, mcp.TaskRequired,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			answers, err := req.Ask(ctx, map[string]mcp.InputRequest{
				"first":  mcp.ElicitInput(mcp.ElicitParams{Message: "First answer?", RequestedSchema: nameSchema}),
				"second": mcp.ElicitInput(mcp.ElicitParams{Message: "Second answer?", RequestedSchema: nameSchema}),
			})
			if err != nil {
				return nil, err
			}
			return mcp.TextResult(fmt.Sprintf("got %d answers", len(answers))), nil
		})
	d.srv.AddTool(mcp.Tool{Name: "test_tool_with_task", Description: "Asks for a name in the request, then greets it as a task",
		InputSchema: noArgs, Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskRequired}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			// Input before the task (input_required rounds), the work after.
			res, err := req.Elicit(ctx, "user_name", mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema})
			if err != nil {
				return nil, err
			}
			return req.RunTask(ctx, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
				if err := wait(ctx, 100*time.Millisecond); err != nil {
					return nil, err
				}
				return mcp.TextResult(greeting(res)), nil
			})
		})
}
