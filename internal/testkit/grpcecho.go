package testkit

import (
	"context"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// GRPCEcho is a bare BridgeService that answers CallTool with the
// "message" argument as one text block, as the bridge answers the demo's
// echo: the gRPC half of the benchmarks' floor (docs/performance.md).
type GRPCEcho struct {
	mcpbridgev1.UnimplementedBridgeServiceServer
}

// CallTool echoes the "message" argument.
func (GRPCEcho) CallTool(_ context.Context, req *mcpbridgev1.CallToolRequest) (*mcpbridgev1.CallToolResponse, error) {
	text := req.GetArguments().GetFields()["message"].GetStringValue()
	return &mcpbridgev1.CallToolResponse{Content: []*mcpbridgev1.Content{
		{Block: &mcpbridgev1.Content_Text{Text: &mcpbridgev1.TextContent{Text: text}}},
	}}, nil
}
