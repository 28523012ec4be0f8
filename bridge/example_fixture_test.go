package bridge

import (
	"context"
	"fmt"
	"os"

	"github.com/mcpbridge/mcpbridge/stdio/mcp"
	"github.com/mcpbridge/mcpbridge/stdio/server"
)

// The "weather" fixture is the child of ExampleNew (example_test.go): a
// stdio MCP server on the project's runtime with one tool, forecast
// {city}, as a program of its own would be written.
func init() { fixtures["weather"] = runWeatherFixture }

func runWeatherFixture() int {
	srv, err := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"}, mcp.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	type forecastArgs struct {
		City string `json:"city" jsonschema:"the city"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "forecast", Description: "Tomorrow's forecast for a city"},
		func(_ context.Context, _ *mcp.CallToolRequest, in forecastArgs) (string, error) {
			return "Sunny in " + in.City, nil
		})
	if err := server.Run(context.Background(), srv, server.Config{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
