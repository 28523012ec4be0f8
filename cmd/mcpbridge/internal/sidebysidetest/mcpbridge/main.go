// Command mcpbridge is the side-by-side server written with this
// project's runtime, package stdio/mcp, with its typed registrations: the
// schemas come from the argument structs, and the runtime validates and
// decodes the arguments before a handler runs. Package sidebyside
// describes what it serves.
package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/mcp"
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
	Steps int `json:"steps" jsonschema:"how many steps, 1 to 10" mcp:"minimum=1,maximum=10"`
}

type ReviewArgs struct {
	Code  string `json:"code" jsonschema:"the code to review"`
	Focus string `json:"focus,omitempty" jsonschema:"what to look at most"`
}

type NoteVars struct {
	ID string `json:"id"`
}

var notes = map[string]string{"1": "Buy milk", "2": "Call Ada"}

func main() {
	srv, err := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Adds two integers"}, add)
	mcp.AddTool(srv, mcp.Tool{Name: "greet", Description: "Greets someone by name"}, greet)
	mcp.AddTool(srv, mcp.Tool{Name: "slow", Description: "Works in steps, reporting progress after each"}, slow)
	mcp.AddPrompt(srv, mcp.Prompt{Name: "review", Description: "Asks for a review of some code"}, review)
	mcp.AddResourceTemplate(srv, mcp.ResourceTemplate{
		Name:        "note",
		Description: "A note, by id",
		URITemplate: "note://{id}",
		MIMEType:    "text/plain",
	}, note)
	if err := srv.Run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func add(ctx context.Context, req *mcp.CallToolRequest, args AddArgs) (AddResult, error) {
	return AddResult{Sum: args.A + args.B}, nil
}

func greet(ctx context.Context, req *mcp.CallToolRequest, args GreetArgs) (string, error) {
	if args.Formal {
		return "Good day, " + args.Name + ".", nil
	}
	return "Hello, " + args.Name + "!", nil
}

func slow(ctx context.Context, req *mcp.CallToolRequest, args SlowArgs) (string, error) {
	for i := 1; i <= args.Steps; i++ {
		time.Sleep(time.Millisecond)
		if err := req.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: float64(args.Steps)}); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("done in %d steps", args.Steps), nil
}

func review(ctx context.Context, req *mcp.GetPromptRequest, args ReviewArgs) (*mcp.GetPromptResult, error) {
	text := "Please review this code"
	if args.Focus != "" {
		text += ", looking at " + args.Focus
	}
	return &mcp.GetPromptResult{
		Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text(text + ":\n\n" + args.Code)}},
	}, nil
}

func note(ctx context.Context, req *mcp.ReadResourceRequest, vars NoteVars) (*mcp.ReadResourceResult, error) {
	text, ok := notes[vars.ID]
	if !ok {
		return nil, mcp.ErrResourceNotFound
	}
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: req.URI, MIMEType: req.MIMEType, Text: text}}}, nil
}
