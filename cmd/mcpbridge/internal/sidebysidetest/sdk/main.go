// Command sdk is the side-by-side server written with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk), as its documentation shows:
// typed tool handlers registered with mcp.AddTool, whose schemas come from
// the argument structs' json and jsonschema tags. Package sidebyside
// describes what it serves.
package main

import (
	"context"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type AddArgs struct {
	A int `json:"a" jsonschema:"the first number"`
	B int `json:"b" jsonschema:"the second number"`
}

type AddResult struct {
	Sum int `json:"sum" jsonschema:"a + b"`
}

type GreetArgs struct {
	Name   string `json:"name" jsonschema:"who to greet"`
	Formal bool   `json:"formal,omitempty" jsonschema:"greet formally"`
}

type SlowArgs struct {
	Steps int `json:"steps" jsonschema:"how many steps, 1 to 10"`
}

var notes = map[string]string{"1": "Buy milk", "2": "Call Ada"}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Adds two integers"}, add)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Greets someone by name"}, greet)
	mcp.AddTool(server, &mcp.Tool{Name: "slow", Description: "Works in steps, reporting progress after each"}, slow)
	server.AddPrompt(&mcp.Prompt{
		Name:        "review",
		Description: "Asks for a review of some code",
		Arguments: []*mcp.PromptArgument{
			{Name: "code", Description: "the code to review", Required: true},
			{Name: "focus", Description: "what to look at most"},
		},
	}, review)
	server.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "note",
		Description: "A note, by id",
		URITemplate: "note://{id}",
		MIMEType:    "text/plain",
	}, note)
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

func add(ctx context.Context, req *mcp.CallToolRequest, args AddArgs) (*mcp.CallToolResult, AddResult, error) {
	return nil, AddResult{Sum: args.A + args.B}, nil
}

func greet(ctx context.Context, req *mcp.CallToolRequest, args GreetArgs) (*mcp.CallToolResult, any, error) {
	text := "Hello, " + args.Name + "!"
	if args.Formal {
		text = "Good day, " + args.Name + "."
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

func slow(ctx context.Context, req *mcp.CallToolRequest, args SlowArgs) (*mcp.CallToolResult, any, error) {
	if args.Steps < 1 || args.Steps > 10 {
		return nil, nil, fmt.Errorf("steps must be between 1 and 10, not %d", args.Steps)
	}
	for i := 1; i <= args.Steps; i++ {
		time.Sleep(time.Millisecond)
		if token := req.Params.GetProgressToken(); token != nil {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token,
				Progress:      float64(i),
				Total:         float64(args.Steps),
			})
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("done in %d steps", args.Steps)}}}, nil, nil
}

func review(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	code, ok := req.Params.Arguments["code"]
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "review needs the argument code"}
	}
	text := "Please review this code"
	if focus := req.Params.Arguments["focus"]; focus != "" {
		text += ", looking at " + focus
	}
	return &mcp.GetPromptResult{
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text + ":\n\n" + code}}},
	}, nil
}

func note(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	text, ok := notes[strings.TrimPrefix(req.Params.URI, "note://")]
	if !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: text}}}, nil
}
