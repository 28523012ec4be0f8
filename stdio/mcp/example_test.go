package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"

	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// A tool that asks the user's name, served in-process over two pipes and
// called by a 2026-07-28 client: the first call answers input_required,
// the retry with the answer completes. A 2025 client would instead get an
// elicitation/create request during its one call; the handler is the same.
func Example() {
	srv, err := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	srv.AddTool(mcp.Tool{Name: "greet", Description: "Greets the user by name"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
			res, err := req.Elicit(ctx, "name", mcp.ElicitParams{
				Message:         "What is your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
			})
			if err != nil {
				return nil, err // ErrInputRequired on the first 2026-07-28 round
			}
			var form struct{ Name string }
			if err := json.Unmarshal(res.Content, &form); err != nil || res.Action != "accept" {
				return mcp.ErrorResult("no name given"), nil
			}
			return mcp.TextResult("Hello, " + form.Name + "!"), nil
		})

	// The client's side of the pipes.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error)
	go func() {
		done <- server.Serve(context.Background(), srv, inR, outW, server.Config{})
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	call := func(id int, params string) (result struct {
		ResultType    string `json:"resultType"`
		InputRequests map[string]struct{ Method string }
		RequestState  string
		Content       []struct{ Text string }
	}) {
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`+"\n", id, params)
		lines.Scan()
		var resp struct{ Result json.RawMessage }
		json.Unmarshal(lines.Bytes(), &resp)
		json.Unmarshal(resp.Result, &result)
		return result
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

	first := call(1, `{"name":"greet",`+meta+`}`)
	fmt.Println(first.ResultType, first.InputRequests["name"].Method)
	state, _ := json.Marshal(first.RequestState)
	retry := call(2, `{"name":"greet",`+meta+`,"requestState":`+string(state)+
		`,"inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}}}`)
	fmt.Println(retry.ResultType, retry.Content[0].Text)

	inW.Close()
	<-done
	// Output:
	// input_required elicitation/create
	// complete Hello, Ada!
}
