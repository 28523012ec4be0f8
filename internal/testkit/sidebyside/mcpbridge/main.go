// Command mcpbridge is the side-by-side server written with this
// project's runtime, package stdio/mcp. Package sidebyside describes what
// it serves.
//
// PLACEHOLDER: this version uses the runtime's current raw API (schemas
// and arguments as raw JSON), so that the side-by-side harness runs end to
// end today. It is to be rewritten with the typed registration
// (mcp.AddTool[In, Out], mcp.AddPrompt[Args],
// mcp.AddResourceTemplate[Vars]) once that lands; its line count and
// figures in the README are to be taken again then.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/mcp"
)

var notes = map[string]string{"1": "Buy milk", "2": "Call Ada"}

func main() {
	srv, err := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	srv.AddTool(mcp.Tool{
		Name:        "add",
		Description: "Adds two integers",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"a":{"type":"integer","description":"the first number"},` +
			`"b":{"type":"integer","description":"the second number"}},` +
			`"required":["a","b"],"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"sum":{"type":"integer","description":"a + b"}},"required":["sum"],"additionalProperties":false}`),
	}, add)
	srv.AddTool(mcp.Tool{
		Name:        "greet",
		Description: "Greets someone by name",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"name":{"type":"string","description":"who to greet"},` +
			`"formal":{"type":"boolean","description":"greet formally"}},` +
			`"required":["name"],"additionalProperties":false}`),
	}, greet)
	srv.AddTool(mcp.Tool{
		Name:        "slow",
		Description: "Works in steps, reporting progress after each",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"steps":{"type":"integer","description":"how many steps, 1 to 10"}},` +
			`"required":["steps"],"additionalProperties":false}`),
	}, slow)
	srv.AddPrompt(mcp.Prompt{
		Name:        "review",
		Description: "Asks for a review of some code",
		Arguments: []mcp.PromptArgument{
			{Name: "code", Description: "the code to review", Required: true},
			{Name: "focus", Description: "what to look at most"},
		},
	}, review)
	srv.AddResourceTemplate(mcp.ResourceTemplate{
		Name:        "note",
		Description: "A note, by id",
		URITemplate: "note://{id}",
		MIMEType:    "text/plain",
	}, note)
	if err := srv.Run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func add(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
	var args struct{ A, B int }
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, err
	}
	out := struct {
		Sum int `json:"sum"`
	}{args.A + args.B}
	text, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &mcp.ToolResult{Content: []mcp.Content{mcp.Text(string(text))}, StructuredContent: out}, nil
}

func greet(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
	var args struct {
		Name   string
		Formal bool
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, err
	}
	if args.Formal {
		return mcp.TextResult("Good day, " + args.Name + "."), nil
	}
	return mcp.TextResult("Hello, " + args.Name + "!"), nil
}

func slow(ctx context.Context, req *mcp.CallToolRequest) (*mcp.ToolResult, error) {
	var args struct{ Steps int }
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, err
	}
	if args.Steps < 1 || args.Steps > 10 {
		return nil, fmt.Errorf("steps must be between 1 and 10, not %d", args.Steps)
	}
	for i := 1; i <= args.Steps; i++ {
		time.Sleep(time.Millisecond)
		if err := req.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: float64(args.Steps)}); err != nil {
			return nil, err
		}
	}
	return mcp.TextResult(fmt.Sprintf("done in %d steps", args.Steps)), nil
}

func review(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	text := "Please review this code"
	if focus := req.Arguments["focus"]; focus != "" {
		text += ", looking at " + focus
	}
	return &mcp.GetPromptResult{
		Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.Text(text + ":\n\n" + req.Arguments["code"])}},
	}, nil
}

func note(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	text, ok := notes[req.Vars["id"]]
	if !ok {
		return nil, mcp.ErrResourceNotFound
	}
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: req.URI, MIMEType: req.MIMEType, Text: text}}}, nil
}
