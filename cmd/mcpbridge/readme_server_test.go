package main

import (
	"context"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// The README's server, built as printed, works behind mcpbridge serve as
// a user would front it: its tool answers through gRPC, its input schema
// is the one inferred from its struct, and a call without the required
// city never reaches the handler: the model gets an isError result that
// says why.
func TestREADMEServerUnderBridge(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	bin := testkit.READMEProgram(t)

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
