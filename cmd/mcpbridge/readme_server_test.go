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

// The README's `mcpbridge serve -- go run ./weather` starts the server
// only once go run has compiled it, which can take longer than the 5 s
// probe; the launcher reads nothing meanwhile. The bridge times the
// probe from the moment the child reads it, so it negotiates the era the
// server speaks, 2026-07-28, not a legacy one. The compiling launcher is
// a shell that sleeps past the probe's 5 s before it runs the server.
func TestREADMEServerBehindASlowLauncherNegotiates2026(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	bin := testkit.READMEProgram(t)

	b := startBridge(t, nil, "--", "sh", "-c", `sleep 5.5 && exec "$0"`, bin)
	bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
	res, err := bc.GetServer(ctx, &mcpbridgev1.GetServerRequest{WaitForReady: true})
	if err != nil || res.GetProtocolVersion() != "2026-07-28" {
		t.Errorf("GetServer = %v, %v; want the README's server at 2026-07-28", res, err)
	}
}
