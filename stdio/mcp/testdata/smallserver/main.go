// Command smallserver is the small MCP server of the typed API, measured
// by TestSmallServer: three tools, a prompt and a resource template, with
// no decoding or validation by hand.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

type addArgs struct {
	A int64 `json:"a"`
	B int64 `json:"b"`
}

type sum struct {
	Sum int64 `json:"sum"`
}

type greetArgs struct {
	Name   string `json:"name" mcp:"minLength=1"`
	Formal bool   `json:"formal,omitempty"`
}

type slowArgs struct {
	Steps int `json:"steps" mcp:"minimum=1,maximum=10"`
}

type reviewArgs struct {
	Code string `json:"code" jsonschema:"the code to review"`
}

type user struct {
	ID int64 `json:"id" mcp:"minimum=1"`
}

func main() {
	out, err := server.TakeStdout()
	if err != nil {
		log.Fatal(err)
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "small", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		log.Fatal(err)
	}
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Adds two integers"}, func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (sum, error) {
		if s := in.A + in.B; (s > in.A) == (in.B > 0) {
			return sum{s}, nil
		}
		return sum{}, errors.New("the sum overflows 64 bits")
	})
	mcp.AddTool(srv, mcp.Tool{Name: "greet", Description: "Greets someone"}, func(_ context.Context, _ *mcp.CallToolRequest, in greetArgs) (string, error) {
		if in.Formal {
			return "Good day, " + in.Name + ".", nil
		}
		return "Hi, " + in.Name + "!", nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "slow", Description: "Takes its time, reporting progress"}, func(ctx context.Context, req *mcp.CallToolRequest, in slowArgs) (string, error) {
		for i := 1; i <= in.Steps; i++ {
			time.Sleep(10 * time.Millisecond)
			if err := req.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: float64(in.Steps)}); err != nil {
				return "", err
			}
		}
		return fmt.Sprintf("done in %d steps", in.Steps), nil
	})
	mcp.AddPrompt(srv, mcp.Prompt{Name: "review", Description: "Asks for a code review"}, func(_ context.Context, _ *mcp.GetPromptRequest, in reviewArgs) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.Text("Review this code:\n" + in.Code)}}}, nil
	})
	mcp.AddResourceTemplate(srv, mcp.ResourceTemplate{URITemplate: "users://{id}", Name: "user"}, func(_ context.Context, req *mcp.ReadResourceRequest, u user) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: req.URI, Text: fmt.Sprintf("user %d", u.ID)}}}, nil
	})
	if err := server.Serve(context.Background(), srv, os.Stdin, out, server.Config{}); err != nil {
		log.Fatal(err)
	}
}
