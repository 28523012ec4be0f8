package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// readmeProgram is the fenced Go block of README.md that is a whole
// program: the server of "Writing a stdio MCP server in Go".
var readmeProgram = regexp.MustCompile("(?s)```go\n(package main\n.*?)```")

// The README's server, built as printed, works behind mcpbridge serve as
// a user would front it: its tool answers through gRPC, its input schema
// is the one inferred from its struct, and a call without the required
// city never reaches the handler: the model gets an isError result that
// says why.
func TestREADMEServerUnderBridge(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	root := testkit.ModuleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeProgram.FindAllSubmatch(readme, -1)
	if len(blocks) != 1 {
		t.Fatalf("README.md has %d Go blocks that are programs, want 1", len(blocks))
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "main.go"), filepath.Join(dir, "weather")
	if err := os.WriteFile(src, blocks[0][1], 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", bin, src)
	build.Dir = root // the program's imports resolve to this module
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the README's program: %v\n%s", err, out)
	}

	b := startBridge(t, nil, "--", bin)
	bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
	childPid(ctx, t, bc)
	tools, err := bc.ListTools(ctx, &mcpbridgev1.ListToolsRequest{})
	if err != nil || len(tools.GetTools()) != 1 {
		t.Fatalf("ListTools = %v, %v; want the forecast tool", tools, err)
	}
	schema := tools.GetTools()[0].GetInputSchema().AsMap()
	if req, _ := schema["required"].([]any); len(req) != 1 || req[0] != "city" || schema["additionalProperties"] != false {
		t.Errorf("forecast's input schema = %v, want city required and no other argument", schema)
	}
	city, _ := structpb.NewStruct(map[string]any{"city": "Paris"})
	res, err := bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "forecast", Arguments: city})
	if err != nil || res.GetIsError() || len(res.GetContent()) != 1 || res.GetContent()[0].GetText().GetText() != "Sunny in Paris" {
		t.Errorf("forecast(Paris) = %v, %v; want \"Sunny in Paris\"", res, err)
	}
	res, err = bc.CallTool(ctx, &mcpbridgev1.CallToolRequest{Name: "forecast"})
	if err != nil || !res.GetIsError() || len(res.GetContent()) != 1 || res.GetContent()[0].GetText().GetText() != "Invalid arguments: city: required" {
		t.Errorf("forecast() = %v, %v; want an isError result \"Invalid arguments: city: required\"", res, err)
	}
}
