package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// A long-running tool as a task: it reports its status, asks the user to
// confirm half-way, and finishes. A 2026-07-28 client that declares the
// tasks extension gets the task at once, polls tasks/get, answers the
// question with tasks/update and reads the result from tasks/get. (A
// 2025-11-25 client asks with params.task, is asked with a real
// elicitation/create, and reads the result with tasks/result; a client
// that takes no task gets the result in its request.)
func ExampleServer_AddTaskTool() {
	srv, err := mcp.NewServer(mcp.Implementation{Name: "builder", Version: "1.0.0"}, mcp.Config{TaskPollInterval: 10 * time.Millisecond})
	if err != nil {
		log.Fatal(err)
	}
	srv.AddTaskTool(mcp.Tool{Name: "build", Description: "Builds, after a confirmation"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			req.SetTaskStatus("compiling")
			res, err := req.Elicit(ctx, "deploy", mcp.ElicitParams{
				Message:         "Deploy the build?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`),
			})
			if err != nil {
				return nil, err // the task was cancelled, or its ttl passed
			}
			return mcp.TextResult("built; deploy: " + res.Action), nil
		})

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error)
	go func() {
		done <- server.Serve(context.Background(), srv, inR, outW, server.Config{})
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	type task struct {
		ResultType    string `json:"resultType"`
		TaskID        string `json:"taskId"`
		Status        string `json:"status"`
		InputRequests map[string]struct{ Method string }
		Result        struct{ Content []struct{ Text string } }
	}
	send := func(id int, method, params string) (t task) {
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		lines.Scan()
		var resp struct{ Result json.RawMessage }
		json.Unmarshal(lines.Bytes(), &resp)
		json.Unmarshal(resp.Result, &t)
		return t
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	poll := func(id string, until string) task {
		for n := 100; ; n++ {
			if t := send(n, "tasks/get", `{"taskId":"`+id+`",`+meta+`}`); t.Status == until {
				return t
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	created := send(1, "tools/call", `{"name":"build",`+meta+`}`)
	fmt.Println(created.ResultType, created.Status)
	waiting := poll(created.TaskID, "input_required")
	fmt.Println(waiting.Status, waiting.InputRequests["deploy"].Method)
	send(2, "tasks/update", `{"taskId":"`+created.TaskID+`","inputResponses":{"deploy":{"action":"accept","content":{"ok":true}}},`+meta+`}`)
	finished := poll(created.TaskID, "completed")
	fmt.Println(finished.Status, finished.Result.Content[0].Text)

	inW.Close()
	<-done
	// Output:
	// task working
	// input_required elicitation/create
	// completed built; deploy: accept
}
